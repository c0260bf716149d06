package wire

import (
	"encoding/json"
	"fmt"
)

// Raw is a JSON value kept verbatim. A nil Raw means "absent"; the JSON
// literal null is the three bytes "null" and is present.
//
// A Raw produced by decoding is compact-as-received and may share memory
// with the decoded message; its capacity is clipped, so appending to it
// never overwrites neighbouring data.
type Raw []byte

// RawOf encodes v with encoding/json into a Raw.
func RawOf(v any) (Raw, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("wire: encode raw value: %w", err)
	}
	return Raw(b), nil
}

// MarshalJSON implements json.Marshaler; an absent Raw encodes as null.
func (r Raw) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	return r, nil
}

// UnmarshalJSON implements json.Unmarshaler; it keeps a copy of data.
func (r *Raw) UnmarshalJSON(data []byte) error {
	if !json.Valid(data) {
		return fmt.Errorf("wire: raw value is not valid JSON")
	}
	*r = append(Raw(nil), data...)
	return nil
}

// Kind reports the JSON kind of the value (KindInvalid for an absent Raw).
func (r Raw) Kind() Kind {
	for _, c := range r {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return KindObject
		case '[':
			return KindArray
		case '"':
			return KindString
		case 't', 'f':
			return KindBool
		case 'n':
			return KindNull
		default:
			return KindNumber
		}
	}
	return KindInvalid
}

// Kind is the kind of a JSON value.
type Kind uint8

// The JSON value kinds.
const (
	KindInvalid Kind = iota
	KindObject
	KindArray
	KindString
	KindNumber
	KindBool
	KindNull
)

var kindNames = [...]string{"invalid", "object", "array", "string", "number", "boolean", "null"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Member is one object member a generated type does not declare, kept
// verbatim so proxies and gateways re-emit what they received.
type Member struct {
	Key   string
	Value Raw
}

// Members holds undeclared members in the order they arrived.
type Members []Member

// Get returns the value of the member named key.
func (m Members) Get(key string) (Raw, bool) {
	for _, mb := range m {
		if mb.Key == key {
			return mb.Value, true
		}
	}
	return nil, false
}

// Set replaces the member named key, or appends it.
func (m *Members) Set(key string, v Raw) {
	for i := range *m {
		if (*m)[i].Key == key {
			(*m)[i].Value = v
			return
		}
	}
	*m = append(*m, Member{Key: key, Value: v})
}

// Value is what every generated type is: a value that checks itself
// against its schema definition and encodes as JSON. Middleware sees
// params and results as Values.
type Value interface {
	Validate() error
	MarshalJSON() ([]byte, error)
}
