package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"

	"github.com/atombender/go-jsonschema/pkg/schemas"
)

// Document is a loaded schema document.
type Document struct {
	File    string
	Dialect string // "$schema" of the root
	// DefsKeyword is "$defs" (2020-12) or "definitions" (draft-07).
	DefsKeyword string
	Defs        []*Def

	byName    map[string]*Def
	byPointer map[string]*Schema
}

// Def is a named definition.
type Def struct {
	Name   string
	Schema *Schema
	// Raw is the definition as written, compact (for comparing definitions
	// of two documents, mcpgen -reuse).
	Raw json.RawMessage
}

// Def returns the definition named name, or nil.
func (d *Document) Def(name string) *Def { return d.byName[name] }

// The JSON Schema dialects the loader reads: the MCP schemas up to
// 2025-06-18 are draft-07, later ones 2020-12. A document without $schema
// is read as 2020-12.
const (
	Draft07     = "http://json-schema.org/draft-07/schema#"
	Draft202012 = "https://json-schema.org/draft/2020-12/schema"
)

// knownDialect reports whether uri names draft-07 or 2020-12, with or
// without the empty fragment and in either scheme.
func knownDialect(uri string) bool {
	u := strings.TrimSuffix(uri, "#")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	return u == "json-schema.org/draft-07/schema" || u == "json-schema.org/draft/2020-12/schema"
}

// LoadFile reads and loads the schema document at path.
func LoadFile(path string) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot read: " + errText(err)}
	}
	return Load(path, data)
}

func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// Load parses data (named file in errors) and resolves every $ref.
func Load(file string, data []byte) (*Document, error) {
	root, err := parseJSON(file, data)
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, &Error{File: file, Msg: "a schema document must be a JSON object"}
	}
	// Keyword values come from pkg/schemas (see the package comment).
	typed, typedErr := schemas.FromJSONReader(bytes.NewReader(data))
	if typedErr != nil {
		// pkg/schemas names no location. Build from the ordered parse
		// alone, whose checks name the JSON pointer of the offending
		// keyword, and report pkg/schemas' own message only when they pass.
		typed = &schemas.Schema{}
	}
	for _, m := range root.members {
		for _, kw := range []string{"$defs", "definitions"} {
			if m.key != kw && strings.EqualFold(m.key, kw) {
				return nil, &Error{File: file, Pointer: m.val.ptr, Msg: fmt.Sprintf("member %q differs from the keyword %q only in case; the schema is ambiguous to this generator", m.key, kw)}
			}
		}
	}
	doc := &Document{File: file, byName: map[string]*Def{}, byPointer: map[string]*Schema{}}
	if v := root.get("$schema"); v != nil {
		if v.kind != '"' {
			return nil, &Error{File: file, Pointer: "/$schema", Msg: "$schema must be a string naming the JSON Schema dialect"}
		}
		if !knownDialect(v.str) {
			return nil, &Error{File: file, Pointer: "/$schema", Msg: fmt.Sprintf("unknown JSON Schema dialect %q: mcpgen reads draft-07 (%s) and 2020-12 (%s) documents", v.str, Draft07, Draft202012)}
		}
		doc.Dialect = v.str
	}
	b := &builder{doc: doc}
	for _, kw := range []string{"$defs", "definitions"} {
		defs := root.get(kw)
		if defs == nil {
			continue
		}
		if defs.kind != '{' {
			return nil, &Error{File: file, Pointer: "/" + kw, Msg: kw + " must be an object"}
		}
		if doc.DefsKeyword != "" {
			return nil, &Error{File: file, Pointer: "/" + kw, Msg: "both $defs and definitions are present"}
		}
		doc.DefsKeyword = kw
		for _, m := range defs.members {
			s, err := b.build(m.val, typed.Definitions[m.key])
			if err != nil {
				return nil, err
			}
			d := &Def{Name: m.key, Schema: s, Raw: m.val.raw}
			doc.Defs = append(doc.Defs, d)
			doc.byName[m.key] = d
		}
	}
	if typedErr != nil {
		return nil, &Error{File: file, Msg: "cannot read schema keywords: " + typedErr.Error()}
	}
	if doc.DefsKeyword == "" {
		return nil, &Error{File: file, Msg: "no $defs or definitions: nothing to generate"}
	}
	for _, s := range b.refs {
		if err := doc.resolve(s); err != nil {
			return nil, err
		}
	}
	for _, s := range b.refs {
		if err := doc.checkCycle(s); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

type builder struct {
	doc  *Document
	refs []*Schema
}

// known lists the keywords modelled by Schema (plus annotations ignored on
// purpose); anything else lands in Schema.Unknown.
var known = map[string]bool{
	"$ref": true, "type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "anyOf": true, "oneOf": true, "allOf": true, "const": true, "enum": true,
	"format": true, "pattern": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
	"exclusiveMaximum": true, "multipleOf": true, "minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"title": true, "description": true, "default": true, "examples": true, "$schema": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true, "$id": true,
}

func (b *builder) errorf(ptr, format string, args ...any) error {
	return &Error{File: b.doc.File, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}

// build turns the ordered value v into a Schema; t is the same node as read
// by pkg/schemas (nil where it has none).
func (b *builder) build(v *value, t *schemas.Type) (*Schema, error) {
	s := &Schema{Pointer: v.ptr}
	b.doc.byPointer[v.ptr] = s
	if v.kind == 'b' {
		s.Bool = &v.boolean
		return s, nil
	}
	if v.kind != '{' {
		return nil, b.errorf(v.ptr, "a schema must be an object or a boolean")
	}
	if t == nil {
		t = &schemas.Type{}
	}
	for _, m := range v.members {
		if !known[m.key] {
			s.Unknown = append(s.Unknown, m.key)
			if s.unknownRaw == nil {
				s.unknownRaw = map[string]json.RawMessage{}
			}
			s.unknownRaw[m.key] = m.val.raw
		}
	}
	if err := b.checkKinds(v); err != nil {
		return nil, err
	}
	if err := b.checkNumbers(v); err != nil {
		return nil, err
	}
	var err error
	// Scalar keywords from pkg/schemas, gated on the exact keyword.
	if v.get("$ref") != nil {
		if v.get("$ref").kind != '"' {
			return nil, b.errorf(v.ptr+"/$ref", "$ref must be a string")
		}
		s.Ref = t.Ref
		b.refs = append(b.refs, s)
	}
	if tv := v.get("type"); tv != nil {
		if tv.kind != '"' && tv.kind != '[' {
			return nil, b.errorf(v.ptr+"/type", "type must be a string or an array of strings")
		}
		s.Types = append([]string(nil), t.Type...)
	}
	if rv := v.get("required"); rv != nil {
		if rv.kind != '[' {
			return nil, b.errorf(v.ptr+"/required", "required must be an array of strings")
		}
		s.Required = append([]string(nil), t.Required...)
	}
	if v.get("format") != nil {
		s.Format = t.Format
	}
	if v.get("pattern") != nil {
		s.Pattern = t.Pattern
	}
	if v.get("description") != nil {
		s.Description = t.Description
	}
	if v.get("title") != nil {
		s.Title = t.Title
	}
	if v.get("minimum") != nil {
		s.Minimum = t.Minimum
	}
	if v.get("maximum") != nil {
		s.Maximum = t.Maximum
	}
	// Presence-sensitive keywords from the ordered parse.
	if s.ExclusiveMinimum, err = b.number(v, "exclusiveMinimum"); err != nil {
		return nil, err
	}
	if s.ExclusiveMaximum, err = b.number(v, "exclusiveMaximum"); err != nil {
		return nil, err
	}
	if s.MultipleOf, err = b.number(v, "multipleOf"); err != nil {
		return nil, err
	}
	if s.MultipleOf != nil && !(*s.MultipleOf > 0) {
		return nil, b.errorf(v.ptr+"/multipleOf", "multipleOf must be greater than 0")
	}
	for _, c := range []struct {
		kw  string
		dst **int
	}{{"minLength", &s.MinLength}, {"maxLength", &s.MaxLength}, {"minItems", &s.MinItems}, {"maxItems", &s.MaxItems}} {
		if *c.dst, err = b.count(v, c.kw); err != nil {
			return nil, err
		}
	}
	if cv := v.get("const"); cv != nil {
		s.HasConst, s.Const = true, cv.raw
	}
	if ev := v.get("enum"); ev != nil {
		if ev.kind != '[' {
			return nil, b.errorf(ev.ptr, "enum must be an array")
		}
		for _, e := range ev.elems {
			s.Enum = append(s.Enum, e.raw)
		}
	}
	if dv := v.get("default"); dv != nil {
		s.Default = dv.raw
	}
	// Subschemas, in declaration order.
	if pv := v.get("properties"); pv != nil {
		if pv.kind != '{' {
			return nil, b.errorf(pv.ptr, "properties must be an object")
		}
		for _, m := range pv.members {
			ps, err := b.build(m.val, t.Properties[m.key])
			if err != nil {
				return nil, err
			}
			s.Properties = append(s.Properties, &Property{Name: m.key, Schema: ps})
		}
	}
	if av := v.get("additionalProperties"); av != nil {
		if s.AdditionalProperties, err = b.build(av, t.AdditionalProperties); err != nil {
			return nil, err
		}
	}
	if iv := v.get("items"); iv != nil {
		if iv.kind == '[' {
			return nil, b.errorf(iv.ptr, "tuple-form items cannot be mapped to a Go type")
		}
		if s.Items, err = b.build(iv, t.Items); err != nil {
			return nil, err
		}
	}
	for _, c := range []struct {
		kw    string
		dst   *[]*Schema
		typed []*schemas.Type
	}{{"anyOf", &s.AnyOf, t.AnyOf}, {"oneOf", &s.OneOf, t.OneOf}, {"allOf", &s.AllOf, t.AllOf}} {
		kw, dst, typedList := c.kw, c.dst, c.typed
		lv := v.get(kw)
		if lv == nil {
			continue
		}
		if lv.kind != '[' || len(lv.elems) == 0 {
			return nil, b.errorf(lv.ptr, "%s must be a non-empty array of schemas", kw)
		}
		for i, e := range lv.elems {
			var te *schemas.Type
			if i < len(typedList) {
				te = typedList[i]
			}
			es, err := b.build(e, te)
			if err != nil {
				return nil, err
			}
			*dst = append(*dst, es)
		}
	}
	// Nested definitions are addressable by $ref but not generated.
	for _, kw := range []string{"$defs", "definitions"} {
		if dv := v.get(kw); dv != nil && dv.ptr != "/"+kw && dv.kind == '{' {
			for _, m := range dv.members {
				var te *schemas.Type
				if t.Definitions != nil {
					te = t.Definitions[m.key]
				}
				if _, err := b.build(m.val, te); err != nil {
					return nil, err
				}
			}
		}
	}
	return s, nil
}

// keywordKinds are the JSON kinds the scalar keywords this package reads
// must have ('s' string, 'n' number, 'S' array of strings, 'T' string or
// array of strings). Checking them on the ordered parse lets errors name
// the keyword's JSON pointer.
var keywordKinds = map[string]byte{
	"$ref": 's', "format": 's', "pattern": 's', "title": 's', "description": 's',
	"minimum": 'n', "maximum": 'n', "exclusiveMinimum": 'n', "exclusiveMaximum": 'n', "multipleOf": 'n',
	"minLength": 'n', "maxLength": 'n', "minItems": 'n', "maxItems": 'n',
	"required": 'S', "type": 'T',
}

// decodedKeywords are the keywords pkg/schemas decodes into its model.
// It decodes with encoding/json, which matches member names
// case-insensitively: a member "Type" or "REQUIRED" on a schema node would
// silently replace the value of "type" or "required". JSON Schema ignores
// such members, so the result would differ from the schema's meaning;
// such a node is refused (see checkKinds).
var decodedKeywords = []string{
	"$ref", "$id", "id", "$schema", "$comment", "$defs", "definitions", "type", "properties",
	"required", "additionalProperties", "patternProperties", "items", "additionalItems",
	"anyOf", "oneOf", "allOf", "not", "const", "enum", "format", "pattern", "minimum", "maximum",
	"exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems",
	"maxItems", "uniqueItems", "minProperties", "maxProperties", "dependencies", "title",
	"description", "default", "examples", "readOnly", "writeOnly", "deprecated", "contentEncoding",
	"contentMediaType", "if", "then", "else", "goJSONSchema",
}

func (b *builder) checkKinds(v *value) error {
	for _, m := range v.members {
		for _, kw := range decodedKeywords {
			if m.key != kw && strings.EqualFold(m.key, kw) {
				return b.errorf(m.val.ptr, "member %q differs from the keyword %q only in case; the schema is ambiguous to this generator", m.key, kw)
			}
		}
	}
	for _, m := range v.members {
		want, ok := keywordKinds[m.key]
		if !ok {
			continue
		}
		mv := m.val
		switch want {
		case 's':
			if mv.kind != '"' {
				return b.errorf(mv.ptr, "%s must be a string", m.key)
			}
		case 'n':
			if mv.kind != 'n' {
				return b.errorf(mv.ptr, "%s must be a number", m.key)
			}
		case 'S', 'T':
			if want == 'T' && mv.kind == '"' {
				continue
			}
			ok := mv.kind == '['
			for _, e := range mv.elems {
				ok = ok && e.kind == '"'
			}
			if !ok {
				if want == 'T' {
					return b.errorf(mv.ptr, "type must be a string or an array of strings")
				}
				return b.errorf(mv.ptr, "%s must be an array of strings", m.key)
			}
		}
	}
	return nil
}

// numericKeywords are the keywords read as float64s.
var numericKeywords = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}

// checkNumbers refuses a numeric keyword whose value no float64 holds
// exactly: the generator compares values against the float64 (as the
// decimal it stands for, its shortest one), so 0.10000000000000001, read
// as 0.1, or 1e-400, read as 0, would silently be another bound.
func (b *builder) checkNumbers(v *value) error {
	for _, kw := range numericKeywords {
		nv := v.get(kw)
		if nv == nil || nv.kind != 'n' {
			continue
		}
		f, err := nv.num.Float64()
		if err != nil || !exactFloat(string(nv.num), f) {
			return b.errorf(nv.ptr, "%s %s cannot be held exactly by a float64 (it would be read as %v)", kw, nv.num, f)
		}
	}
	return nil
}

// exactFloat reports whether the JSON number s, parsed as f, equals the
// shortest decimal of f.
func exactFloat(s string, f float64) bool {
	if f == 0 {
		// Zero in any spelling, but not a number that underflowed to zero.
		mant, _, _ := strings.Cut(strings.ToLower(s), "e")
		return strings.Trim(mant, "-0.") == ""
	}
	if math.IsInf(f, 0) {
		return false
	}
	x, ok := new(big.Rat).SetString(s) // f is finite and not 0: s is no huge exponent
	y, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return ok && x.Cmp(y) == 0
}

func (b *builder) number(v *value, kw string) (*float64, error) {
	nv := v.get(kw)
	if nv == nil {
		return nil, nil
	}
	if nv.kind != 'n' {
		return nil, b.errorf(nv.ptr, "%s must be a number", kw)
	}
	f, err := nv.num.Float64()
	if err != nil {
		return nil, b.errorf(nv.ptr, "%s: %v", kw, err)
	}
	return &f, nil
}

func (b *builder) count(v *value, kw string) (*int, error) {
	nv := v.get(kw)
	if nv == nil {
		return nil, nil
	}
	n, err := nv.num.Int64()
	if nv.kind != 'n' || err != nil || n < 0 {
		return nil, b.errorf(nv.ptr, "%s must be a non-negative integer", kw)
	}
	i := int(n)
	return &i, nil
}

// resolve links a $ref to its target node.
func (d *Document) resolve(s *Schema) error {
	rt, err := schemas.GetRefType(s.Ref)
	if err != nil || rt != schemas.RefTypeFile || !strings.HasPrefix(s.Ref, "#") {
		return &Error{File: d.File, Pointer: s.Pointer + "/$ref", Msg: fmt.Sprintf("$ref %q points outside this document; only local references are supported", s.Ref)}
	}
	ptr := s.Ref[1:]
	parts := strings.Split(ptr, "/")
	for i, p := range parts {
		parts[i] = escapePointer(unescapePointer(p))
	}
	target := d.byPointer[strings.Join(parts, "/")]
	if target == nil {
		return &Error{File: d.File, Pointer: s.Pointer + "/$ref", Msg: fmt.Sprintf("$ref %q resolves nowhere", s.Ref)}
	}
	s.Target = target
	return nil
}

// checkCycle rejects a $ref chain that never reaches a schema with content.
func (d *Document) checkCycle(s *Schema) error {
	seen := map[*Schema]bool{}
	for q := s; q.Target != nil; q = q.Target {
		if seen[q] {
			return &Error{File: d.File, Pointer: s.Pointer + "/$ref", Msg: "$ref cycle without a schema in between"}
		}
		seen[q] = true
	}
	return nil
}

// MarshalConst is a helper for callers: the const value decoded into v.
func (s *Schema) MarshalConst(v any) error { return json.Unmarshal(s.Const, v) }
