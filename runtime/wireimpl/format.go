package wireimpl

import (
	"strings"
	"unicode/utf8"
)

// CheckFormat reports whether s satisfies the JSON Schema format, and
// whether the format is one this package checks:
//   - "uri": an absolute URI, RFC 3986 section 3 (the URI rule: scheme,
//     hier-part, optional query and fragment);
//   - "uri-reference": a URI or a relative reference, RFC 3986 section 4.1;
//   - "uri-template": a URI Template, RFC 6570 section 2 (syntax only);
//   - "byte": standard base64 with padding, RFC 4648 section 4.
//
// The checks follow the RFCs' ABNF character by character: percent-encoding,
// the characters each component allows, IP-literal, IPv4 and reg-name
// hosts, numeric ports. They allocate nothing.
//
// Other formats ("email", "date-time", ...) are treated as annotations, as
// JSON Schema 2020-12 allows; the schema revisions mcpgen generates use
// only the four above.
func CheckFormat(format, s string) (ok, known bool) {
	switch format {
	case "uri":
		return IsURI(s), true
	case "uri-reference":
		return IsURIReference(s), true
	case "uri-template":
		return IsURITemplate(s), true
	case "byte":
		return isBase64(s), true
	}
	return true, false
}

// Character classes of RFC 3986 (sections 2 and 3): bit sets of what each
// component allows, pct-encoded triplets aside.
const (
	cAlpha    uint16 = 1 << iota // ALPHA
	cDigit                       // DIGIT
	cHex                         // HEXDIG
	cScheme                      // a scheme after its first letter: ALPHA / DIGIT / "+" / "-" / "."
	cRegName                     // reg-name: unreserved / sub-delims
	cUserinfo                    // userinfo: unreserved / sub-delims / ":"
	cFuture                      // IPvFuture after the dot: unreserved / sub-delims / ":"
	cNoScheme                    // segment-nz-nc: unreserved / sub-delims / "@" (no ':')
	cPath                        // path segments (pchar) and the "/" between them
	cQuery                       // query and fragment: pchar / "/" / "?"
)

var uriClass = func() (t [256]uint16) {
	set := func(chars string, class uint16) {
		for i := 0; i < len(chars); i++ {
			t[chars[i]] |= class
		}
	}
	const (
		alpha      = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		digit      = "0123456789"
		unreserved = alpha + digit + "-._~"
		subDelims  = "!$&'()*+,;="
	)
	set(alpha, cAlpha)
	set(digit, cDigit)
	set(digit+"abcdefABCDEF", cHex)
	set(alpha+digit+"+-.", cScheme)
	set(unreserved+subDelims, cRegName|cUserinfo|cFuture|cNoScheme|cPath|cQuery)
	set(":", cUserinfo|cFuture|cPath|cQuery)
	set("@", cNoScheme|cPath|cQuery)
	set("/", cPath|cQuery)
	set("?", cQuery)
	return t
}()

func is(c byte, class uint16) bool { return uriClass[c]&class != 0 }

// component reports whether s consists of the characters of class and
// pct-encoded triplets ("%" HEXDIG HEXDIG).
func component(s string, class uint16) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if is(c, class) {
			continue
		}
		if c != '%' || i+2 >= len(s) || !is(s[i+1], cHex) || !is(s[i+2], cHex) {
			return false
		}
		i += 2
	}
	return true
}

func inSet(c byte, set string) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}

// indexAny is strings.IndexAny for a set of ASCII bytes.
func indexAny(s, set string) int {
	for i := 0; i < len(s); i++ {
		if inSet(s[i], set) {
			return i
		}
	}
	return -1
}

// schemeEnd returns the length of the scheme s starts with when it is
// followed by ':' (scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )),
// or -1.
func schemeEnd(s string) int {
	if s == "" || !is(s[0], cAlpha) {
		return -1
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return i
		case is(c, cScheme):
		default:
			return -1
		}
	}
	return -1
}

// IsURI reports whether s is a URI (RFC 3986 section 3):
//
//	URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]
func IsURI(s string) bool {
	n := schemeEnd(s)
	return n > 0 && hierPart(s[n+1:], false)
}

// IsURIReference reports whether s is a URI-reference (RFC 3986 section
// 4.1): a URI, or a relative reference
//
//	relative-ref = relative-part [ "?" query ] [ "#" fragment ]
func IsURIReference(s string) bool {
	if n := schemeEnd(s); n > 0 {
		return hierPart(s[n+1:], false)
	}
	return hierPart(s, true)
}

// hierPart checks what follows a scheme's ':' (hier-part, query,
// fragment), or a relative reference (relative-part, query, fragment)
// when relative is set: there the first segment of a path that does not
// start with '/' may not contain ':' (path-noscheme), since it would read
// as a scheme.
func hierPart(s string, relative bool) bool {
	if h := strings.IndexByte(s, '#'); h >= 0 {
		if !component(s[h+1:], cQuery) { // fragment = *( pchar / "/" / "?" )
			return false
		}
		s = s[:h]
	}
	if q := strings.IndexByte(s, '?'); q >= 0 {
		if !component(s[q+1:], cQuery) { // query = *( pchar / "/" / "?" )
			return false
		}
		s = s[:q]
	}
	if len(s) >= 2 && s[0] == '/' && s[1] == '/' {
		// "//" authority path-abempty
		auth, path := s[2:], ""
		if i := strings.IndexByte(auth, '/'); i >= 0 {
			auth, path = auth[:i], auth[i:]
		}
		return authority(auth) && component(path, cPath)
	}
	// path-absolute, path-rootless (path-noscheme), path-empty: segments of
	// pchar separated by "/"; "//" at the start was the authority.
	if relative && s != "" && s[0] != '/' {
		first := s
		if i := strings.IndexByte(s, '/'); i >= 0 {
			first = s[:i]
		}
		if !component(first, cNoScheme) {
			return false
		}
	}
	return component(s, cPath)
}

// authority checks [ userinfo "@" ] host [ ":" port ].
func authority(a string) bool {
	// Neither host nor port may hold '@': the last one ends the userinfo,
	// and an earlier one fails the userinfo check.
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		if !component(a[:i], cUserinfo) {
			return false
		}
		a = a[i+1:]
	}
	port := ""
	if a != "" && a[0] == '[' {
		end := strings.IndexByte(a, ']')
		if end < 0 || !ipLiteral(a[1:end]) {
			return false
		}
		rest := a[end+1:]
		if rest != "" {
			if rest[0] != ':' {
				return false
			}
			port = rest[1:]
		}
	} else {
		host := a
		if i := strings.IndexByte(a, ':'); i >= 0 {
			host, port = a[:i], a[i+1:]
		}
		// reg-name = *( unreserved / pct-encoded / sub-delims ); an
		// IPv4address is one too.
		if !component(host, cRegName) {
			return false
		}
	}
	for i := 0; i < len(port); i++ { // port = *DIGIT
		if !is(port[i], cDigit) {
			return false
		}
	}
	return true
}

// ipLiteral checks what is between "[" and "]": IPv6address / IPvFuture,
// where IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ).
// The "v" is case-insensitive, as ABNF strings are. Zone identifiers
// (RFC 6874) are not RFC 3986 and fail.
func ipLiteral(s string) bool {
	if s != "" && (s[0] == 'v' || s[0] == 'V') {
		i := 1
		for i < len(s) && is(s[i], cHex) {
			i++
		}
		if i == 1 || i >= len(s)-1 || s[i] != '.' {
			return false
		}
		for i++; i < len(s); i++ {
			if !is(s[i], cFuture) {
				return false // no pct-encoding here
			}
		}
		return true
	}
	return isIPv6(s)
}

// isIPv6 checks an IPv6address (RFC 3986 section 3.2.2): eight groups
// h16 = 1*4HEXDIG separated by ':', the last two of which may be an
// IPv4address, with at most one "::" standing for one or more groups.
func isIPv6(s string) bool {
	groups, elided := 0, false
	i := 0
	if len(s) >= 2 && s[0] == ':' && s[1] == ':' {
		elided, i = true, 2
		if i == len(s) {
			return true
		}
	}
	for {
		j := i
		for j < len(s) && j-i < 5 && is(s[j], cHex) {
			j++
		}
		if j < len(s) && s[j] == '.' { // ls32 as an IPv4address: the last two groups
			if !isIPv4(s[i:]) {
				return false
			}
			groups += 2
			break
		}
		if n := j - i; n == 0 || n > 4 {
			return false
		}
		groups++
		if i = j; i == len(s) {
			break
		}
		if s[i] != ':' || i+1 == len(s) {
			return false
		}
		i++
		if s[i] == ':' {
			if elided {
				return false
			}
			elided = true
			if i++; i == len(s) {
				break
			}
		}
	}
	if elided {
		return groups <= 7
	}
	return groups == 8
}

// isIPv4 checks an IPv4address: four dec-octets (0-255, no leading zero)
// separated by '.'.
func isIPv4(s string) bool {
	for octet := 0; octet < 4; octet++ {
		if octet > 0 {
			if s == "" || s[0] != '.' {
				return false
			}
			s = s[1:]
		}
		n, v := 0, 0
		for n < len(s) && n < 4 && is(s[n], cDigit) {
			v = v*10 + int(s[n]-'0')
			n++
		}
		if n == 0 || n > 3 || v > 255 || n > 1 && s[0] == '0' {
			return false
		}
		s = s[n:]
	}
	return s == ""
}

// IsURITemplate reports whether s is a URI Template (RFC 6570 section
// 2.1–2.4): literals and expressions
//
//	expression    = "{" [ operator ] variable-list "}"
//	operator      = "+" / "#" / "." / "/" / ";" / "?" / "&" / "=" / "," / "!" / "@" / "|"
//	variable-list = varspec *( "," varspec )
//	varspec       = varname [ ":" max-length / "*" ]
//
// It checks syntax only; the operators RFC 6570 reserves for future use
// ("=", ",", "!", "@", "|") are part of its grammar and accepted.
func IsURITemplate(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := i + 1
			for end < len(s) && s[end] != '}' {
				end++
			}
			if end == len(s) || !templateExpression(s[i+1:end]) {
				return false
			}
			i = end + 1
		case c == '%':
			if i+2 >= len(s) || !is(s[i+1], cHex) || !is(s[i+2], cHex) {
				return false
			}
			i += 3
		case c < utf8.RuneSelf:
			if !templateLiteral(c) {
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

// templateLiteral reports whether c is an ASCII literal of RFC 6570
// section 2.1: %x21 / %x23-24 / %x26 / %x28-3B / %x3D / %x3F-5B / %x5D /
// %x5F / %x61-7A / %x7E. Space, controls, DEL and the characters
// " ' % < > \ ^ ` { | } are not literals (% only starts pct-encoded).
func templateLiteral(c byte) bool {
	return c == 0x21 || c == 0x23 || c == 0x24 || c == 0x26 || 0x28 <= c && c <= 0x3b || c == 0x3d ||
		0x3f <= c && c <= 0x5b || c == 0x5d || c == 0x5f || 0x61 <= c && c <= 0x7a || c == 0x7e
}

// ucsOrPrivate reports whether r is a ucschar or an iprivate of RFC 3987
// section 2.2, the non-ASCII literals RFC 6570 allows.
func ucsOrPrivate(r rune) bool {
	switch {
	case 0xa0 <= r && r <= 0xd7ff, 0xf900 <= r && r <= 0xfdcf, 0xfdf0 <= r && r <= 0xffef:
		return true // ucschar in the BMP
	case 0xe000 <= r && r <= 0xf8ff:
		return true // iprivate in the BMP
	case 0xe0000 <= r && r <= 0xe0fff:
		return false // ucschar's plane-14 range starts at U+E1000
	case 0x10000 <= r && r <= 0x10ffff:
		// ucschar (planes 1-14) and iprivate (planes 15-16) cover every
		// supplementary plane but its last two code points.
		return r&0xfffe != 0xfffe
	}
	return false
}

// templateExpression checks what is between "{" and "}".
func templateExpression(e string) bool {
	if e != "" && inSet(e[0], "+#./;?&=,!@|") {
		e = e[1:]
	}
	if e == "" {
		return false
	}
	for {
		spec := e
		next := strings.IndexByte(e, ',')
		if next >= 0 {
			spec = e[:next]
		}
		if !varspec(spec) {
			return false
		}
		if next < 0 {
			return true
		}
		e = e[next+1:]
	}
}

// varspec = varname [ modifier-level4 ], where
//
//	varname    = varchar *( ["."] varchar )
//	varchar    = ALPHA / DIGIT / "_" / pct-encoded
//	prefix     = ":" max-length, max-length = %x31-39 0*3DIGIT (1 to 9999)
//	explode    = "*"
func varspec(s string) bool {
	name, mod := s, ""
	if i := indexAny(s, ":*"); i >= 0 {
		name, mod = s[:i], s[i:]
	}
	if name == "" || name[0] == '.' || name[len(name)-1] == '.' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case is(c, cAlpha|cDigit) || c == '_':
		case c == '.':
			if name[i-1] == '.' {
				return false
			}
		case c == '%':
			if i+2 >= len(name) || !is(name[i+1], cHex) || !is(name[i+2], cHex) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	switch {
	case mod == "" || mod == "*":
		return true
	case mod[0] != ':':
		return false
	}
	n := mod[1:]
	if n == "" || len(n) > 4 || n[0] == '0' {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !is(n[i], cDigit) {
			return false
		}
	}
	return true
}

// isBase64 checks standard base64 with padding (RFC 4648 section 4): the
// alphabet A-Z a-z 0-9 + /, a length that is a multiple of four, and '='
// only as the last one or two characters. No line breaks or other
// characters are skipped.
func isBase64(s string) bool {
	if len(s)%4 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/':
		case c == '=':
			// Padding: only in the last two positions, and only at the end.
			rest := len(s) - i
			if rest > 2 || rest == 2 && s[i+1] != '=' {
				return false
			}
			return true
		default:
			return false
		}
	}
	return true
}
