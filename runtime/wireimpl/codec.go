package wireimpl

import (
	"github.com/mcpgen/mcpgen/runtime/wire"

	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/go-faster/jx"
)

// EncodeJSONer is implemented by every generated type.
type EncodeJSONer interface {
	EncodeJSON(e *jx.Encoder)
}

var encoderPool = sync.Pool{New: func() any { return new(jx.Encoder) }}

// Encodabler is implemented by every generated type: Encodable reports a
// union inside the value that EncodeJSON cannot write as what it means
// (*wire.EncodeError).
type Encodabler interface {
	Encodable() error
}

// Marshal encodes v into a new byte slice. When v has an Encodable method
// (every generated type has), a value it reports is an error, not output.
func Marshal(v EncodeJSONer) ([]byte, error) {
	if c, ok := v.(Encodabler); ok {
		if err := c.Encodable(); err != nil {
			return nil, err
		}
	}
	e := encoderPool.Get().(*jx.Encoder)
	e.Reset()
	v.EncodeJSON(e)
	out := slices.Clone(e.Bytes())
	if cap(e.Bytes()) <= 64<<10 {
		encoderPool.Put(e)
	}
	return out, nil
}

// DecodeList reads an array into *dst with elem. An empty array leaves a
// non-nil empty slice, so presence survives a round trip.
func DecodeList[T any](d *Decoder, dst *[]T, elem func(*T, *Decoder) error) error {
	// Elements are decoded into a pooled buffer of this element type and
	// copied once into a slice of the exact length: no repeated growth of
	// the result, and one allocation per list.
	pool := listPool[T]()
	buf := pool.Get().(*[]T)
	s := (*buf)[:0]
	err := d.Arr(func(i int) error {
		var zero T
		s = append(s, zero)
		if err := elem(&s[len(s)-1], d); err != nil {
			return AtIndex(err, i)
		}
		return nil
	})
	out := make([]T, len(s))
	copy(out, s)
	clear(s) // the pooled buffer keeps no references into decoded values
	if cap(s) <= maxPooledList {
		*buf = s[:0]
		pool.Put(buf)
	}
	*dst = out
	return err
}

// maxPooledList bounds the buffers kept for DecodeList.
const maxPooledList = 4096

// listPools holds one sync.Pool of *[]T per element type T, keyed by the
// typed nil pointer (*T)(nil).
var listPools sync.Map

func listPool[T any]() *sync.Pool {
	key := any((*T)(nil))
	if p, ok := listPools.Load(key); ok {
		return p.(*sync.Pool)
	}
	p, _ := listPools.LoadOrStore(key, &sync.Pool{New: func() any { return new([]T) }})
	return p.(*sync.Pool)
}

// DecodeMap reads an object whose members share one type into *dst,
// rejecting duplicate keys. An empty object leaves a non-nil empty map.
func DecodeMap[T any](d *Decoder, dst *map[string]T, elem func(*T, *Decoder) error) error {
	m := make(map[string]T)
	err := d.Obj(func(key []byte) error {
		if _, dup := m[string(key)]; dup {
			return DuplicateKey(key)
		}
		k := d.String(key)
		var v T
		if err := elem(&v, d); err != nil {
			return AtKey(err, k)
		}
		m[k] = v
		return nil
	})
	*dst = m
	return err
}

// Element decoders for DecodeList and DecodeMap.
func DecodeString(v *string, d *Decoder) (err error) { *v, err = d.Str(); return }

// DecodeInt64 reads an integer element.
func DecodeInt64(v *int64, d *Decoder) (err error) { *v, err = d.Int64(); return }

// DecodeFloat64 reads a number element.
func DecodeFloat64(v *float64, d *Decoder) (err error) { *v, err = d.Float64(); return }

// DecodeBool reads a boolean element.
func DecodeBool(v *bool, d *Decoder) (err error) { *v, err = d.Bool(); return }

// DecodeRaw reads any element verbatim.
func DecodeRaw(v *wire.Raw, d *Decoder) (err error) { *v, err = d.Raw(); return }

// DecodeRawObject reads an object element verbatim.
func DecodeRawObject(v *wire.Raw, d *Decoder) (err error) {
	*v, err = d.RawKind(wire.KindObject)
	return
}

// DecodeRawArray reads an array element verbatim.
func DecodeRawArray(v *wire.Raw, d *Decoder) (err error) { *v, err = d.RawKind(wire.KindArray); return }

// DecodeConstString reads a string member that must equal want.
func DecodeConstString(d *Decoder, want string) error {
	s, err := d.Str()
	if err == nil && s != want {
		err = shape("must be " + strconv.Quote(want) + ", got " + strconv.Quote(s))
	}
	return err
}

// DecodeConstInt reads an integer member that must equal want.
func DecodeConstInt(d *Decoder, want int64) error {
	n, err := d.Int64()
	if err == nil && n != want {
		err = shape("must be " + strconv.FormatInt(want, 10) + ", got " + strconv.FormatInt(n, 10))
	}
	return err
}

// DecodeConstFloat reads a number member that must equal want.
func DecodeConstFloat(d *Decoder, want float64) error {
	n, err := d.Float64()
	if err == nil && n != want {
		err = shape("must be " + formatNum(want) + ", got " + formatNum(n))
	}
	return err
}

// DecodeConstBool reads a boolean member that must equal want.
func DecodeConstBool(d *Decoder, want bool) error {
	b, err := d.Bool()
	if err == nil && b != want {
		err = shape("must be " + strconv.FormatBool(want))
	}
	return err
}

// EncodeList writes s as an array; a nil slice is written as [].
func EncodeList[T any](e *jx.Encoder, s []T, elem func(*T, *jx.Encoder)) {
	e.ArrStart()
	for i := range s {
		elem(&s[i], e)
	}
	e.ArrEnd()
}

// EncodeMap writes m as an object with its keys sorted.
func EncodeMap[T any](e *jx.Encoder, m map[string]T, elem func(*T, *jx.Encoder)) {
	e.ObjStart()
	for _, k := range SortedKeys(m) {
		v := m[k]
		e.FieldStart(k)
		elem(&v, e)
	}
	e.ObjEnd()
}

// SortedKeys returns the keys of m in order.
func SortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Element encoders for EncodeList and EncodeMap.
func EncodeString(v *string, e *jx.Encoder) { e.Str(*v) }

// EncodeInt64 writes an integer element.
func EncodeInt64(v *int64, e *jx.Encoder) { e.Int64(*v) }

// EncodeFloat64 writes a number element.
func EncodeFloat64(v *float64, e *jx.Encoder) { EncodeFloat(e, *v) }

// EncodeBool writes a boolean element.
func EncodeBool(v *bool, e *jx.Encoder) { e.Bool(*v) }

// EncodeRawElem writes a verbatim element.
func EncodeRawElem(v *wire.Raw, e *jx.Encoder) { EncodeRaw(e, *v) }

// EncodeRaw writes a verbatim value; an absent (nil) value is written as null.
func EncodeRaw(e *jx.Encoder, r wire.Raw) {
	if r == nil {
		e.Null()
		return
	}
	e.Raw(r)
}

// EncodeRawOr writes r, or empty (a JSON literal) when r is nil.
func EncodeRawOr(e *jx.Encoder, r wire.Raw, empty string) {
	if r == nil {
		e.RawStr(empty)
		return
	}
	e.Raw(r)
}

// EncodeMembers writes undeclared members after the declared ones.
func EncodeMembers(e *jx.Encoder, m wire.Members) {
	for i := range m {
		e.FieldStart(m[i].Key)
		EncodeRaw(e, m[i].Value)
	}
}

// EncodeFloat writes f; NaN and infinities, which JSON cannot hold, are written as null.
func EncodeFloat(e *jx.Encoder, f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		e.Null() // JSON has no NaN or infinity
		return
	}
	e.Float64(f)
}

// DecodeParams decodes and validates request params (already checked for
// UTF-8 as part of their message) into v, turning any failure into
// -32602. required: absent params are an error.
func DecodeParams(params wire.Raw, v Codec, required bool) error {
	if params == nil {
		if required {
			return InvalidParams(&wire.ValidationError{Violations: []wire.Violation{{Message: "required member is missing"}}})
		}
		return nil
	}
	d := decoderPool.Get().(*Decoder)
	d.reset(params)
	err := v.DecodeJSON(d)
	if err == nil {
		err = d.Finish()
	}
	d.reset(nil)
	decoderPool.Put(d)
	if err == nil {
		err = v.Validate()
	}
	if err != nil {
		return InvalidParams(err)
	}
	return nil
}

// DecodeID reads a request id element.
func DecodeID(v *wire.ID, d *Decoder) (err error) { *v, err = d.ID(); return }

// EncodeID writes a request id element.
func EncodeID(v *wire.ID, e *jx.Encoder) { v.EncodeJSON(e) }

// IDValue is a request id as a generated-type value (NewDefinition of the
// schema's RequestId): a string or an integer.
type IDValue struct{ wire.ID }

// DecodeJSON reads a string or integer id.
func (v *IDValue) DecodeJSON(d *Decoder) (err error) { v.ID, err = d.ID(); return }

// EncodeJSON writes the id.
func (v *IDValue) EncodeJSON(e *jx.Encoder) { v.ID.EncodeJSON(e) }

// Validate reports an unset id.
func (v *IDValue) Validate() error { return v.ID.Validate() }

// Encodable reports nothing: an id holds no union (an unset one is written
// as null, which Validate reports).
func (v *IDValue) Encodable() error { return nil }

// MarshalJSON implements json.Marshaler.
func (v IDValue) MarshalJSON() ([]byte, error) { return v.ID.MarshalJSON() }

// UnmarshalJSON implements json.Unmarshaler.
func (v *IDValue) UnmarshalJSON(data []byte) error { return Decode(data, v) }
