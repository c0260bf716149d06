package wireimpl

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// A verbatim value (Raw) is read in one pass over its bytes: the scanner
// checks its JSON syntax, its nesting depth and that no object in it has
// two members of the same name, so what a proxy re-emits obeys the rules
// the typed members obey.

// verbatim is the scanner's reusable state.
type verbatim struct {
	src    []byte // the input being scanned, for error paths
	dups   bool   // reject repeated member names
	base   int    // index of the scanned value in src
	top    []topMember
	frames []vframe
	names  []span // member names of the objects being read
	sets   []map[string]struct{}
}

// vframe is an object or array the scanner is inside. It holds no
// pointers, so pushing one costs no write barrier.
type vframe struct {
	object bool
	mark   int  // start of this object's names in names
	name   span // the member being read (objects)
	index  int  // the element being read (arrays)
	set    int  // index in sets once the object has many members, else -1
}

// topMember is a member of the scanned value when it is an object: its
// name and its value, r[start:end] (indices relative to the value).
type topMember struct {
	name       span
	start, end int
}

// span is a member name: r[start:end], escaped or not.
type span struct {
	start, end int
	escaped    bool
}

func (v *verbatim) reset(src []byte) {
	v.src = src
	v.top = v.top[:0]
	v.frames, v.names = v.frames[:0], v.names[:0]
	clear(v.sets)
	v.sets = v.sets[:0]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func ws(r []byte, i int) int {
	for i < len(r) && isSpace(r[i]) {
		i++
	}
	return i
}

// scan reads the value starting at r[i] and returns the index just past
// it. budget is how many levels of nesting the value may still open; dups
// asks for repeated member names to be rejected.
func (v *verbatim) scan(r []byte, i, budget int, dups bool) (int, error) {
	v.reset(r)
	v.base, v.dups = i, dups
	for {
		// A value starts at r[i].
		if i >= len(r) {
			return 0, syntaxAt("unexpected end of input")
		}
		var err error
		switch c := r[i]; c {
		case '{', '[':
			if len(v.frames) >= budget {
				return 0, errTooDeep() // reported at the verbatim member, as a whole
			}
			v.frames = append(v.frames, vframe{object: c == '{', mark: len(v.names), set: -1})
			i = ws(r, i+1)
			if i < len(r) && r[i] == c+2 { // '}' or ']'
				v.pop()
				i++
				break
			}
			if c == '{' {
				if i, err = v.member(r, i); err != nil {
					return 0, err
				}
			}
			continue
		case '"':
			if i, _, err = scanString(r, i); err != nil {
				return 0, err
			}
		case 't':
			i, err = literal(r, i, "true")
		case 'f':
			i, err = literal(r, i, "false")
		case 'n':
			i, err = literal(r, i, "null")
		default:
			i, err = number(r, i)
		}
		if err != nil {
			return 0, err
		}
		// After a value: close what ends here, move to the next element.
		for {
			if len(v.frames) == 0 {
				return i, nil
			}
			if len(v.frames) == 1 && v.frames[0].object && len(v.top) > 0 && v.top[len(v.top)-1].end < 0 {
				v.top[len(v.top)-1].end = i - v.base
			}
			i = ws(r, i)
			if i >= len(r) {
				return 0, syntaxAt("unexpected end of input")
			}
			f := &v.frames[len(v.frames)-1]
			c := r[i]
			if c == ',' {
				i = ws(r, i+1)
				if f.object {
					if i, err = v.member(r, i); err != nil {
						return 0, err
					}
				} else {
					f.index++
				}
				break
			}
			if f.object && c == '}' || !f.object && c == ']' {
				v.pop()
				i++
				continue
			}
			if f.object {
				return 0, syntaxAt("expected ',' or '}' in an object")
			}
			return 0, syntaxAt("expected ',' or ']' in an array")
		}
	}
}

func (v *verbatim) pop() {
	f := v.frames[len(v.frames)-1]
	v.names = v.names[:f.mark]
	if f.set >= 0 {
		clear(v.sets[f.set])
		v.sets = v.sets[:f.set]
	}
	v.frames = v.frames[:len(v.frames)-1]
}

// smallObject is how many member names an object compares one by one;
// beyond it, they are indexed.
const smallObject = 16

// member reads a member name and its colon, rejecting a name the object
// already has, and returns the index of the member's value.
func (v *verbatim) member(r []byte, i int) (int, error) {
	if i >= len(r) || r[i] != '"' {
		return 0, syntaxAt("expected a member name")
	}
	end, escaped, err := scanString(r, i)
	if err != nil {
		return 0, err
	}
	name := span{start: i + 1, end: end - 1, escaped: escaped}
	f := &v.frames[len(v.frames)-1]
	f.name = name
	switch {
	case !v.dups:
	case f.set >= 0:
		k, err := name.text(r)
		if err != nil {
			return 0, err
		}
		if _, dup := v.sets[f.set][k]; dup {
			return 0, v.duplicate(k)
		}
		v.sets[f.set][k] = struct{}{}
	default:
		for _, prev := range v.names[f.mark:] {
			if same(r, prev, name) {
				k, _ := name.text(r)
				return 0, v.duplicate(k)
			}
		}
		v.names = append(v.names, name)
		if len(v.names)-f.mark > smallObject {
			set := make(map[string]struct{}, 2*smallObject)
			for _, prev := range v.names[f.mark:] {
				k, err := prev.text(r)
				if err != nil {
					return 0, err
				}
				set[k] = struct{}{}
			}
			f.set = len(v.sets)
			v.sets = append(v.sets, set)
		}
	}
	i = ws(r, end)
	if i >= len(r) || r[i] != ':' {
		return 0, syntaxAt("expected ':' after a member name")
	}
	i = ws(r, i+1)
	if len(v.frames) == 1 {
		n := name
		n.start, n.end = n.start-v.base, n.end-v.base
		v.top = append(v.top, topMember{name: n, start: i - v.base, end: -1})
	}
	return i, nil
}

// text returns the name unescaped; it shares r's memory when there is
// nothing to unescape.
func (s span) text(r []byte) (string, error) { return rawKey(r[s.start:s.end], s.escaped) }

// same reports whether two member names are equal once unescaped.
func same(r []byte, a, b span) bool {
	if !a.escaped && !b.escaped {
		return bytes.Equal(r[a.start:a.end], r[b.start:b.end])
	}
	x, err1 := a.text(r)
	y, err2 := b.text(r)
	return err1 == nil && err2 == nil && x == y
}

// duplicate reports member name k repeated in the innermost object, at
// that object's path inside the verbatim value.
func (v *verbatim) duplicate(k string) error {
	return v.pathFrom(DuplicateKey([]byte(k)), len(v.frames)-2)
}

func (v *verbatim) pathFrom(err error, top int) error {
	for i := top; i >= 0; i-- {
		f := v.frames[i]
		if !f.object {
			err = at(err, "", f.index)
			continue
		}
		err = at(err, v.nameText(f.name), -1)
	}
	return err
}

// nameText unescapes a member name of the scan in progress.
func (v *verbatim) nameText(s span) string {
	if v.src == nil {
		return ""
	}
	k, _ := s.text(v.src)
	return k
}

// scanString checks the string starting with the quote at r[i] (control
// characters and escapes) and returns the index just past its closing
// quote and whether it has escapes.
func scanString(r []byte, i int) (int, bool, error) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	escaped := false
	j := i + 1
	for {
		for ; j+8 <= len(r); j += 8 {
			x := binary.LittleEndian.Uint64(r[j:])
			q, b := x^(ones*'"'), x^(ones*'\\')
			// Flags quotes, backslashes and bytes below 0x20; the lowest
			// flagged byte is exact.
			m := ((q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x) & highs
			if m != 0 {
				j += bits.TrailingZeros64(m) / 8
				break
			}
		}
		for ; j < len(r) && r[j] != '"' && r[j] != '\\' && r[j] >= 0x20; j++ {
		}
		if j >= len(r) {
			return 0, false, syntaxAt("unterminated string")
		}
		switch c := r[j]; {
		case c == '"':
			return j + 1, escaped, nil
		case c == '\\':
			escaped = true
			if j+1 >= len(r) {
				return 0, false, syntaxAt("unterminated string")
			}
			switch r[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if !hexAt(r, j+2) {
					return 0, false, syntaxAt(`bad \u escape in a string`)
				}
				// A surrogate must be the high half of a pair (RFC 8259 §8.2):
				// a lone one is valid JSON grammar, but no Go string (nor
				// UTF-8) can hold it, so it is refused rather than rewritten.
				switch u := hex4(r[j+2:]); {
				case u >= 0xD800 && u < 0xDC00:
					if !(j+12 <= len(r) && r[j+6] == '\\' && r[j+7] == 'u' && hexAt(r, j+8)) {
						return 0, false, errLoneSurrogate(r[j : j+6])
					}
					if lo := hex4(r[j+8:]); lo < 0xDC00 || lo >= 0xE000 {
						return 0, false, errLoneSurrogate(r[j : j+6])
					}
					j += 12
				case u >= 0xDC00 && u < 0xE000:
					return 0, false, errLoneSurrogate(r[j : j+6])
				default:
					j += 6
				}
			default:
				return 0, false, syntaxAt("bad escape in a string")
			}
		default:
			return 0, false, syntaxAt("control character in a string")
		}
	}
}

func hexAt(r []byte, i int) bool {
	return i+4 <= len(r) && isHex(r[i]) && isHex(r[i+1]) && isHex(r[i+2]) && isHex(r[i+3])
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func literal(r []byte, i int, lit string) (int, error) {
	if len(r)-i < len(lit) || string(r[i:i+len(lit)]) != lit {
		return 0, syntaxAt("unexpected byte")
	}
	return i + len(lit), nil
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(r []byte, i int) (int, error) {
	j := i
	if j < len(r) && r[j] == '-' {
		j++
	}
	switch {
	case j < len(r) && r[j] == '0':
		j++
	case j < len(r) && '1' <= r[j] && r[j] <= '9':
		for j++; j < len(r) && isDigit(r[j]); j++ {
		}
	default:
		return 0, syntaxAt("unexpected byte")
	}
	if j < len(r) && r[j] == '.' {
		j++
		if j >= len(r) || !isDigit(r[j]) {
			return 0, syntaxAt("malformed number")
		}
		for ; j < len(r) && isDigit(r[j]); j++ {
		}
	}
	if j < len(r) && (r[j] == 'e' || r[j] == 'E') {
		j++
		if j < len(r) && (r[j] == '+' || r[j] == '-') {
			j++
		}
		if j >= len(r) || !isDigit(r[j]) {
			return 0, syntaxAt("malformed number")
		}
		for ; j < len(r) && isDigit(r[j]); j++ {
		}
	}
	return j, nil
}

// stringEnd returns the index of the quote closing the string whose
// contents start at r[i], and whether the string has escapes. It looks at
// eight bytes at a time for a quote or a backslash (SWAR). It trusts r to
// be valid JSON (validators scan values the decoder has checked).
func stringEnd(r []byte, i int) (end int, escaped bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(r); i += 8 {
		x := binary.LittleEndian.Uint64(r[i:])
		q, b := x^(ones*'"'), x^(ones*'\\')
		// A byte of q or b is zero where x holds a quote or a backslash; the
		// lowest flagged byte is exact.
		if m := ((q-ones)&^q | (b-ones)&^b) & highs; m != 0 {
			j := i + bits.TrailingZeros64(m)/8
			if r[j] == '"' {
				return j, false
			}
			return stringEndEscaped(r, j)
		}
	}
	for ; i < len(r); i++ {
		switch r[i] {
		case '"':
			return i, false
		case '\\':
			return stringEndEscaped(r, i)
		}
	}
	return len(r), false // not reached for valid JSON
}

// stringEndEscaped is stringEnd from the backslash at r[j].
func stringEndEscaped(r []byte, j int) (int, bool) {
	for ; j < len(r); j++ {
		switch r[j] {
		case '\\':
			j++ // the escaped character
		case '"':
			return j, true
		}
	}
	return len(r), true
}

// rawKey returns the member name whose quoted contents are b, unescaped.
// The result shares b's memory when there is nothing to unescape.
func rawKey(b []byte, escaped bool) (string, error) {
	if escaped {
		var err error
		if b, err = unescape(b); err != nil {
			return "", err
		}
	}
	if len(b) == 0 {
		return "", nil
	}
	return unsafe.String(&b[0], len(b)), nil
}
