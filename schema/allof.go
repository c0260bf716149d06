package schema

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Flatten returns s with allOf merged away (and a $ref that has sibling
// keywords merged with its target). Shared nodes are never modified: where
// anything must change, Flatten builds new nodes. A schema without allOf is
// returned as is.
func (d *Document) Flatten(s *Schema) (*Schema, error) {
	return d.flatten(s, 0)
}

func (d *Document) flatten(s *Schema, depth int) (*Schema, error) {
	if depth > 32 {
		return nil, &Error{File: d.File, Pointer: s.Pointer, Msg: "allOf nests too deeply to merge"}
	}
	if len(s.AllOf) == 0 && (s.Target == nil || !hasSiblings(s)) {
		return s, nil
	}
	own := shallowCopy(s)
	own.AllOf = nil
	var parts []*Schema
	if s.Target != nil {
		own.Ref, own.Target = "", nil
		t, err := d.flatten(s.Target.Resolve(), depth+1)
		if err != nil {
			return nil, err
		}
		parts = append(parts, t)
	}
	for _, m := range s.AllOf {
		t := m
		if m.Target != nil && !hasSiblings(m) {
			t = m.Resolve()
		}
		t, err := d.flatten(t, depth+1)
		if err != nil {
			return nil, err
		}
		parts = append(parts, t)
	}
	merged := own
	for _, p := range parts {
		var err error
		if merged, err = d.merge(merged, p, depth); err != nil {
			return nil, err
		}
	}
	return merged, nil
}

// hasSiblings reports whether a $ref node carries keywords beside $ref
// (annotations do not count).
func hasSiblings(s *Schema) bool {
	c := shallowCopy(s)
	c.Ref, c.Target, c.Description, c.Title, c.Default = "", nil, "", "", nil
	return !c.IsTrue()
}

func shallowCopy(s *Schema) *Schema {
	c := *s
	c.Types = slices.Clone(s.Types)
	c.Properties = slices.Clone(s.Properties)
	c.Required = slices.Clone(s.Required)
	c.AnyOf, c.OneOf, c.AllOf = slices.Clone(s.AnyOf), slices.Clone(s.OneOf), slices.Clone(s.AllOf)
	c.Enum = slices.Clone(s.Enum)
	c.Unknown = slices.Clone(s.Unknown)
	return &c
}

// merge returns a new node satisfying both a and b. a's annotations win.
func (d *Document) merge(a, b *Schema, depth int) (*Schema, error) {
	fail := func(format string, args ...any) (*Schema, error) {
		return nil, &Error{File: d.File, Pointer: a.Pointer, Msg: "cannot merge allOf: " + fmt.Sprintf(format, args...)}
	}
	if a.IsFalse() || b.IsFalse() {
		f := false
		return &Schema{Pointer: a.Pointer, Bool: &f}, nil
	}
	if b.Bool != nil { // true
		return a, nil
	}
	if a.Bool != nil {
		c := shallowCopy(b)
		c.Pointer = a.Pointer
		return c, nil
	}
	m := shallowCopy(a)
	switch {
	case len(m.Types) == 0:
		m.Types = slices.Clone(b.Types)
	case len(b.Types) > 0:
		var both []string
		for _, t := range m.Types {
			if slices.Contains(b.Types, t) || t == "number" && slices.Contains(b.Types, "integer") {
				if t == "number" && slices.Contains(b.Types, "integer") && !slices.Contains(b.Types, "number") {
					t = "integer"
				}
				both = append(both, t)
			} else if t == "integer" && slices.Contains(b.Types, "number") {
				both = append(both, t)
			}
		}
		if len(both) == 0 {
			return fail("types %v and %v have nothing in common", m.Types, b.Types)
		}
		m.Types = both
	}
	for _, bp := range b.Properties {
		i := slices.IndexFunc(m.Properties, func(p *Property) bool { return p.Name == bp.Name })
		if i < 0 {
			m.Properties = append(m.Properties, bp)
			continue
		}
		both := &Schema{Pointer: m.Properties[i].Schema.Pointer, AllOf: []*Schema{m.Properties[i].Schema, bp.Schema}}
		ms, err := d.flatten(both, depth+1)
		if err != nil {
			return nil, err
		}
		m.Properties[i] = &Property{Name: bp.Name, Schema: ms}
	}
	for _, r := range b.Required {
		if !slices.Contains(m.Required, r) {
			m.Required = append(m.Required, r)
		}
	}
	var err error
	if m.AdditionalProperties, err = d.mergeSub(m.AdditionalProperties, b.AdditionalProperties, depth); err != nil {
		return nil, err
	}
	if m.Items, err = d.mergeSub(m.Items, b.Items, depth); err != nil {
		return nil, err
	}
	switch {
	case !m.HasConst:
		m.HasConst, m.Const = b.HasConst, b.Const
	case b.HasConst && !bytes.Equal(m.Const, b.Const):
		return fail("const %s and const %s", m.Const, b.Const)
	}
	switch {
	case len(m.Enum) == 0:
		m.Enum = slices.Clone(b.Enum)
	case len(b.Enum) > 0:
		m.Enum = slices.DeleteFunc(m.Enum, func(e json.RawMessage) bool {
			return !slices.ContainsFunc(b.Enum, func(x json.RawMessage) bool { return bytes.Equal(x, e) })
		})
		if len(m.Enum) == 0 {
			return fail("enums have no value in common")
		}
	}
	if len(b.AnyOf) > 0 {
		if len(m.AnyOf) > 0 {
			return fail("both sides have anyOf")
		}
		m.AnyOf = slices.Clone(b.AnyOf)
	}
	if len(b.OneOf) > 0 {
		if len(m.OneOf) > 0 {
			return fail("both sides have oneOf")
		}
		m.OneOf = slices.Clone(b.OneOf)
	}
	for _, s := range []struct {
		dst *string
		src string
		kw  string
	}{{&m.Format, b.Format, "format"}, {&m.Pattern, b.Pattern, "pattern"}} {
		switch {
		case *s.dst == "":
			*s.dst = s.src
		case s.src != "" && s.src != *s.dst:
			return fail("%s %q and %q", s.kw, *s.dst, s.src)
		}
	}
	switch {
	case m.MultipleOf == nil:
		m.MultipleOf = b.MultipleOf
	case b.MultipleOf != nil && *b.MultipleOf != *m.MultipleOf:
		// Both must hold; one keyword cannot say so in general.
		return fail("multipleOf %v and %v", *m.MultipleOf, *b.MultipleOf)
	}
	m.Minimum = stricter(m.Minimum, b.Minimum, true)
	m.ExclusiveMinimum = stricter(m.ExclusiveMinimum, b.ExclusiveMinimum, true)
	m.Maximum = stricter(m.Maximum, b.Maximum, false)
	m.ExclusiveMaximum = stricter(m.ExclusiveMaximum, b.ExclusiveMaximum, false)
	m.MinLength = stricter(m.MinLength, b.MinLength, true)
	m.MinItems = stricter(m.MinItems, b.MinItems, true)
	m.MaxLength = stricter(m.MaxLength, b.MaxLength, false)
	m.MaxItems = stricter(m.MaxItems, b.MaxItems, false)
	if m.Description == "" {
		m.Description = b.Description
	}
	if m.Title == "" {
		m.Title = b.Title
	}
	if m.Default == nil {
		m.Default = b.Default
	}
	for _, u := range b.Unknown {
		if !slices.Contains(m.Unknown, u) {
			m.Unknown = append(m.Unknown, u)
			m.unknownRaw = maps.Clone(m.unknownRaw)
			if m.unknownRaw == nil {
				m.unknownRaw = map[string]json.RawMessage{}
			}
			m.unknownRaw[u] = b.unknownRaw[u]
		} else if !bytes.Equal(m.unknownRaw[u], b.unknownRaw[u]) {
			return fail("%s %s and %s %s", u, m.unknownRaw[u], u, b.unknownRaw[u])
		}
	}
	return m, nil
}

func (d *Document) mergeSub(a, b *Schema, depth int) (*Schema, error) {
	switch {
	case a == nil:
		return b, nil
	case b == nil:
		return a, nil
	}
	return d.flatten(&Schema{Pointer: a.Pointer, AllOf: []*Schema{a, b}}, depth+1)
}

// stricter returns the tighter of two optional bounds: the larger for a
// lower bound, the smaller for an upper one.
func stricter[T cmp.Ordered](a, b *T, lower bool) *T {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case lower && *b > *a, !lower && *b < *a:
		return b
	}
	return a
}
