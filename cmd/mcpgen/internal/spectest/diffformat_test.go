package spectest

// The formats schema.json uses ("uri", "byte", "uri-template"), checked
// to the letter of their RFCs for the differential test's validator.
//
// santhosh-tekuri/jsonschema checks "uri" and "uri-template" with
// net/url.Parse, which is more lenient than RFC 3986 in some places
// ("http://x/a b", "http://x/<y>", "http://x/a%zz"... see
// TestDifferentialFormatOracle) and stricter than RFC 6570 in others
// (it rejects the template "{scheme}://{host}"), and it does not know
// "byte" (OpenAPI: base64, RFC 4648). A disagreement the differential test
// reports must be real, so the validator is given these checkers instead.

import (
	"encoding/base64"
	"net/netip"
	"strings"
	"unicode/utf8"
)

func isAlpha(c byte) bool      { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isHex(c byte) bool        { return hexVal(c) >= 0 }
func isUnreserved(c byte) bool { return isAlpha(c) || isDigit(c) || strings.IndexByte("-._~", c) >= 0 }
func isSubDelim(c byte) bool   { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }

// rfc3986Chars reports whether s consists of pct-encoded triplets and
// bytes for which allowed is true.
func rfc3986Chars(s string, allowed func(c byte) bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
			continue
		}
		if !allowed(c) {
			return false
		}
	}
	return true
}

func isPchar(c byte) bool { return isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' }

// rfc3986URI reports whether s is a URI (RFC 3986 section 3, the "URI"
// rule: absolute, fragment allowed).
func rfc3986URI(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon < 1 || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < colon; i++ {
		if c := s[i]; !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	rest := s[colon+1:]
	if h := strings.IndexByte(rest, '#'); h >= 0 {
		if !rfc3986Chars(rest[h+1:], func(c byte) bool { return isPchar(c) || c == '/' || c == '?' }) {
			return false
		}
		rest = rest[:h]
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		if !rfc3986Chars(rest[q+1:], func(c byte) bool { return isPchar(c) || c == '/' || c == '?' }) {
			return false
		}
		rest = rest[:q]
	}
	path := rest
	if strings.HasPrefix(rest, "//") {
		auth := rest[2:]
		path = ""
		if sl := strings.IndexByte(auth, '/'); sl >= 0 {
			auth, path = auth[:sl], auth[sl:]
		}
		if !rfc3986Authority(auth) {
			return false
		}
	}
	// path-abempty, path-absolute, path-rootless and path-empty are all
	// segments of pchar separated by "/" here ("//" was the authority).
	return rfc3986Chars(path, func(c byte) bool { return isPchar(c) || c == '/' })
}

func rfc3986Authority(a string) bool {
	if at := strings.LastIndexByte(a, '@'); at >= 0 {
		if !rfc3986Chars(a[:at], func(c byte) bool { return isUnreserved(c) || isSubDelim(c) || c == ':' }) {
			return false
		}
		a = a[at+1:]
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return false
		}
		host, port = a[:end+1], a[end+1:]
		if port != "" {
			if port[0] != ':' {
				return false
			}
			port = port[1:]
		}
		if !ipLiteral(host[1 : len(host)-1]) {
			return false
		}
	} else {
		if c := strings.IndexByte(a, ':'); c >= 0 {
			host, port = a[:c], a[c+1:]
		}
		if !rfc3986Chars(host, func(c byte) bool { return isUnreserved(c) || isSubDelim(c) }) {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return false
		}
	}
	return true
}

// ipLiteral: IPv6address / IPvFuture (RFC 3986 section 3.2.2; no zones).
func ipLiteral(s string) bool {
	if len(s) > 0 && (s[0] == 'v' || s[0] == 'V') {
		dot := strings.IndexByte(s, '.')
		if dot < 2 || dot == len(s)-1 {
			return false
		}
		for i := 1; i < dot; i++ {
			if !isHex(s[i]) {
				return false
			}
		}
		return rfc3986Chars(s[dot+1:], func(c byte) bool { return isUnreserved(c) || isSubDelim(c) || c == ':' }) && !strings.Contains(s[dot+1:], "%")
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && a.Zone() == ""
}

// rfc4648Base64 reports whether s is standard base64 with padding (RFC
// 4648 section 4), with no characters outside the alphabet: encoding/base64
// alone would skip CR and LF.
func rfc4648Base64(s string) bool {
	if strings.ContainsAny(s, "\r\n") {
		return false
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

// rfc6570Template reports whether s is a URI Template (RFC 6570 section
// 2): literals and expressions "{" [operator] varspec *("," varspec) "}".
func rfc6570Template(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 || !rfc6570Expression(s[i+1:i+end]) {
				return false
			}
			i += end + 1
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 3
		case c < 0x80:
			if !rfc6570Literal(c) {
				return false
			}
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !ucsOrPrivate(r) {
				return false
			}
			i += n
		}
	}
	return true
}

func rfc6570Literal(c byte) bool {
	return c == 0x21 || c == 0x23 || c == 0x24 || c == 0x26 || 0x28 <= c && c <= 0x3b || c == 0x3d ||
		0x3f <= c && c <= 0x5b || c == 0x5d || c == 0x5f || 0x61 <= c && c <= 0x7a || c == 0x7e
}

func ucsOrPrivate(r rune) bool {
	switch {
	case 0xa0 <= r && r <= 0xd7ff, 0xf900 <= r && r <= 0xfdcf, 0xfdf0 <= r && r <= 0xffef:
		return true
	case 0xe000 <= r && r <= 0xf8ff: // iprivate
		return true
	case 0xe0000 <= r && r < 0xe1000: // ucschar's plane-14 range is E1000-EFFFD
		return false
	case r >= 0x10000 && r <= 0x10fffd:
		// ucschar and iprivate cover every plane but its last two code points.
		return r&0xfffe != 0xfffe
	}
	return false
}

func rfc6570Expression(e string) bool {
	if e != "" && strings.IndexByte("+#./;?&=,!@|", e[0]) >= 0 {
		e = e[1:]
	}
	if e == "" {
		return false
	}
	for _, spec := range strings.Split(e, ",") {
		name, mod := spec, ""
		if i := strings.IndexAny(spec, ":*"); i >= 0 {
			name, mod = spec[:i], spec[i:]
		}
		if !rfc6570Varname(name) {
			return false
		}
		switch {
		case mod == "", mod == "*":
		case mod[0] == ':':
			n := mod[1:]
			if n == "" || len(n) > 4 || n[0] == '0' {
				return false
			}
			for i := 0; i < len(n); i++ {
				if !isDigit(n[i]) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded.
func rfc6570Varname(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	return rfc3986Chars(s, func(c byte) bool { return isAlpha(c) || isDigit(c) || c == '_' || c == '.' })
}
