package wireimpl

import (
	"bytes"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// MaxDepth is the deepest nesting of objects and arrays a message may have,
// counted from the outermost value (which is depth 1). Deeper input is
// rejected while decoding, including inside values kept verbatim.
const MaxDepth = 128

// DecodeJSONer is implemented by every generated type.
type DecodeJSONer interface {
	DecodeJSON(d *Decoder) error
}

// Decoder reads JSON for generated codecs. It is a hand-written reader over
// one byte slice that it owns: decoded strings and verbatim values share
// that slice instead of being copied one by one, and a verbatim value is
// checked (syntax, depth, duplicate member names) in the same pass that
// finds its end.
//
// It is strict where JSON is: one value, no trailing data, no comments,
// numbers and escapes as RFC 8259 writes them. It is stricter in one
// place: an escaped lone surrogate ("\ud800") is rejected, because a Go
// string cannot hold it and rewriting it would change the value.
type Decoder struct {
	buf   []byte
	pos   int
	depth int

	verbatim verbatim
	// extra indexes the undeclared members of large objects (see
	// AddMember), so that duplicate detection stays linear.
	extra map[*wire.Members]map[string]struct{}
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
		return syntax("invalid UTF-8")
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

// NewDecoder returns a Decoder over data, which it takes ownership of:
// data must not be modified while decoded values are in use. The caller
// checks UTF-8 validity (see Decode).
func NewDecoder(data []byte) *Decoder {
	d := new(Decoder)
	d.reset(data)
	return d
}

func (d *Decoder) reset(data []byte) {
	d.buf, d.pos, d.depth = data, 0, 0
	d.extra = nil
	d.verbatim.reset(nil) // drop references into the previous input (pooled)
}

func (d *Decoder) ws() {
	for d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// Finish reports an error unless only whitespace is left.
func (d *Decoder) Finish() error {
	d.ws()
	if d.pos != len(d.buf) {
		return syntax("unexpected data after the JSON value")
	}
	return nil
}

// Next reports the kind of the next value without consuming it.
func (d *Decoder) Next() wire.Kind {
	d.ws()
	if d.pos >= len(d.buf) {
		return wire.KindInvalid
	}
	return kindOf[d.buf[d.pos]]
}

// kindOf is the kind of the value a byte starts.
var kindOf = func() (t [256]wire.Kind) {
	t['{'], t['['], t['"'] = wire.KindObject, wire.KindArray, wire.KindString
	t['t'], t['f'], t['n'] = wire.KindBool, wire.KindBool, wire.KindNull
	t['-'] = wire.KindNumber
	for c := '0'; c <= '9'; c++ {
		t[c] = wire.KindNumber
	}
	return t
}()

func (d *Decoder) expect(k wire.Kind) error {
	if got := d.Next(); got != k {
		return TypeError(k, got)
	}
	return nil
}

// Str reads a string. The result shares memory with the input unless the
// string has escapes.
func (d *Decoder) Str() (string, error) {
	if err := d.expect(wire.KindString); err != nil {
		return "", err
	}
	b, err := d.strBytes()
	if err != nil || len(b) == 0 {
		return "", err
	}
	// b points into the owned input or into a fresh buffer holding the
	// unescaped string; neither is written again.
	return unsafe.String(&b[0], len(b)), nil
}

// strBytes reads the string starting with the quote at d.pos, unescaped.
func (d *Decoder) strBytes() ([]byte, error) {
	end, escaped, err := scanString(d.buf, d.pos)
	if err != nil {
		return nil, err
	}
	raw := d.buf[d.pos+1 : end-1]
	d.pos = end
	if !escaped {
		return raw, nil
	}
	return unescape(raw)
}

// unescape decodes the contents of a string whose escapes scanString has
// checked for form. A \u escape of a lone surrogate is an error.
func unescape(s []byte) ([]byte, error) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := bytes.IndexByte(s[i:], '\\')
			if j < 0 {
				return append(out, s[i:]...), nil
			}
			out = append(out, s[i:i+j]...)
			i += j
			continue
		}
		if i+1 >= len(s) {
			return nil, syntaxAt("unterminated escape in a string")
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if !hexAt(s, i+2) {
				return nil, syntaxAt(`bad \u escape in a string`)
			}
			r := hex4(s[i+2:])
			switch {
			case r >= 0xD800 && r < 0xDC00:
				if i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' && hexAt(s, i+8) {
					if lo := hex4(s[i+8:]); lo >= 0xDC00 && lo < 0xE000 {
						out = utf8.AppendRune(out, 0x10000+(r-0xD800)<<10+(lo-0xDC00))
						i += 12
						continue
					}
				}
				return nil, errLoneSurrogate(s[i : i+6])
			case r >= 0xDC00 && r < 0xE000:
				return nil, errLoneSurrogate(s[i : i+6])
			}
			out = utf8.AppendRune(out, r)
			i += 6
			continue
		default:
			return nil, syntaxAt("bad escape in a string")
		}
		i += 2
	}
	return out, nil
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

func errLoneSurrogate(esc []byte) error {
	return syntax(`invalid JSON: lone surrogate ` + string(esc) + ` in a string (mcpgen rejects strings a Go string cannot hold)`)
}

// number reads the next number token, checking its JSON syntax, so that a
// malformed number (01, 1., -) is reported as invalid JSON rather than as
// a number of the wrong kind.
func (d *Decoder) number() ([]byte, error) {
	if err := d.expect(wire.KindNumber); err != nil {
		return nil, err
	}
	end, err := number(d.buf, d.pos)
	if err != nil {
		return nil, err
	}
	r := d.buf[d.pos:end]
	d.pos = end
	if end < len(d.buf) && !isDelim(d.buf[end]) {
		return nil, syntaxAt("malformed number")
	}
	return r, nil
}

// isDelim reports whether c may follow a number.
func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// Int64 reads an integer written without fraction or exponent. A value
// outside the int64 range is an error naming the range, never rounded.
func (d *Decoder) Int64() (int64, error) {
	r, err := d.number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(unsafe.String(&r[0], len(r)), 10, 64)
	if err == nil {
		return v, nil
	}
	if bytes.ContainsAny(r, ".eE") {
		if _, digits, exp := decimal(string(r)); exp >= len(digits)-1 {
			// 1.0, 1e2: integers to JSON Schema, but not written as one.
			return 0, shape("expected an integer, got " + string(r) + " (integers must be written as plain digits, without a fraction or exponent)")
		}
		return 0, shape("expected an integer, got " + string(r))
	}
	return 0, limit("integer " + string(r) + " is outside the int64 range [-9223372036854775808, 9223372036854775807]")
}

// Float64 reads a number. A number float64 cannot hold — beyond its range,
// or one whose value a float64 would round (9007199254740993,
// 1.00000000000000000001) — is an error, never a silent rounding: a
// decoded value always encodes back to the same number.
func (d *Decoder) Float64() (float64, error) {
	r, err := d.number()
	if err != nil {
		return 0, err
	}
	s := unsafe.String(&r[0], len(r))
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, limit("number " + s + " is outside the float64 range (magnitude at most 1.7976931348623157e308)")
	}
	if !exactFloat(s, v) {
		return 0, limit("number " + s + " cannot be held exactly by a float64 (it would become " + shortest(v) + ")")
	}
	return v, nil
}

// shortest writes v as JSON encoders usually do: plain digits between
// 1e-6 and 1e21, exponent notation beyond.
func shortest(v float64) string {
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	if err := d.expect(wire.KindBool); err != nil {
		return false, err
	}
	if d.buf[d.pos] == 't' {
		end, err := literal(d.buf, d.pos, "true")
		d.pos = end
		return err == nil, err
	}
	end, err := literal(d.buf, d.pos, "false")
	d.pos = end
	return false, err
}

// Null reads null.
func (d *Decoder) Null() error {
	if err := d.expect(wire.KindNull); err != nil {
		return err
	}
	end, err := literal(d.buf, d.pos, "null")
	d.pos = end
	return err
}

// ID reads a JSON-RPC request id: a string, or an integer in the int64
// range.
func (d *Decoder) ID() (wire.ID, error) {
	switch d.Next() {
	case wire.KindString:
		s, err := d.Str()
		return wire.StringID(s), err
	case wire.KindNumber:
		n, err := d.Int64()
		return wire.IntID(n), err
	case wire.KindInvalid:
		return wire.ID{}, syntaxAt("expected a value")
	}
	return wire.ID{}, shape("expected a string or an integer id, got " + d.Next().String())
}

// Raw reads any value verbatim, checking its syntax, its depth and that no
// object in it repeats a member name (verbatim.go), in one pass.
func (d *Decoder) Raw() (wire.Raw, error) {
	d.ws()
	start := d.pos
	end, err := d.verbatim.scan(d.buf, start, MaxDepth-d.depth, true)
	if err != nil {
		return nil, err
	}
	d.pos = end
	return wire.Raw(d.buf[start:end:end]), nil
}

// RawChecked reads a verbatim object and checks the members it declares
// (see Checker.RawMembers) from what the scan saw, without a second pass.
// checked is r when they pass, nil otherwise; generated types keep it so
// that Validate trusts r while the member still holds that same slice.
func (d *Decoder) RawChecked(members []RawMember) (r, checked wire.Raw, err error) {
	if r, err = d.RawKind(wire.KindObject); err != nil {
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
func Same(a, b wire.Raw) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// RawKind reads a value of kind k verbatim.
func (d *Decoder) RawKind(k wire.Kind) (wire.Raw, error) {
	if err := d.expect(k); err != nil {
		return nil, err
	}
	return d.Raw()
}

// Skip consumes the next value, checking it as Raw does.
func (d *Decoder) Skip() error {
	_, err := d.Raw()
	return err
}

// Pass consumes the next value checking only its JSON syntax and depth,
// not member names: for looking at a few members of a message before
// decoding it for real.
func (d *Decoder) Pass() error {
	d.ws()
	end, err := d.verbatim.scan(d.buf, d.pos, MaxDepth-d.depth, false)
	if err != nil {
		return err
	}
	d.pos = end
	return nil
}

// Obj reads an object, calling f with each key; f must consume the value.
// The key is valid only during the call (see String to keep it). Duplicate
// keys are the caller's to detect (generated code tracks the members it
// declares; see Members).
func (d *Decoder) Obj(f func(key []byte) error) error {
	if err := d.expect(wire.KindObject); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++
	d.ws()
	if d.pos < len(d.buf) && d.buf[d.pos] == '}' {
		d.pos++
		d.depth--
		return nil
	}
	for {
		if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
			return syntaxAt("expected a member name")
		}
		key, err := d.strBytes()
		if err != nil {
			return err
		}
		if !asciiOrValid(key) {
			return syntax("invalid UTF-8 in member name")
		}
		d.ws()
		if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
			return syntaxAt("expected ':' after a member name")
		}
		d.pos++
		if err := f(key); err != nil {
			return err
		}
		d.ws()
		if d.pos >= len(d.buf) {
			return syntaxAt("unexpected end of input")
		}
		switch d.buf[d.pos] {
		case ',':
			d.pos++
			d.ws()
		case '}':
			d.pos++
			d.depth--
			return nil
		default:
			return syntaxAt("expected ',' or '}' in an object")
		}
	}
}

func asciiOrValid(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return utf8.Valid(b)
		}
	}
	return true
}

// Arr reads an array, calling f with the index of each element; f must
// consume the element.
func (d *Decoder) Arr(f func(i int) error) error {
	if err := d.expect(wire.KindArray); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	d.pos++
	d.ws()
	if d.pos < len(d.buf) && d.buf[d.pos] == ']' {
		d.pos++
		d.depth--
		return nil
	}
	for i := 0; ; i++ {
		if err := f(i); err != nil {
			return err
		}
		d.ws()
		if d.pos >= len(d.buf) {
			return syntaxAt("unexpected end of input")
		}
		switch d.buf[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			d.depth--
			return nil
		default:
			return syntaxAt("expected ',' or ']' in an array")
		}
	}
}

func (d *Decoder) enter() error {
	if d.depth >= MaxDepth {
		return errTooDeep()
	}
	d.depth++
	return nil
}

// Peek runs f and then rewinds the decoder to where it was, so the value f
// looked at can be decoded again.
func (d *Decoder) Peek(f func() error) error {
	m := d.Mark()
	err := f()
	d.Rewind(m)
	return err
}

// Mark is a place in the input to come back to (see Decoder.Mark).
type Mark struct{ pos, depth int }

// Mark returns the decoder's place, for Rewind: a union decoder that tries
// one reading of a value after another rewinds between them.
func (d *Decoder) Mark() Mark { return Mark{d.pos, d.depth} }

// Rewind returns the decoder to m, which Mark returned while decoding the
// same input.
func (d *Decoder) Rewind(m Mark) { d.pos, d.depth = m.pos, m.depth }

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
	if err := d.Pass(); err != nil {
		return AtKey(err, string(k))
	}
	return nil
}

// String converts a key that must outlive the call to f (member names of
// undeclared members) into a string sharing its memory.
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
func (d *Decoder) AddMember(m *wire.Members, key []byte) error {
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
				d.extra = map[*wire.Members]map[string]struct{}{}
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
	*m = append(*m, wire.Member{Key: k, Value: v})
	return nil
}

// RawSyntax reads any value verbatim checking its syntax and depth but not
// its member names: for an envelope whose parts are decoded again, in
// full, by their generated types (jsonrpc messages' params and results).
func (d *Decoder) RawSyntax() (wire.Raw, error) {
	d.ws()
	start := d.pos
	if err := d.Pass(); err != nil {
		return nil, err
	}
	return wire.Raw(d.buf[start:d.pos:d.pos]), nil
}
