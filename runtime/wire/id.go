package wire

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/go-faster/jx"
)

// ID is a JSON-RPC request id: a string or an integer, never null (ID-1).
// Ids of different JSON types differ even when they print alike: 1 and
// "1" are two requests (ID-5). The zero ID is "no id" (a notification, or
// an error response to a request whose id could not be read).
//
// The generated type of the schema's request id (mcp.RequestId) is this
// type, so one id type serves every revision and the JSON-RPC layer.
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

// IsZero reports whether the id is not set.
func (id ID) IsZero() bool { return !id.set }

// IsInt reports whether the id is an integer.
func (id ID) IsInt() bool { return id.isNum }

// Int returns the value of an integer id.
func (id ID) Int() int64 { return id.num }

// Str returns the value of a string id.
func (id ID) Str() string { return id.str }

// String renders the id as it appears in JSON ("<none>" for no id).
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

// Validate reports an id that is not set.
func (id ID) Validate() error {
	if !id.set {
		return &ValidationError{Violations: []Violation{{Message: "expected a string or an integer id"}}}
	}
	return nil
}

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) {
	switch {
	case !id.set:
		return []byte("null"), nil
	case id.isNum:
		return strconv.AppendInt(nil, id.num, 10), nil
	}
	return json.Marshal(id.str)
}

// UnmarshalJSON implements json.Unmarshaler: a string or an integer in
// the int64 range.
func (id *ID) UnmarshalJSON(data []byte) error {
	switch Raw(data).Kind() {
	case KindString:
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*id = StringID(s)
		return nil
	case KindNumber:
		n, err := strconv.ParseInt(string(data), 10, 64)
		if err != nil {
			return errors.New("wire: id must be an integer in the int64 range, got " + string(data))
		}
		*id = IntID(n)
		return nil
	}
	return errors.New("wire: id must be a string or an integer")
}

// Equal reports whether id and o are the same id: same JSON type, same
// value.
func (id ID) Equal(o ID) bool { return id == o }
