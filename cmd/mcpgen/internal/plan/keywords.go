package plan

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/schema"
)

// Keywords the planner cannot map in general but that, in a particular
// form, say nothing a Go type has to honour, or say exactly what another
// keyword says (extension schemas generated from TypeScript use both).

// isFalse reports whether s admits no value: the schema false, or
// {"not": {}} (not of the schema that admits everything), which
// ts-to-zod writes for Record<string, never>.
func isFalse(s *schema.Schema) bool {
	if s.IsFalse() {
		return true
	}
	if len(s.Unknown) != 1 || s.Unknown[0] != "not" {
		return false
	}
	c := *s
	c.Unknown = nil
	if !c.IsTrue() {
		return false
	}
	return admitsAll(s.UnknownValue("not"))
}

// admitsAll reports whether the schema written as raw admits every value:
// true, or an object holding nothing but annotations.
func admitsAll(raw json.RawMessage) bool {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("true")) {
		return true
	}
	var v map[string]json.RawMessage
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	for k := range v {
		if !annotation[k] {
			return false
		}
	}
	return true
}

var annotation = map[string]bool{"description": true, "title": true, "$comment": true}

// harmless reports whether keyword kw of s, which the planner does not
// map, constrains nothing: propertyNames whose schema every string
// satisfies (object member names are strings), as schemas generated from
// TypeScript records write it ({"type": "string"}).
func harmless(s *schema.Schema, kw string) bool {
	if kw != "propertyNames" {
		return false
	}
	raw := s.UnknownValue(kw)
	if admitsAll(raw) {
		return true
	}
	var v map[string]json.RawMessage
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	for k, val := range v {
		if !annotation[k] && !(k == "type" && bytes.Equal(val, []byte(`"string"`))) {
			return false
		}
	}
	return true
}

// unmappable returns the first keyword of s the planner cannot honour,
// or "".
func unmappable(s *schema.Schema) string {
	for _, kw := range s.Unknown {
		if unsupported[kw] && !harmless(s, kw) && !(kw == "not" && isFalse(s)) {
			return kw
		}
	}
	return ""
}

// constStrings returns the values of s when s is a union of string
// constants and nothing else ({"anyOf": [{"type": "string", "const":
// "working"}, ...]}, as TypeScript string-literal unions are written):
// an enumeration in all but name, planned as one.
func constStrings(s *schema.Schema) ([]json.RawMessage, bool) {
	alts := s.AnyOf
	if len(alts) == 0 {
		alts = s.OneOf
	}
	if len(alts) == 0 || len(s.AnyOf) > 0 && len(s.OneOf) > 0 {
		return nil, false
	}
	c := *s
	c.AnyOf, c.OneOf, c.Types = nil, nil, nil
	if !c.IsTrue() || len(s.Types) > 1 || len(s.Types) == 1 && s.Types[0] != "string" {
		return nil, false
	}
	var vals []json.RawMessage
	for _, a := range alts {
		if a.Target != nil || !a.HasConst || jsonType(a.Const) != "string" || len(a.Types) > 1 || len(a.Types) == 1 && a.Types[0] != "string" {
			return nil, false
		}
		o := *a
		o.HasConst, o.Const, o.Types = false, nil, nil
		if !o.IsTrue() {
			return nil, false
		}
		for _, v := range vals {
			if bytes.Equal(v, a.Const) {
				return nil, false // oneOf of equal constants admits neither
			}
		}
		vals = append(vals, a.Const)
	}
	return vals, true
}

// asEnum is the enumeration a union of string constants means.
func asEnum(s *schema.Schema, vals []json.RawMessage) *schema.Schema {
	return &schema.Schema{Pointer: s.Pointer, Description: s.Description, Title: s.Title, Types: []string{"string"}, Enum: vals}
}

// findDefEnums records the definitions that are string enumerations
// (written with enum or as a union of constants), by their values: an
// inline enumeration of the same values is that definition's type.
func (p *planner) findDefEnums() {
	p.defEnums = map[string]*Type{}
	for _, d := range p.doc.Defs {
		s := d.Schema
		if s.Target != nil {
			continue
		}
		enum := s.Enum
		if vals, ok := constStrings(s); ok {
			enum = vals
		} else if len(inferTypes(s)) != 1 || inferTypes(s)[0] != "string" || len(s.AnyOf)+len(s.OneOf)+len(s.AllOf) > 0 {
			continue
		}
		var values []string
		for _, e := range enum {
			var v string
			if json.Unmarshal(e, &v) != nil {
				values = nil
				break
			}
			values = append(values, v)
		}
		if len(values) == 0 {
			continue
		}
		key := strings.Join(values, "\x00")
		if p.defEnums[key] == nil {
			p.defEnums[key] = p.defTypes[d.Name]
		}
	}
}

// distribute merges the object keywords that sit beside a union's
// members into each member: allOf [Result, anyOf [A, B]] flattens to an
// object declaring Result's members next to anyOf [A, B], which holds
// exactly when anyOf [Result ∧ A, Result ∧ B] does (GetTaskResult). A
// union without such siblings keeps its members as they are.
func (p *planner) distribute(s *schema.Schema, members []*schema.Schema) ([]*schema.Schema, error) {
	if len(s.Properties) == 0 && len(s.Required) == 0 && s.AdditionalProperties == nil {
		return members, nil
	}
	sib := &schema.Schema{Pointer: s.Pointer, Properties: s.Properties, Required: s.Required, AdditionalProperties: s.AdditionalProperties}
	if slices.Contains(s.Types, "object") {
		sib.Types = []string{"object"}
	}
	out := make([]*schema.Schema, len(members))
	for i, m := range members {
		merged, err := p.doc.Flatten(&schema.Schema{Pointer: m.Pointer, AllOf: []*schema.Schema{m, sib}})
		if err != nil {
			return nil, err
		}
		out[i] = merged
	}
	return out, nil
}
