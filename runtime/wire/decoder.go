package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
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

	// buf is the input jx reads; verbatim scans values kept verbatim;
	// scratch parses numbers (Float64).
	buf      []byte
	verbatim verbatim
	scratch  jx.Decoder
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

// GetDecoder returns a pooled Decoder over data (see NewDecoder); return
// it with PutDecoder once nothing decoded from it needs the Decoder.
func GetDecoder(data []byte) *Decoder {
	d := decoderPool.Get().(*Decoder)
	d.reset(data)
	return d
}

// PutDecoder returns d to the pool. Decoded values stay valid: they share
// data's memory, not the Decoder's.
func PutDecoder(d *Decoder) {
	d.reset(nil)
	decoderPool.Put(d)
}

// Pass consumes the next value checking only its JSON syntax: for looking
// at a few members of a message before decoding it for real.
func (d *Decoder) Pass() error {
	if err := d.jx.Skip(); err != nil {
		return syntaxError(err)
	}
	return nil
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
	d.buf = data
	d.verbatim.reset(nil)
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

// Raw reads any value verbatim, checking its syntax, its depth and that no
// object in it repeats a member name (verbatim.go), in one pass.
func (d *Decoder) Raw() (Raw, error) {
	if d.Next() == KindInvalid {
		return nil, syntaxError(d.jx.Skip())
	}
	budget := MaxDepth - d.depth
	if head := d.head(); head != nil && *head < len(d.buf) {
		start := *head
		end, err := d.verbatim.scan(d.buf, start, budget)
		if err != nil {
			return nil, err
		}
		*head = end // move jx past the value
		return Raw(d.buf[start:end:end]), nil
	}
	r, err := d.jx.Raw()
	if err != nil {
		return nil, syntaxError(err)
	}
	if _, err := d.verbatim.scan(r, 0, budget); err != nil {
		return nil, err
	}
	return Raw(r[:len(r):len(r)]), nil
}

// RawChecked reads a verbatim object and checks the members it declares
// (see Checker.RawMembers) from what the scan saw, without a second pass.
// checked is r when they pass, nil otherwise; generated types keep it so
// that Validate trusts r while the member still holds that same slice.
func (d *Decoder) RawChecked(members []RawMember) (r, checked Raw, err error) {
	if r, err = d.RawKind(KindObject); err != nil {
		return nil, nil, err
	}
	var found uint64
	for _, t := range d.verbatim.top {
		if t.end < t.start || t.end > len(r) {
			return r, nil, nil
		}
		name := r[t.name.start:t.name.end]
		for i, m := range members {
			if i < 64 && memberIs(name, t.name.escaped, m.Name) {
				if !m.accepts(r[t.start:t.end]) {
					return r, nil, nil
				}
				found |= 1 << uint(i)
			}
		}
	}
	for i, m := range members {
		if m.Required && i < 64 && found&(1<<uint(i)) == 0 {
			return r, nil, nil
		}
	}
	return r, r, nil
}

// Same reports whether a and b are the same slice: same memory, same length.
func Same(a, b Raw) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
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

// stringEnd returns the index of the quote closing the string whose
// contents start at r[i], and whether the string has escapes. It looks at
// eight bytes at a time for a quote or a backslash (SWAR).
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
