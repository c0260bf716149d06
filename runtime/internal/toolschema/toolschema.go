// Package toolschema compiles the JSON Schemas of tools (inputSchema,
// outputSchema) and checks values against them, for the server (arguments
// and structured results) and the client (structured results).
//
// Every schema is compiled with the full JSON Schema 2020-12 validator
// (github.com/santhosh-tekuri/jsonschema/v6), 2020-12 unless $schema names
// another dialect it knows (JS-1, JS-3), with references resolved inside
// the schema only, never over the network or from files (JS-5, JS-6). The
// plain shape the server derives from Go types (an object of scalar
// properties, some required) also gets a flat checker that accepts valid
// values straight from their bytes, without building a Go value; values it
// does not accept go through the full validator, which decides and
// explains.
package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Schema is a compiled tool schema.
type Schema struct {
	full *jsonschema.Schema
	flat *flat // nil unless the schema is flat
}

// refuseLoader refuses every external reference (JS-5, JS-6).
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("reference %s is outside the schema; network and file references are not followed", url)
}

// Compile compiles raw as the schema at url. The URL must be
// hierarchical: against an opaque one ("mcp:x") a relative $ref such as
// "other.json" resolves to the document itself and an unresolvable
// reference would pass unnoticed (JS-6).
func Compile(url string, raw wire.Raw) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	full, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &Schema{full: full, flat: newFlat(raw)}, nil
}

// Accepts reports whether the flat checker finds raw certainly valid.
// False means only that the full validator must decide.
func (s *Schema) Accepts(raw wire.Raw) bool {
	return s.flat != nil && s.flat.accepts(raw)
}

// Validate validates a value parsed by Parse with the full validator. Its
// error is a *jsonschema.ValidationError.
func (s *Schema) Validate(v any) error { return s.full.Validate(v) }

// Check validates the JSON value raw: the flat checker first, then the
// full validator on the parsed value. Its error is what Violations
// explains.
func (s *Schema) Check(raw wire.Raw) error {
	if s.Accepts(raw) {
		return nil
	}
	v, err := Parse(raw)
	if err != nil {
		return err
	}
	return s.full.Validate(v)
}

// Parse parses JSON into the tree the validator reads (numbers as
// json.Number).
func Parse(raw wire.Raw) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// Violations explains a Check or Validate error as violations whose paths
// start with prefix, in the notation of generated validators
// (structuredContent.items[2].name): one per failing keyword where the
// value broke the schema, or one for the whole value when it was not
// JSON.
func Violations(err error, prefix string) []wire.Violation {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []wire.Violation{{Path: prefix, Message: err.Error()}}
	}
	var out []wire.Violation
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		msg := u.Error.String()
		if strings.HasPrefix(msg, "validation failed") || strings.HasPrefix(msg, "allOf failed") && len(ve.Causes) > 0 {
			continue // a summary of the causes listed beside it
		}
		out = append(out, wire.Violation{Path: pointerPath(prefix, u.InstanceLocation), Message: msg})
	}
	if len(out) == 0 {
		out = append(out, wire.Violation{Path: prefix, Message: ve.Error()})
	}
	return out
}

// pointerPath renders a JSON pointer as a path below prefix.
func pointerPath(prefix, ptr string) string {
	var b strings.Builder
	b.WriteString(prefix)
	if ptr == "" {
		return b.String()
	}
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		if n, err := strconv.Atoi(seg); err == nil && n >= 0 && strconv.Itoa(n) == seg {
			fmt.Fprintf(&b, "[%d]", n)
			continue
		}
		if isIdent(seg) {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(seg)
			continue
		}
		fmt.Fprintf(&b, "[%s]", strconv.Quote(seg))
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
		case i > 0 && '0' <= r && r <= '9':
		default:
			return false
		}
	}
	return true
}

// flat is an object schema whose properties are all of one scalar type
// and carry nothing but annotations.
type flat struct {
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

// newFlat recognizes a flat schema, or returns nil.
func newFlat(raw wire.Raw) *flat {
	var s map[string]json.RawMessage
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	f := &flat{props: map[string]flatProp{}}
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

var errNotFlat = errors.New("the value does not fit the flat schema")

// accepts reports whether raw certainly satisfies the schema.
func (f *flat) accepts(raw wire.Raw) bool {
	d := wireimpl.GetDecoder(raw)
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
