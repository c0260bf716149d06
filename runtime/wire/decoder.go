package wire

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/go-faster/jx"
)

// MaxDepth is the deepest nesting of objects and arrays a message may have,
// counted from the outermost value (which is depth 1). Deeper input is
// rejected while decoding, including inside values kept verbatim.
const MaxDepth = 128

// DecodeJSONer is implemented by every generated type.
type DecodeJSONer interface {
	DecodeJSON(d *Decoder) error
}

// Decoder reads JSON for generated codecs. It owns the bytes it reads, so
// decoded strings and verbatim values share that buffer instead of being
// copied one by one.
type Decoder struct {
	jx    jx.Decoder
	depth int

	// scratch parses numbers (Float64); frames and keys are checkRaw's
	// stacks of the objects and arrays it is inside and of their member
	// names, kept to be reused.
	scratch jx.Decoder
	frames  []rawFrame
	keys    []string
	// extra indexes the undeclared members of large objects (see
	// AddMember), so that duplicate detection stays linear.
	extra map[*Members]map[string]struct{}
}

var decoderPool = sync.Pool{New: func() any { return new(Decoder) }}

// Decode decodes data into v. It copies data first, so the caller may reuse
// it afterwards. Invalid UTF-8, trailing data and nesting deeper than
// MaxDepth are errors.
func Decode(data []byte, v DecodeJSONer) error {
	return DecodeOwned(bytes.Clone(data), v)
}

// DecodeOwned is Decode without the copy: data must not be modified after
// the call, because strings and verbatim values in v may share its memory.
func DecodeOwned(data []byte, v DecodeJSONer) error {
	if !utf8.Valid(data) {
		return &DecodeError{Msg: "invalid UTF-8"}
	}
	d := decoderPool.Get().(*Decoder)
	d.reset(data)
	err := v.DecodeJSON(d)
	if err == nil {
		err = d.Finish()
	}
	d.reset(nil)
	decoderPool.Put(d)
	return err
}

// NewDecoder returns a Decoder over data, which it takes ownership of:
// data must not be modified while decoded values are in use. The caller
// checks UTF-8 validity (see Decode).
func NewDecoder(data []byte) *Decoder {
	d := new(Decoder)
	d.reset(data)
	return d
}

func (d *Decoder) reset(data []byte) {
	d.jx.ResetBytes(data)
	d.depth = 0
	d.scratch.ResetBytes(nil)
	d.extra = nil
	// Drop references into the previous input (the Decoder is pooled).
	clear(d.keys[:cap(d.keys)])
	d.keys = d.keys[:0]
	clear(d.frames[:cap(d.frames)])
	d.frames = d.frames[:0]
}

// Finish reports an error unless only whitespace is left.
func (d *Decoder) Finish() error {
	// Skip at the end of the input reports io.EOF; anything else (another
	// value, or bytes that start no JSON value) is trailing data.
	if err := d.jx.Skip(); err != io.EOF {
		return &DecodeError{Msg: "unexpected data after the JSON value"}
	}
	return nil
}

// Next reports the kind of the next value without consuming it.
func (d *Decoder) Next() Kind {
	switch d.jx.Next() {
	case jx.Object:
		return KindObject
	case jx.Array:
		return KindArray
	case jx.String:
		return KindString
	case jx.Number:
		return KindNumber
	case jx.Bool:
		return KindBool
	case jx.Null:
		return KindNull
	}
	return KindInvalid
}

func (d *Decoder) expect(k Kind) error {
	if got := d.Next(); got != k {
		return TypeError(k, got)
	}
	return nil
}

// Str reads a string. The result may share memory with the input.
func (d *Decoder) Str() (string, error) {
	if err := d.expect(KindString); err != nil {
		return "", err
	}
	b, err := d.jx.StrBytes()
	if err != nil {
		return "", syntaxError(err)
	}
	if len(b) == 0 {
		return "", nil
	}
	// b either points into the owned input or into a fresh buffer holding
	// the unescaped string; neither is written again.
	return unsafe.String(&b[0], len(b)), nil
}

// number reads the next number token, checking its JSON syntax, so that a
// malformed number (01, 1., -) is reported as invalid JSON rather than as
// a number of the wrong kind.
func (d *Decoder) number() ([]byte, error) {
	if err := d.expect(KindNumber); err != nil {
		return nil, err
	}
	r, err := d.jx.Raw()
	if err != nil {
		return nil, syntaxError(err)
	}
	return r, nil
}

// Int64 reads an integer. Fractions, exponents and values outside int64
// are errors.
func (d *Decoder) Int64() (int64, error) {
	r, err := d.number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(unsafe.String(&r[0], len(r)), 10, 64)
	if err != nil {
		return 0, &DecodeError{Msg: "expected an integer in the int64 range"}
	}
	return v, nil
}

// Float64 reads a number.
func (d *Decoder) Float64() (float64, error) {
	r, err := d.number()
	if err != nil {
		return 0, err
	}
	d.scratch.ResetBytes(r)
	v, err := d.scratch.Float64()
	d.scratch.ResetBytes(nil)
	if err != nil {
		return 0, &DecodeError{Msg: "expected a finite number"}
	}
	return v, nil
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	if err := d.expect(KindBool); err != nil {
		return false, err
	}
	v, err := d.jx.Bool()
	if err != nil {
		return false, syntaxError(err)
	}
	return v, nil
}

// Null reads null.
func (d *Decoder) Null() error {
	if err := d.expect(KindNull); err != nil {
		return err
	}
	if err := d.jx.Null(); err != nil {
		return syntaxError(err)
	}
	return nil
}

// Raw reads any value verbatim.
func (d *Decoder) Raw() (Raw, error) {
	if d.Next() == KindInvalid {
		return nil, syntaxError(d.jx.Skip())
	}
	r, err := d.jx.Raw()
	if err != nil {
		return nil, syntaxError(err)
	}
	if err := d.checkRaw(r, MaxDepth-d.depth); err != nil {
		return nil, err
	}
	return Raw(r[:len(r):len(r)]), nil
}

// RawKind reads a value of kind k verbatim.
func (d *Decoder) RawKind(k Kind) (Raw, error) {
	if err := d.expect(k); err != nil {
		return nil, err
	}
	return d.Raw()
}

// Skip consumes the next value.
func (d *Decoder) Skip() error {
	_, err := d.Raw()
	return err
}

var errStop = errors.New("stop")

// Obj reads an object, calling f with each key; f must consume the value.
// The key is valid only during the call. Duplicate keys are the caller's
// to detect (generated code tracks the members it declares; see Members).
func (d *Decoder) Obj(f func(key []byte) error) error {
	if err := d.expect(KindObject); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	var ferr error
	err := d.jx.ObjBytes(func(_ *jx.Decoder, key []byte) error {
		if !utf8.Valid(key) {
			ferr = &DecodeError{Msg: "invalid UTF-8 in member name"}
			return errStop
		}
		if ferr = f(key); ferr != nil {
			return errStop
		}
		return nil
	})
	d.depth--
	if ferr != nil {
		return ferr
	}
	if err != nil {
		return syntaxError(err)
	}
	return nil
}

// Arr reads an array, calling f with the index of each element; f must
// consume the element.
func (d *Decoder) Arr(f func(i int) error) error {
	if err := d.expect(KindArray); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	var ferr error
	i := 0
	err := d.jx.Arr(func(_ *jx.Decoder) error {
		if ferr = f(i); ferr != nil {
			return errStop
		}
		i++
		return nil
	})
	d.depth--
	if ferr != nil {
		return ferr
	}
	if err != nil {
		return syntaxError(err)
	}
	return nil
}

func (d *Decoder) enter() error {
	d.depth++
	if d.depth > MaxDepth {
		d.depth--
		return errTooDeep()
	}
	return nil
}

// Peek runs f and then rewinds the decoder to where it was, so the value f
// looked at can be decoded again.
func (d *Decoder) Peek(f func() error) error {
	depth := d.depth
	var ferr error
	err := d.jx.Capture(func(*jx.Decoder) error {
		ferr = f()
		return nil
	})
	d.depth = depth
	if ferr != nil {
		return ferr
	}
	if err != nil {
		return syntaxError(err)
	}
	return nil
}

// PeekMember looks into the object ahead for the string member key and
// returns its value, without consuming anything. found is false when the
// member is absent; a member of another kind is an error.
func (d *Decoder) PeekMember(key string) (value string, found bool, err error) {
	err = d.Peek(func() error {
		return d.Obj(func(k []byte) error {
			if found || string(k) != key {
				return d.skipMember(k)
			}
			found = true
			v, err := d.Str()
			if err != nil {
				return AtKey(err, key)
			}
			value = v
			return nil
		})
	})
	return value, found, err
}

// skipMember passes over the value of member k while looking ahead
// (PeekMember, KeySet). It checks only the JSON syntax: the value is
// checked in full when it is decoded for real.
func (d *Decoder) skipMember(k []byte) error {
	if err := d.jx.Skip(); err != nil {
		return AtKey(syntaxError(err), string(k))
	}
	return nil
}

// String interns nothing; it converts a key that f must keep past the call
// (member names of undeclared members) into a string sharing the input.
func (d *Decoder) String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// smallMembers is how many undeclared members AddMember compares one by
// one; beyond it, it indexes them.
const smallMembers = 16

// AddMember decodes the value of an undeclared member into m, rejecting a
// key that m already holds.
func (d *Decoder) AddMember(m *Members, key []byte) error {
	if len(*m) < smallMembers {
		for _, mb := range *m {
			if mb.Key == string(key) {
				return DuplicateKey(key)
			}
		}
	} else {
		// An object with many undeclared members: compare through an index
		// kept for the rest of this decoding, so n members cost O(n), not
		// O(n²) (a message of 100k members would otherwise take seconds).
		set := d.extra[m]
		if set == nil {
			if d.extra == nil {
				d.extra = map[*Members]map[string]struct{}{}
			}
			set = make(map[string]struct{}, 2*len(*m))
			for _, mb := range *m {
				set[mb.Key] = struct{}{}
			}
			d.extra[m] = set
		}
		if _, dup := set[string(key)]; dup {
			return DuplicateKey(key)
		}
		set[d.String(key)] = struct{}{}
	}
	k := d.String(key)
	v, err := d.Raw()
	if err != nil {
		return AtKey(err, k)
	}
	*m = append(*m, Member{Key: k, Value: v})
	return nil
}

// checkRaw rejects a verbatim value nested deeper than budget levels or
// holding an object with two members of the same name: values kept
// verbatim obey the same rules as the values generated types decode, so
// that what a proxy re-emits is what was validated.
//
// r is syntactically valid JSON (jx checked it while reading it), so one
// byte-level pass suffices, at about the cost of that jx pass; values
// without objects and shallower than the budget skip it.
func (d *Decoder) checkRaw(r []byte, budget int) error {
	hasObject := bytes.IndexByte(r, '{') >= 0
	// Fast path: no object (so no member names) and fewer brackets than the
	// budget (so not too deep).
	if !hasObject && bytes.Count(r, []byte{'['}) <= budget {
		return nil
	}
	frames := d.frames[:0]
	defer func() { d.frames = frames[:0] }()
	keys := d.keys[:0]
	defer func() { d.keys = keys[:0] }()
	expectKey := false
	for i := 0; i < len(r); i++ {
		if !rawSpecial[r[i]] {
			continue // whitespace, numbers, literals, ':'
		}
		switch c := r[i]; c {
		case '"':
			end, escaped := stringEnd(r, i+1)
			if !expectKey {
				i = end
				continue
			}
			expectKey = false
			f := &frames[len(frames)-1]
			k, err := rawKey(r[i+1:end], escaped)
			if err != nil {
				return err
			}
			f.key = k
			if f.set != nil {
				if _, dup := f.set[k]; dup {
					return rawDuplicate(frames, k)
				}
				f.set[k] = struct{}{}
			} else {
				for _, prev := range keys[f.mark:] {
					if prev == k {
						return rawDuplicate(frames, k)
					}
				}
				keys = append(keys, k)
				if len(keys)-f.mark > smallMembers {
					f.set = make(map[string]struct{}, 2*smallMembers)
					for _, prev := range keys[f.mark:] {
						f.set[prev] = struct{}{}
					}
				}
			}
			i = end
		case '{', '[':
			if len(frames) >= budget {
				return errTooDeep()
			}
			frames = append(frames, rawFrame{object: c == '{', mark: len(keys)})
			expectKey = c == '{'
		case '}', ']':
			keys = keys[:frames[len(frames)-1].mark]
			frames = frames[:len(frames)-1]
			expectKey = false
		case ',':
			f := &frames[len(frames)-1]
			if f.object {
				expectKey = true
			} else {
				f.index++
			}
		}
	}
	return nil
}

// rawSpecial marks the bytes checkRaw acts on.
var rawSpecial = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true, ',': true}

// stringEnd returns the index of the quote closing the string whose
// contents start at r[i], and whether the string has escapes.
func stringEnd(r []byte, i int) (end int, escaped bool) {
	// Short strings (most member names) are found fastest byte by byte;
	// long ones (descriptions) with bytes.IndexByte.
	for j := i; j < len(r) && j < i+16; j++ {
		switch r[j] {
		case '"':
			return j, false
		case '\\':
			return stringEndEscaped(r, j)
		}
	}
	j := i + 16
	if j >= len(r) {
		return len(r), false // not reached: r is valid JSON
	}
	q := bytes.IndexByte(r[j:], '"')
	if q < 0 {
		return len(r), false
	}
	if b := bytes.IndexByte(r[j:j+q], '\\'); b >= 0 {
		return stringEndEscaped(r, j+b)
	}
	return j + q, false
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

// rawFrame is an object or array checkRaw is inside.
type rawFrame struct {
	object bool
	mark   int    // start of this object's names in keys
	key    string // the member being read (objects)
	index  int    // the element being read (arrays)
	set    map[string]struct{}
}

// rawKey returns the member name whose quoted contents are b, unescaped.
// The result shares b's memory when there is nothing to unescape.
func rawKey(b []byte, escaped bool) (string, error) {
	if !escaped {
		if len(b) == 0 {
			return "", nil
		}
		return unsafe.String(&b[0], len(b)), nil
	}
	// Escaped names are rare: unescape a quoted copy with jx.
	q := make([]byte, 0, len(b)+2)
	q = append(append(append(q, '"'), b...), '"')
	s := jx.DecodeBytes(q)
	k, err := s.Str()
	if err != nil {
		return "", syntaxError(err)
	}
	return k, nil
}

// rawDuplicate reports member name k repeated in the innermost object of
// frames, at that object's path inside the verbatim value.
func rawDuplicate(frames []rawFrame, k string) error {
	err := DuplicateKey([]byte(k))
	for i := len(frames) - 2; i >= 0; i-- {
		if frames[i].object {
			err = at(err, frames[i].key, -1)
		} else {
			err = at(err, "", frames[i].index)
		}
	}
	return err
}
