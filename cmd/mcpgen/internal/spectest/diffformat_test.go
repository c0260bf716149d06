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
	"regexp"
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
// 2). It is the section's ABNF transcribed into a regular expression, a
// different construction from the runtime's scanner, so that the two can
// disagree:
//
//	URI-Template = *( literals / expression )
//	literals     = %x21 / %x23-24 / %x26 / %x28-3B / %x3D / %x3F-5B / %x5D /
//	               %x5F / %x61-7A / %x7E / ucschar / iprivate / pct-encoded
//	expression   = "{" [ operator ] variable-list "}"
//	operator     = "+" / "#" / "." / "/" / ";" / "?" / "&" / "=" / "," / "!" / "@" / "|"
//	variable-list = varspec *( "," varspec )
//	varspec      = varname [ ":" %x31-39 0*3DIGIT / "*" ]
//	varname      = varchar *( ["."] varchar )
//	varchar      = ALPHA / DIGIT / "_" / pct-encoded
//
// ucschar and iprivate are those of RFC 3987 section 2.2.
func rfc6570Template(s string) bool { return uriTemplate.MatchString(s) && utf8.ValidString(s) }

var uriTemplate = func() *regexp.Regexp {
	const (
		pct     = `%[0-9A-Fa-f]{2}`
		ucschar = `\x{A0}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}` +
			`\x{10000}-\x{1FFFD}\x{20000}-\x{2FFFD}\x{30000}-\x{3FFFD}\x{40000}-\x{4FFFD}` +
			`\x{50000}-\x{5FFFD}\x{60000}-\x{6FFFD}\x{70000}-\x{7FFFD}\x{80000}-\x{8FFFD}` +
			`\x{90000}-\x{9FFFD}\x{A0000}-\x{AFFFD}\x{B0000}-\x{BFFFD}\x{C0000}-\x{CFFFD}` +
			`\x{D0000}-\x{DFFFD}\x{E1000}-\x{EFFFD}`
		iprivate = `\x{E000}-\x{F8FF}\x{F0000}-\x{FFFFD}\x{100000}-\x{10FFFD}`
		literals = `(?:[\x21\x23-\x24\x26\x28-\x3B\x3D\x3F-\x5B\x5D\x5F\x61-\x7A\x7E` + ucschar + iprivate + `]|` + pct + `)`
		varchar  = `(?:[A-Za-z0-9_]|` + pct + `)`
		varname  = varchar + `(?:\.?` + varchar + `)*`
		varspec  = varname + `(?::[1-9][0-9]{0,3}|\*)?`
		expr     = `\{[+#./;?&=,!@|]?` + varspec + `(?:,` + varspec + `)*\}`
	)
	return regexp.MustCompile(`^(?:` + literals + `|` + expr + `)*$`)
}()
