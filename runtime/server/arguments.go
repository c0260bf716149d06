package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// arguments are a tools/call's arguments: verbatim, and parsed into a
// generic JSON tree at most once, when something needs their values —
// schema validation beyond the flat fast path, Mcp-Param-* headers, the
// binding of a requestState. A call with a flat schema and neither of the
// others parses them only into the handler's own type.
type arguments struct {
	raw    wire.Raw
	tree   any
	err    error
	parsed bool
}

// object is the arguments verbatim, {} when absent.
func (a *arguments) object() wire.Raw {
	if a.raw == nil {
		return wire.Raw("{}")
	}
	return a.raw
}

// value is the arguments as a generic tree (numbers as json.Number).
func (a *arguments) value() (any, error) {
	if !a.parsed {
		a.parsed = true
		a.tree, a.err = jsonschema.UnmarshalJSON(bytes.NewReader(a.object()))
	}
	return a.tree, a.err
}

// digest digests the arguments for binding a requestState to them
// (MRTR-17), so that answers given for one set of arguments cannot be
// replayed with another. Key order and spacing do not count; absent, null
// and {} are the same.
func (a *arguments) digest() string {
	var canon []byte
	v, err := a.value()
	switch {
	case err != nil:
		canon = a.raw
	case v == nil:
		canon = []byte("{}")
	default:
		canon, _ = json.Marshal(v) // map keys sorted, numbers as sent
	}
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Checking tool arguments. Every schema is compiled with the full JSON
// Schema 2020-12 validator; the plain shape SchemaFor derives (an object of
// scalar properties, some required) also gets a flat checker that accepts
// valid arguments straight from their bytes, without building a Go value.
// Arguments it does not accept go through the full validator, which
// decides and explains.

// flatSchema is an object schema whose properties are all of one scalar
// type and carry nothing but annotations.
type flatSchema struct {
	props    map[string]flatProp
	required uint64 // bits of the required properties
	closed   bool   // additionalProperties: false
}

type flatProp struct {
	kind    wire.Kind
	integer bool
	bit     uint64 // non-zero for a required property
}

// annotations may sit beside a flat property's type.
var annotations = map[string]bool{"type": true, "description": true, "title": true, "default": true, "examples": true, "deprecated": true}

// newFlatSchema recognizes a flat schema, or returns nil.
func newFlatSchema(raw wire.Raw) *flatSchema {
	var s map[string]json.RawMessage
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	f := &flatSchema{props: map[string]flatProp{}}
	for k, v := range s {
		switch k {
		case "type":
			if string(v) != `"object"` {
				return nil
			}
		case "properties":
			var props map[string]map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
			for name, p := range props {
				var typ string
				if json.Unmarshal(p["type"], &typ) != nil {
					return nil
				}
				for kw := range p {
					if !annotations[kw] {
						return nil
					}
				}
				fp := flatProp{}
				switch typ {
				case "string":
					fp.kind = wire.KindString
				case "boolean":
					fp.kind = wire.KindBool
				case "number":
					fp.kind = wire.KindNumber
				case "integer":
					fp.kind, fp.integer = wire.KindNumber, true
				default:
					return nil
				}
				f.props[name] = fp
			}
		case "required":
			var req []string
			if json.Unmarshal(v, &req) != nil || len(req) > 64 {
				return nil
			}
		case "additionalProperties":
			switch string(v) {
			case "false":
				f.closed = true
			case "true", "{}":
			default:
				return nil
			}
		case "$schema":
			if string(v) != `"https://json-schema.org/draft/2020-12/schema"` {
				return nil
			}
		default:
			if !annotations[k] {
				return nil
			}
		}
	}
	if _, ok := s["type"]; !ok {
		return nil
	}
	var req []string
	if r, ok := s["required"]; ok {
		_ = json.Unmarshal(r, &req)
	}
	for i, name := range req {
		p, ok := f.props[name]
		if !ok {
			return nil // required but undeclared: leave it to the full validator
		}
		p.bit = 1 << uint(i)
		f.props[name] = p
		f.required |= p.bit
	}
	return f
}

var errNotFlat = errors.New("arguments do not fit the flat schema")

// accepts reports whether args certainly satisfy the schema.
func (f *flatSchema) accepts(args wire.Raw) bool {
	d := wireimpl.GetDecoder(args)
	defer wireimpl.PutDecoder(d)
	var seen uint64
	err := d.Obj(func(k []byte) error {
		p, ok := f.props[string(k)]
		if !ok {
			if f.closed {
				return errNotFlat
			}
			return d.Pass()
		}
		if d.Next() != p.kind {
			return errNotFlat
		}
		seen |= p.bit
		if !p.integer {
			return d.Pass()
		}
		raw, err := d.Raw()
		if err != nil {
			return err
		}
		if n, err := strconv.ParseFloat(string(raw), 64); err != nil || n != math.Trunc(n) {
			return errNotFlat
		}
		return nil
	})
	return err == nil && d.Finish() == nil && seen&f.required == f.required
}
