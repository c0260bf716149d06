package wireimpl

import (
	"errors"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Decoding errors are *wire.DecodeError values. Their path is built while
// unwinding out of a failed member (AtKey, AtIndex), so paths cost nothing
// when decoding succeeds.

func syntax(msg string) error { return &wire.DecodeError{Msg: msg, Kind: wire.Syntax} }

func syntaxAt(msg string) error { return syntax("invalid JSON: " + msg) }

func shape(msg string) error { return &wire.DecodeError{Msg: msg, Kind: wire.Shape} }

func limit(msg string) error { return &wire.DecodeError{Msg: msg, Kind: wire.Limit} }

// AtKey places err under object member key.
func AtKey(err error, key string) error { return at(err, key, -1) }

// AtIndex places err under array element i.
func AtIndex(err error, i int) error { return at(err, "", i) }

func at(err error, key string, index int) error {
	var de *wire.DecodeError
	if !errors.As(err, &de) {
		de = &wire.DecodeError{Msg: err.Error(), Kind: wire.Shape}
	}
	var b strings.Builder
	appendSeg(&b, key, index)
	if de.Path != "" && de.Path[0] != '[' {
		b.WriteByte('.')
	}
	b.WriteString(de.Path)
	de.Path = b.String()
	return de
}

func appendSeg(b *strings.Builder, key string, index int) {
	switch {
	case index >= 0:
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(index))
		b.WriteByte(']')
	case isIdent(key):
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(key)
	default:
		b.WriteByte('[')
		b.WriteString(strconv.Quote(key))
		b.WriteByte(']')
	}
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return true
}

func errTooDeep() error {
	return limit("nesting deeper than " + strconv.Itoa(MaxDepth) + " levels")
}

// TypeError reports a value of the wrong JSON kind.
func TypeError(want, got wire.Kind) error {
	if got == wire.KindInvalid {
		return syntax("invalid JSON: expected " + want.String())
	}
	return shape("expected " + want.String() + ", got " + got.String())
}

// DuplicateKey reports a member name that occurs twice in one object.
func DuplicateKey(key []byte) error {
	return shape("duplicate member " + strconv.Quote(string(key)))
}

// UnknownMember reports a member an object with additionalProperties:
// false does not declare.
func UnknownMember(key []byte) error {
	return shape("unknown member " + strconv.Quote(string(key)))
}

// UnknownVariant reports a discriminator value no union member accepts.
func UnknownVariant(key, got string) error {
	return AtKey(shape("unknown "+key+" "+strconv.Quote(got)), key)
}

// NoVariant reports a value no union member accepts.
func NoVariant(union string, got wire.Kind) error {
	if got == wire.KindInvalid {
		return syntax("invalid JSON: expected a value")
	}
	return shape(got.String() + " matches no member of " + union)
}

// MissingDiscriminator reports an object lacking the member that tells a
// union's members apart.
func MissingDiscriminator(key string) error {
	return AtKey(shape("required member is missing"), key)
}

// IsSyntax reports whether err is a decoding failure on input that is not
// JSON at all (a JSON-RPC parse error rather than an invalid request).
func IsSyntax(err error) bool {
	var de *wire.DecodeError
	return errors.As(err, &de) && de.Kind == wire.Syntax
}
