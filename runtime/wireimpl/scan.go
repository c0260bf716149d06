package wireimpl

import "github.com/mcpgen/mcpgen/runtime/wire"

// Fast structural scanning of verbatim values for validators: they look at
// the top-level members of a Raw object without decoding it. The scanner
// relies on bounds checks, not on the value being valid: on malformed
// input it reports an error (validators report it as a violation).

var errMalformed = &wire.DecodeError{Msg: "invalid JSON in a verbatim value"}

// structural marks the bytes skipValue acts on inside arrays and objects.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

func skipSpace(r []byte, i int) int {
	for i < len(r) {
		switch r[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the index just past the value starting at r[i].
func skipValue(r []byte, i int) (int, error) {
	if i >= len(r) {
		return 0, errMalformed
	}
	switch r[i] {
	case '"':
		end, _ := stringEnd(r, i+1)
		if end >= len(r) {
			return 0, errMalformed
		}
		return end + 1, nil
	case '{', '[':
		depth := 0
		for j := i; j < len(r); j++ {
			if !structural[r[j]] {
				continue
			}
			switch r[j] {
			case '"':
				end, _ := stringEnd(r, j+1)
				if end >= len(r) {
					return 0, errMalformed
				}
				j = end
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errMalformed
	}
	j := i
	for j < len(r) {
		switch r[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if j == i {
				return 0, errMalformed
			}
			return j, nil
		}
		j++
	}
	return j, nil
}

// eachMember calls fn with the name (still escaped when escaped is true)
// and the value of every member of the object r, in order.
func eachMember(r []byte, fn func(name []byte, escaped bool, value []byte)) error {
	i := skipSpace(r, 0)
	if i >= len(r) || r[i] != '{' {
		return &wire.DecodeError{Msg: "expected object"}
	}
	i = skipSpace(r, i+1)
	if i < len(r) && r[i] == '}' {
		return nil
	}
	for {
		if i >= len(r) || r[i] != '"' {
			return errMalformed
		}
		end, escaped := stringEnd(r, i+1)
		if end >= len(r) {
			return errMalformed
		}
		name := r[i+1 : end]
		i = skipSpace(r, end+1)
		if i >= len(r) || r[i] != ':' {
			return errMalformed
		}
		i = skipSpace(r, i+1)
		vend, err := skipValue(r, i)
		if err != nil {
			return err
		}
		fn(name, escaped, r[i:vend])
		i = skipSpace(r, vend)
		if i >= len(r) {
			return errMalformed
		}
		switch r[i] {
		case ',':
			i = skipSpace(r, i+1)
		case '}':
			return nil
		default:
			return errMalformed
		}
	}
}

// memberIs reports whether the raw member name equals want.
func memberIs(name []byte, escaped bool, want string) bool {
	if !escaped {
		return string(name) == want
	}
	k, err := rawKey(name, true)
	return err == nil && k == want
}
