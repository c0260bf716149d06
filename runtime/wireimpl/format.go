package wireimpl

// CheckFormat reports whether s satisfies the JSON Schema format, and
// whether the format is one this package checks. The checks are structural
// and allocation-free:
//   - "uri": an RFC 3986 scheme followed by ':' and no whitespace, control
//     characters or non-ASCII bytes;
//   - "byte": standard base64 with padding (RFC 4648 section 4).
//
// Other formats ("uri-template", "email", "date", ...) are treated as
// annotations, as JSON Schema 2020-12 allows.
func CheckFormat(format, s string) (ok, known bool) {
	switch format {
	case "uri":
		return isURI(s), true
	case "byte":
		return isBase64(s), true
	}
	return true, false
}

func isURI(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			break
		}
		alpha := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if i == 0 && !alpha || i > 0 && !alpha && !('0' <= c && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	if i == 0 || i == len(s) {
		return false
	}
	for ; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

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
