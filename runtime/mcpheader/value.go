package mcpheader

import (
	"encoding/base64"
	"errors"
	"strings"
)

const (
	sentinelStart = "=?base64?"
	sentinelEnd   = "?="
)

// PlainSafe reports whether s can be sent as is (ENC-2, ENC-3): visible
// ASCII, space and tab only, no leading or trailing whitespace, and not
// shaped like the Base64 sentinel. The empty string is sent plain (ENC-6 is
// a gap; an empty header value carries no injection risk).
func PlainSafe(s string) bool {
	if strings.HasPrefix(s, sentinelStart) && strings.HasSuffix(s, sentinelEnd) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x21 && c <= 0x7e:
		case (c == ' ' || c == '\t') && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}

// Encode returns the header form of s: s itself when plain-safe, else
// =?base64?<standard Base64 of the UTF-8 bytes>?= (ENC-2..4).
func Encode(s string) string {
	if PlainSafe(s) {
		return s
	}
	return sentinelStart + base64.StdEncoding.EncodeToString([]byte(s)) + sentinelEnd
}

// ErrInvalidValue reports a header value with characters that may not
// appear in it, or a malformed Base64 sentinel.
var ErrInvalidValue = errors.New("invalid header value")

// Decode returns the value a header carries: sentinel values are Base64
// decoded (ENC-5); plain values must be plain-safe.
func Decode(h string) (string, error) {
	if strings.HasPrefix(h, sentinelStart) && strings.HasSuffix(h, sentinelEnd) && len(h) >= len(sentinelStart)+len(sentinelEnd) {
		b, err := base64.StdEncoding.DecodeString(h[len(sentinelStart) : len(h)-len(sentinelEnd)])
		if err != nil {
			return "", ErrInvalidValue
		}
		return string(b), nil
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !(c >= 0x21 && c <= 0x7e || c == ' ' || c == '\t') {
			return "", ErrInvalidValue
		}
	}
	// net/http trims surrounding whitespace; a plain value cannot have any.
	return h, nil
}
