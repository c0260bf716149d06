package jsonrpc

import (
	"strconv"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ID is a request id: a string or an integer, never null (ID-1). Ids of
// different JSON types differ even when they print alike: 1 and "1" are
// two requests (ID-5). The zero ID is "no id" (a notification).
type ID struct {
	str   string
	num   int64
	isNum bool
	set   bool
}

// StringID returns the string id s.
func StringID(s string) ID { return ID{str: s, set: true} }

// IntID returns the integer id n.
func IntID(n int64) ID { return ID{num: n, isNum: true, set: true} }

// IsValid reports whether the id is set.
func (id ID) IsValid() bool { return id.set }

// IsInt reports whether the id is an integer.
func (id ID) IsInt() bool { return id.isNum }

// Int returns the integer value of an integer id.
func (id ID) Int() int64 { return id.num }

// Str returns the value of a string id.
func (id ID) Str() string { return id.str }

// String renders the id as it appears in JSON.
func (id ID) String() string {
	switch {
	case !id.set:
		return "<none>"
	case id.isNum:
		return strconv.FormatInt(id.num, 10)
	}
	return strconv.Quote(id.str)
}

// EncodeJSON writes the id (null for no id).
func (id ID) EncodeJSON(e *jx.Encoder) {
	switch {
	case !id.set:
		e.Null()
	case id.isNum:
		e.Int64(id.num)
	default:
		e.Str(id.str)
	}
}

// DecodeJSON reads a string or integer id; null, fractions and booleans
// are errors.
func (id *ID) DecodeJSON(d *wire.Decoder) error {
	switch d.Next() {
	case wire.KindString:
		s, err := d.Str()
		*id = StringID(s)
		return err
	case wire.KindNumber:
		n, err := d.Int64()
		*id = IntID(n)
		return err
	}
	return &wire.DecodeError{Msg: "id must be a string or an integer, got " + d.Next().String()}
}

// parse reads an id from its verbatim JSON.
func (id *ID) parse(raw wire.Raw) error {
	switch raw.Kind() {
	case wire.KindString:
		var s string
		err := wire.DecodeOwned(raw, (*idString)(&s))
		*id = StringID(s)
		return err
	case wire.KindNumber:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return &wire.DecodeError{Msg: "id must be a string or an integer in the int64 range, got " + string(raw)}
		}
		*id = IntID(n)
		return nil
	}
	return &wire.DecodeError{Msg: "id must be a string or an integer, got " + raw.Kind().String()}
}

type idString string

func (s *idString) DecodeJSON(d *wire.Decoder) error {
	v, err := d.Str()
	*s = idString(v)
	return err
}
