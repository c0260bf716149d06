package wire

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"reflect"
	"unsafe"

	"github.com/go-faster/jx"
)

// A verbatim value (Raw) is read in one pass over its bytes: the scanner
// checks its JSON syntax, its nesting depth and that no object in it has
// two members of the same name, so what a proxy re-emits obeys the rules
// the typed members obey. The jx decoder is then moved past the value.

// jxHead is the offset of jx.Decoder's read position (its unexported
// "head" field), found once by reflection; -1 when this jx version has no
// such int field, in which case Raw lets jx skip the value first.
var jxHead = func() uintptr {
	f, ok := reflect.TypeFor[jx.Decoder]().FieldByName("head")
	if !ok || f.Type.Kind() != reflect.Int {
		return ^uintptr(0)
	}
	return f.Offset
}()

// head points at the read position of d's jx decoder, or is nil.
func (d *Decoder) head() *int {
	if jxHead == ^uintptr(0) {
		return nil
	}
	return (*int)(unsafe.Add(unsafe.Pointer(&d.jx), jxHead))
}

// verbatim is the scanner's reusable state.
type verbatim struct {
	src    []byte // the input being scanned, for error paths
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

var errSyntax = &DecodeError{Msg: "invalid JSON"}

func syntaxAt(msg string) error { return &DecodeError{Msg: "invalid JSON: " + msg} }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func ws(r []byte, i int) int {
	for i < len(r) && isSpace(r[i]) {
		i++
	}
	return i
}

// scan reads the value starting at r[i] and returns the index just past
// it. budget is how many levels of nesting the value may still open.
func (v *verbatim) scan(r []byte, i, budget int) (int, error) {
	v.reset(r)
	v.base = i
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
				if j+6 > len(r) || !isHex(r[j+2]) || !isHex(r[j+3]) || !isHex(r[j+4]) || !isHex(r[j+5]) {
					return 0, false, syntaxAt(`bad \u escape in a string`)
				}
				j += 6
			default:
				return 0, false, syntaxAt("bad escape in a string")
			}
		default:
			return 0, false, syntaxAt("control character in a string")
		}
	}
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
