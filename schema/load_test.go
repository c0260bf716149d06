package schema

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustLoad(t *testing.T, src string) *Document {
	t.Helper()
	doc, err := Load("s.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// Definitions and properties keep declaration order (not sorted), and
// every node knows its JSON pointer.
func TestDeclarationOrderAndPointers(t *testing.T) {
	doc := mustLoad(t, `{"$defs": {
		"Zeta": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer"}, "m/n": {"type": "boolean"}, "t~": {}}},
		"Alpha": {"type": "string"},
		"Mid": {"$ref": "#/$defs/Zeta/properties/m~1n"},
		"Tilde": {"$ref": "#/$defs/Zeta/properties/t~0"}
	}}`)
	var names []string
	for _, d := range doc.Defs {
		names = append(names, d.Name)
	}
	if diff := cmp.Diff([]string{"Zeta", "Alpha", "Mid", "Tilde"}, names); diff != "" {
		t.Fatalf("definition order (-want +got):\n%s", diff)
	}
	z := doc.Def("Zeta").Schema
	var props, ptrs []string
	for _, p := range z.Properties {
		props = append(props, p.Name)
		ptrs = append(ptrs, p.Schema.Pointer)
	}
	if diff := cmp.Diff([]string{"z", "a", "m/n", "t~"}, props); diff != "" {
		t.Fatalf("property order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/$defs/Zeta/properties/z", "/$defs/Zeta/properties/a", "/$defs/Zeta/properties/m~1n", "/$defs/Zeta/properties/t~0"}, ptrs); diff != "" {
		t.Fatalf("pointers (-want +got):\n%s", diff)
	}
	// $ref with escaped pointer segments resolves to the right node.
	if got := doc.Def("Mid").Schema.Resolve(); got != z.Property("m/n") || !got.HasType("boolean") {
		t.Fatalf("Mid resolves to %+v", got)
	}
	if got := doc.Def("Tilde").Schema.Resolve(); got != z.Property("t~") {
		t.Fatalf("Tilde resolves to %+v", got)
	}
	if doc.Def("Nope") != nil || doc.DefsKeyword != "$defs" {
		t.Fatal("Def or DefsKeyword")
	}
}

// Presence-sensitive keywords: const null is a const; maxLength 0 is a
// bound; absence is absence.
func TestPresence(t *testing.T) {
	doc := mustLoad(t, `{"$defs": {
		"Null": {"const": null},
		"Zero": {"type": "string", "maxLength": 0, "minItems": 0},
		"None": {"type": "string"},
		"Text": {"type": "string", "const": "text", "enum": ["text", "image"], "default": "x", "description": "d", "title": "T", "format": "uri", "pattern": "^a", "minimum": -1.5, "exclusiveMaximum": 3}
	}}`)
	n := doc.Def("Null").Schema
	if !n.HasConst || string(n.Const) != "null" {
		t.Fatalf("const null: %v %s", n.HasConst, n.Const)
	}
	z := doc.Def("Zero").Schema
	if z.MaxLength == nil || *z.MaxLength != 0 || z.MinItems == nil || *z.MinItems != 0 {
		t.Fatal("maxLength 0 / minItems 0 lost")
	}
	none := doc.Def("None").Schema
	if none.HasConst || none.MaxLength != nil || none.MinLength != nil || none.Minimum != nil {
		t.Fatal("absent keywords became present")
	}
	x := doc.Def("Text").Schema
	if string(x.Const) != `"text"` || len(x.Enum) != 2 || string(x.Enum[1]) != `"image"` || string(x.Default) != `"x"` ||
		x.Description != "d" || x.Title != "T" || x.Format != "uri" || x.Pattern != "^a" || *x.Minimum != -1.5 || *x.ExclusiveMaximum != 3 {
		t.Fatalf("keywords: %+v", x)
	}
	if !none.HasType("string") || none.HasType("integer") {
		t.Fatal("HasType")
	}
}

// multipleOf is read (a number greater than 0), merged by allOf when both
// sides agree, and makes a schema more than "true".
func TestMultipleOf(t *testing.T) {
	doc := mustLoad(t, `{"$defs": {
		"Cents": {"type": "number", "multipleOf": 0.01},
		"Same": {"allOf": [{"$ref": "#/$defs/Cents"}, {"multipleOf": 0.01}]}
	}}`)
	c := doc.Def("Cents").Schema
	if c.MultipleOf == nil || *c.MultipleOf != 0.01 || len(c.Unknown) != 0 {
		t.Fatalf("multipleOf: %v, unknown %v", c.MultipleOf, c.Unknown)
	}
	if (&Schema{MultipleOf: c.MultipleOf}).IsTrue() {
		t.Fatal("{multipleOf} is not true")
	}
	if m, err := doc.Flatten(doc.Def("Same").Schema); err != nil || m.MultipleOf == nil || *m.MultipleOf != 0.01 {
		t.Fatalf("allOf: %v %v", m, err)
	}
	for _, bad := range []string{`{"$defs": {"A": {"multipleOf": 0}}}`, `{"$defs": {"A": {"multipleOf": -2}}}`, `{"$defs": {"A": {"multipleOf": "2"}}}`} {
		if _, err := Load("s.json", []byte(bad)); err == nil {
			t.Errorf("%s: loaded", bad)
		}
	}
	// Numeric keywords must be exact float64s, or the bound would change.
	for _, tc := range []struct{ schema, want string }{
		{`{"$defs": {"A": {"minimum": 0.10000000000000001}}}`, "/$defs/A/minimum: minimum 0.10000000000000001 cannot be held exactly by a float64 (it would be read as 0.1)"},
		{`{"$defs": {"A": {"maximum": 9007199254740993}}}`, "maximum 9007199254740993 cannot be held exactly"},
		{`{"$defs": {"A": {"exclusiveMinimum": 1e-400}}}`, "exclusiveMinimum 1e-400 cannot be held exactly by a float64 (it would be read as 0)"},
		{`{"$defs": {"A": {"exclusiveMaximum": 1e400}}}`, "exclusiveMaximum 1e400 cannot be held exactly"},
		{`{"$defs": {"A": {"multipleOf": 0.30000000000000001}}}`, "multipleOf 0.30000000000000001 cannot be held exactly"},
	} {
		if _, err := Load("s.json", []byte(tc.schema)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.schema, err, tc.want)
		}
	}
	for _, ok := range []string{"0", "-0.0", "0e5", "1.5", "0.1", "1e-3", "5e-324", "1.7976931348623157e308", "9007199254740992", "100.000"} {
		if _, err := Load("s.json", []byte(`{"$defs": {"A": {"minimum": `+ok+`}}}`)); err != nil {
			t.Errorf("minimum %s: %v", ok, err)
		}
	}
	two, err := Load("s.json", []byte(`{"$defs": {"A": {"allOf": [{"multipleOf": 2}, {"multipleOf": 3}]}}}`))
	if err == nil {
		_, err = two.Flatten(two.Def("A").Schema)
	}
	if err == nil || !strings.Contains(err.Error(), "multipleOf 2 and 3") {
		t.Errorf("two multipleOf: %v", err)
	}
}

// Keywords the package does not model are listed; boolean schemas and
// true/false behave.
func TestUnknownAndBooleanSchemas(t *testing.T) {
	doc := mustLoad(t, `{"$defs": {
		"A": {"type": "object", "not": {}, "x-vendor": 1, "propertyNames": {}, "examples": [1], "$comment": "c", "additionalProperties": false},
		"T": true,
		"F": false,
		"Empty": {"description": "anything"}
	}}`)
	if diff := cmp.Diff([]string{"not", "x-vendor", "propertyNames"}, doc.Def("A").Schema.Unknown); diff != "" {
		t.Fatalf("Unknown (-want +got):\n%s", diff)
	}
	if !doc.Def("A").Schema.AdditionalProperties.IsFalse() {
		t.Fatal("additionalProperties false")
	}
	if !doc.Def("T").Schema.IsTrue() || !doc.Def("F").Schema.IsFalse() || !doc.Def("Empty").Schema.IsTrue() || doc.Def("A").Schema.IsTrue() {
		t.Fatal("IsTrue/IsFalse")
	}
}

// draft-07 documents use "definitions".
func TestDraft07Definitions(t *testing.T) {
	doc := mustLoad(t, `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"A": {"type": "object", "properties": {"b": {"$ref": "#/definitions/B"}}}, "B": {"type": "integer"}}}`)
	if doc.DefsKeyword != "definitions" || doc.Dialect != "http://json-schema.org/draft-07/schema#" {
		t.Fatalf("%q %q", doc.DefsKeyword, doc.Dialect)
	}
	if b := doc.Def("A").Schema.Property("b").Resolve(); b != doc.Def("B").Schema {
		t.Fatal("ref into definitions")
	}
}

// Every load error names the file and the JSON pointer of the problem.
func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{"$defs": {"A": {"type": "string",}}}`, "s.json: /$defs/A: line 1: invalid JSON"},
		{"{\n\"$defs\": {\n\"A\": {\"type\": \"string\"},\n\"A\": {}}}", `s.json: /$defs/A: line 4: duplicate member "A"`},
		{`{"$defs": {"A": {"$ref": "#/$defs/B"}}}`, `s.json: /$defs/A/$ref: $ref "#/$defs/B" resolves nowhere`},
		{`{"$defs": {"A": {"$ref": "other.json#/x"}}}`, `s.json: /$defs/A/$ref: $ref "other.json#/x" points outside this document`},
		{`{"$defs": {"A": {"$ref": "#/$defs/A"}}}`, "s.json: /$defs/A/$ref: $ref cycle without a schema in between"},
		{`{"$defs": {"A": {"items": [{}]}}}`, "s.json: /$defs/A/items: tuple-form items cannot be mapped to a Go type"},
		{`{"$defs": {"A": {"anyOf": []}}}`, "s.json: /$defs/A/anyOf: anyOf must be a non-empty array of schemas"},
		{`{"$defs": {"A": {"type": ["string", 1]}}}`, "s.json: /$defs/A/type: type must be a string or an array of strings"},
		{`{"$defs": {"A": {"maxLength": -1}}}`, "s.json: /$defs/A/maxLength: maxLength must be a non-negative integer"},
		{`{"$defs": {"A": {"maxLength": 1.5}}}`, "s.json: /$defs/A/maxLength: maxLength must be a non-negative integer"},
		{`{"$defs": {"A": {"minimum": "0"}}}`, "s.json: /$defs/A/minimum: minimum must be a number"},
		{`{"$defs": {"A": {"properties": {"x": 5}}}}`, "s.json: /$defs/A/properties/x: a schema must be an object or a boolean"},
		{`{"$defs": {"A": {}}, "definitions": {}}`, "s.json: /definitions: both $defs and definitions are present"},
		{`{"$defs": 1}`, "s.json: /$defs: $defs must be an object"},
		{`{}`, "s.json: /: no $defs or definitions"},
		{`"x"`, "s.json: /: a schema document must be a JSON object"},
		{`{"$defs": {}} x`, "s.json: /: line 1: unexpected data after the JSON document"},
		{`{"$defs": {"A": {"type": "string"`, "s.json: /$defs/A: invalid JSON: unexpected end of input"},
	} {
		_, err := Load("s.json", []byte(tc.src))
		var se *Error
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
	_, err := LoadFile(filepath.Join(t.TempDir(), "missing.json"))
	if err == nil || !strings.HasSuffix(err.Error(), "missing.json: /: cannot read: no such file or directory") {
		t.Errorf("LoadFile: %v", err)
	}
}

// encoding/json (inside pkg/schemas) matches names case-insensitively, so
// a member differing from a keyword only in case would replace the
// keyword's value; JSON Schema ignores such members. Such schemas are
// refused rather than misread.
func TestCaseVariantKeywordsRefused(t *testing.T) {
	for _, tc := range []struct{ src, ptr string }{
		{`{"$defs": {"A": {"type": "object", "properties": {"a": {}}, "required": ["a"], "Required": ["b"]}}}`, "/$defs/A/Required"},
		{`{"$defs": {"A": {"Type": "integer", "type": "string"}}}`, "/$defs/A/Type"},
		{`{"$defs": {"A": {"$ref": "#/$defs/B", "$REF": "#/$defs/C"}, "B": {}, "C": {}}}`, "/$defs/A/$REF"},
		{`{"$defs": {"A": {"type": "object", "properties": {"x": {"type": "string", "FORMAT": "uri"}}}}}`, "/$defs/A/properties/x/FORMAT"},
		{`{"$defs": {"A": {"type": "object", "properties": {"x": {}}, "Properties": {"x": {"type": "integer"}}}}}`, "/$defs/A/Properties"},
		{`{"$defs": {"A": {}}, "$DEFS": {"A": {"type": "integer"}}}`, "/$DEFS"},
	} {
		_, err := Load("s.json", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), "s.json: "+tc.ptr+": member") || !strings.Contains(err.Error(), "only in case") {
			t.Errorf("%s: %v", tc.src, err)
		}
	}
	// Property names are data, not keywords: "Type" is a fine member name.
	doc := mustLoad(t, `{"$defs": {"A": {"type": "object", "properties": {"Type": {"type": "integer"}, "type": {"type": "string"}}, "required": ["Type"]}}}`)
	a := doc.Def("A").Schema
	if !a.Property("Type").HasType("integer") || !a.Property("type").HasType("string") || !slices.Equal(a.Required, []string{"Type"}) {
		t.Fatalf("%+v", a)
	}
}

// fingerprint renders a schema tree (following $ref targets once) so that
// any change to a shared node shows.
func fingerprint(s *Schema) string {
	var b strings.Builder
	seen := map[*Schema]bool{}
	var walk func(s *Schema, indent string)
	walk = func(s *Schema, indent string) {
		if s == nil {
			b.WriteString(indent + "nil\n")
			return
		}
		fmt.Fprintf(&b, "%s%p %s ref=%q types=%v req=%v const=%v:%s enum=%q fmt=%q pat=%q min=%v max=%v xmin=%v xmax=%v len=%v/%v items=%v/%v desc=%q unknown=%v bool=%v\n",
			indent, s, s.Pointer, s.Ref, s.Types, s.Required, s.HasConst, s.Const, s.Enum, s.Format, s.Pattern,
			p(s.Minimum), p(s.Maximum), p(s.ExclusiveMinimum), p(s.ExclusiveMaximum), pi(s.MinLength), pi(s.MaxLength), pi(s.MinItems), pi(s.MaxItems),
			s.Description, s.Unknown, s.Bool)
		if seen[s] {
			return
		}
		seen[s] = true
		for _, pr := range s.Properties {
			b.WriteString(indent + " ." + pr.Name + "\n")
			walk(pr.Schema, indent+"  ")
		}
		for _, l := range [][]*Schema{s.AnyOf, s.OneOf, s.AllOf} {
			for _, m := range l {
				walk(m, indent+"  |")
			}
		}
		if s.AdditionalProperties != nil {
			walk(s.AdditionalProperties, indent+"  ap")
		}
		if s.Items != nil {
			walk(s.Items, indent+"  it")
		}
		if s.Target != nil {
			walk(s.Target, indent+"  ->")
		}
	}
	walk(s, "")
	return b.String()
}

func p(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func pi(i *int) any {
	if i == nil {
		return nil
	}
	return *i
}

func allFingerprints(doc *Document) string {
	var out []string
	for _, d := range doc.Defs {
		out = append(out, d.Name+"\n"+fingerprint(d.Schema))
	}
	return strings.Join(out, "\n")
}

// allOf merges into new nodes: the merged error object fixes code to the
// const and keeps Error's other members, while Error (shared by other
// definitions) is unchanged, node for node.
func TestFlattenDoesNotMutateSharedDefinitions(t *testing.T) {
	doc := mustLoad(t, `{"$defs": {
		"Error": {"type": "object", "properties": {"code": {"type": "integer", "description": "The code."}, "message": {"type": "string"}, "data": {}}, "required": ["code", "message"]},
		"Mismatch": {"type": "object", "properties": {"error": {"allOf": [{"$ref": "#/$defs/Error"}, {"type": "object", "properties": {"code": {"type": "integer", "const": -32020}}, "required": ["code"]}]}}},
		"Narrow": {"allOf": [{"$ref": "#/$defs/Error"}, {"properties": {"message": {"maxLength": 10}, "extra": {"type": "boolean"}}, "required": ["extra"]}]},
		"Plain": {"type": "object", "properties": {"error": {"$ref": "#/$defs/Error"}}}
	}}`)
	before := allFingerprints(doc)
	errDef := doc.Def("Error").Schema
	codeBefore := errDef.Property("code")

	merged, err := doc.Flatten(doc.Def("Mismatch").Schema.Property("error"))
	if err != nil {
		t.Fatal(err)
	}
	code := merged.Property("code")
	if !code.HasConst || string(code.Const) != "-32020" || !code.HasType("integer") || code.Description != "The code." {
		t.Fatalf("merged code: %+v", code)
	}
	if merged.Property("message") == nil || merged.Property("data") == nil {
		t.Fatal("merged object lost Error's members")
	}
	if slices.Index(merged.Required, "code") < 0 || slices.Index(merged.Required, "message") < 0 || len(merged.Required) != 2 {
		t.Fatalf("merged required %v", merged.Required)
	}
	narrow, err := doc.Flatten(doc.Def("Narrow").Schema)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, pr := range narrow.Properties {
		names = append(names, pr.Name)
	}
	sort.Strings(names)
	if diff := cmp.Diff([]string{"code", "data", "extra", "message"}, names); diff != "" {
		t.Fatalf("Narrow members (-want +got):\n%s", diff)
	}
	if m := narrow.Property("message"); m.MaxLength == nil || *m.MaxLength != 10 || !m.HasType("string") {
		t.Fatalf("Narrow.message %+v", m)
	}
	// Nothing reachable from any definition changed, Error included.
	if diff := cmp.Diff(before, allFingerprints(doc)); diff != "" {
		t.Fatalf("Flatten changed shared nodes (-before +after):\n%s", diff)
	}
	if errDef.Property("code") != codeBefore || codeBefore.HasConst || len(errDef.Properties) != 3 || len(errDef.Required) != 2 {
		t.Fatal("Error was mutated")
	}
	// Flattening again gives an equal result (no state carried over).
	again, err := doc.Flatten(doc.Def("Mismatch").Schema.Property("error"))
	if err != nil || fingerprintNoAddr(again) != fingerprintNoAddr(merged) {
		t.Fatalf("second Flatten differs: %v", err)
	}
	// A node without allOf is returned as is.
	if s, _ := doc.Flatten(errDef); s != errDef {
		t.Fatal("Flatten copied a node without allOf")
	}
}

func fingerprintNoAddr(s *Schema) string {
	lines := strings.Split(fingerprint(s), "\n")
	for i, l := range lines {
		if j := strings.Index(l, "0x"); j >= 0 {
			if k := strings.IndexByte(l[j:], ' '); k >= 0 {
				lines[i] = l[:j] + l[j+k:]
			}
		}
	}
	return strings.Join(lines, "\n")
}

// Merge rules: types intersect (number ∩ integer = integer), bounds take
// the stricter value, enums intersect, conflicting consts fail.
func TestFlattenMergeRules(t *testing.T) {
	doc := mustLoad(t, `{"$defs": {
		"Ints": {"allOf": [{"type": ["number", "string"], "minimum": 0, "maximum": 10}, {"type": "integer", "minimum": 2, "maximum": 20}]}, 
		"Enums": {"allOf": [{"enum": ["a", "b", "c"]}, {"enum": ["c", "b", "x"]}]},
		"Consts": {"allOf": [{"const": 1}, {"const": 2}]},
		"NoEnum": {"allOf": [{"enum": ["a"]}, {"enum": ["b"]}]},
		"WithFalse": {"allOf": [{"type": "string"}, false]},
		"RefSibling": {"$ref": "#/$defs/Base", "required": ["b"]},
		"Base": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a"]},
		"Deep": {"allOf": [{"allOf": [{"allOf": [{"type": "object", "properties": {"x": {"type": "string"}}}]}]}, {"required": ["x"]}]}
	}}`)
	ints, err := doc.Flatten(doc.Def("Ints").Schema)
	if err != nil || !slices.Equal(ints.Types, []string{"integer"}) || *ints.Minimum != 2 || *ints.Maximum != 10 {
		t.Fatalf("Ints: %v %+v", err, ints)
	}
	enums, err := doc.Flatten(doc.Def("Enums").Schema)
	if err != nil || len(enums.Enum) != 2 || string(enums.Enum[0]) != `"b"` || string(enums.Enum[1]) != `"c"` {
		t.Fatalf("Enums: %v %q", err, enums.Enum)
	}
	if _, err := doc.Flatten(doc.Def("Consts").Schema); err == nil || !strings.Contains(err.Error(), "/$defs/Consts: cannot merge allOf: const 1 and const 2") {
		t.Fatalf("Consts: %v", err)
	}
	if _, err := doc.Flatten(doc.Def("NoEnum").Schema); err == nil || !strings.Contains(err.Error(), "enums have no value in common") {
		t.Fatalf("NoEnum: %v", err)
	}
	if f, err := doc.Flatten(doc.Def("WithFalse").Schema); err != nil || !f.IsFalse() {
		t.Fatalf("WithFalse: %v %+v", err, f)
	}
	rs, err := doc.Flatten(doc.Def("RefSibling").Schema)
	if err != nil || rs.Ref != "" || rs.Property("a") == nil || !slices.Contains(rs.Required, "a") || !slices.Contains(rs.Required, "b") {
		t.Fatalf("RefSibling: %v %+v", err, rs)
	}
	if len(doc.Def("Base").Schema.Required) != 1 {
		t.Fatal("Base was mutated")
	}
	deep, err := doc.Flatten(doc.Def("Deep").Schema)
	if err != nil || deep.Property("x") == nil || !slices.Equal(deep.Required, []string{"x"}) {
		t.Fatalf("Deep: %v %+v", err, deep)
	}
}

// Every revision of the MCP schema loads, and flattening every definition
// leaves the document unchanged.
func TestLoadAllRevisions(t *testing.T) {
	dir := os.Getenv("MCPGEN_SCHEMA_DIR")
	if dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("MCPGEN_SCHEMA_DIR is unset")
		}
		t.Skip("MCPGEN_SCHEMA_DIR is unset: spec-data tests need the mcp-spec schema directory (make test sets it)")
	}
	for _, rev := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "draft"} {
		doc, err := LoadFile(filepath.Join(dir, rev, "schema.json"))
		if err != nil {
			t.Fatalf("%s: %v", rev, err)
		}
		if len(doc.Defs) < 50 {
			t.Fatalf("%s: only %d definitions", rev, len(doc.Defs))
		}
		before := allFingerprints(doc)
		for _, d := range doc.Defs {
			var visit func(s *Schema, depth int)
			visit = func(s *Schema, depth int) {
				if s == nil || depth > 6 {
					return
				}
				if _, err := doc.Flatten(s); err != nil {
					t.Fatalf("%s %s: %v", rev, s.Pointer, err)
				}
				for _, pr := range s.Properties {
					visit(pr.Schema, depth+1)
				}
			}
			visit(d.Schema, 0)
		}
		if before != allFingerprints(doc) {
			t.Fatalf("%s: flattening changed the document", rev)
		}
	}
}
