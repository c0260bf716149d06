package schema

import "encoding/json"

// Schema is one schema node. Only keywords the generator understands are
// fields; any other keyword is listed in Unknown so callers can refuse
// shapes they cannot map.
type Schema struct {
	// Pointer is the node's JSON pointer in the document ("/$defs/Tool").
	Pointer string
	// Bool is set for the boolean schemas true and false.
	Bool *bool

	Ref string
	// Target is the node Ref resolves to (set by Load).
	Target *Schema

	Types      []string // "type", as written (a string becomes one entry)
	Properties []*Property
	Required   []string
	// AdditionalProperties is nil when the keyword is absent.
	AdditionalProperties *Schema
	Items                *Schema
	AnyOf, OneOf, AllOf  []*Schema

	HasConst bool
	Const    json.RawMessage // compact JSON of the const value
	Enum     []json.RawMessage

	Format           string
	Pattern          string
	Minimum, Maximum *float64
	ExclusiveMinimum *float64
	ExclusiveMaximum *float64
	MultipleOf       *float64 // > 0
	MinLength        *int
	MaxLength        *int
	MinItems         *int
	MaxItems         *int

	Title       string
	Description string
	Default     json.RawMessage

	// Unknown lists keywords present on the node that this package does not
	// model, in document order; UnknownValue returns their values.
	Unknown    []string
	unknownRaw map[string]json.RawMessage
}

// UnknownValue returns the value of keyword kw, one of Unknown, as
// written (compact JSON); nil when the node has no such keyword.
func (s *Schema) UnknownValue(kw string) json.RawMessage { return s.unknownRaw[kw] }

// Property is a named member of an object schema, in declaration order.
type Property struct {
	Name   string
	Schema *Schema
}

// Property returns the property named name, or nil.
func (s *Schema) Property(name string) *Schema {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

// IsRequired reports whether name is listed in required.
func (s *Schema) IsRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

// Resolve follows $ref links to the node they end at.
func (s *Schema) Resolve() *Schema {
	for i := 0; s != nil && s.Target != nil && i < 64; i++ {
		s = s.Target
	}
	return s
}

// HasType reports whether "type" lists t.
func (s *Schema) HasType(t string) bool {
	for _, x := range s.Types {
		if x == t {
			return true
		}
	}
	return false
}

// IsTrue reports whether the schema accepts every value: true, or {} with
// nothing but annotations.
func (s *Schema) IsTrue() bool {
	if s.Bool != nil {
		return *s.Bool
	}
	return s.Ref == "" && len(s.Types) == 0 && len(s.Properties) == 0 && len(s.Required) == 0 &&
		s.AdditionalProperties == nil && s.Items == nil && len(s.AnyOf)+len(s.OneOf)+len(s.AllOf) == 0 &&
		!s.HasConst && len(s.Enum) == 0 && s.Format == "" && s.Pattern == "" &&
		s.Minimum == nil && s.Maximum == nil && s.ExclusiveMinimum == nil && s.ExclusiveMaximum == nil && s.MultipleOf == nil &&
		s.MinLength == nil && s.MaxLength == nil && s.MinItems == nil && s.MaxItems == nil && len(s.Unknown) == 0
}

// IsFalse reports whether the schema is false.
func (s *Schema) IsFalse() bool { return s.Bool != nil && !*s.Bool }
