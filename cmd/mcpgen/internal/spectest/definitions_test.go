package spectest

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// TestEveryDefinitionIsAType: each of the 155 $defs of the 2026-07-28
// schema is a Go type of gen/mcp named after it, and NewDefinition makes a
// value of it that encodes and validates without panicking.
func TestEveryDefinitionIsAType(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(schemaDir(t), "2026-07-28", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Defs) != 155 {
		t.Fatalf("schema has %d definitions, want 155", len(doc.Defs))
	}
	declared := declaredTypes(t)
	for name := range doc.Defs {
		if !declared[name] {
			t.Errorf("gen/mcp declares no type %s", name)
		}
		v, ok := mcp.NewDefinition(name)
		if !ok {
			t.Errorf("NewDefinition(%q) = false", name)
			continue
		}
		// Zero values may be invalid; validating one must not panic, and
		// encoding one fails only with an EncodeError (a union holding no
		// member), which Validate reports too.
		verr := v.Validate()
		if _, err := wireimpl.Marshal(v); err != nil {
			var ee *wire.EncodeError
			if !errors.As(err, &ee) || verr == nil {
				t.Errorf("%s: encoding the zero value: %v (Validate: %v)", name, err, verr)
			}
		}
	}
}

// declaredTypes lists the type names gen/mcp declares.
func declaredTypes(t *testing.T) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("..", "..", "..", "..", "gen", "mcp", "types_gen.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			out[s.(*ast.TypeSpec).Name.Name] = true
		}
	}
	if len(out) == 0 {
		t.Fatal(fmt.Errorf("no types found in gen/mcp/types_gen.go"))
	}
	return out
}

// TestEveryDefinitionIsChecked (issue "Exact to the schema", item 4): the
// value NewDefinition makes for each of the 155 definitions enforces that
// definition's keywords. For every definition the differential harness
// generates instances schema.json rejects (mutants of valid instances:
// members dropped, kinds changed, constants and bounds missed, formats
// broken); the generated value must reject each one it is given, while
// decoding or in Validate, and each definition must have at least one,
// except JSONValue, which admits every JSON value (the JSONValue
// deviation). The differential test checks the same verdicts on the whole
// corpus; this test makes sure no definition is left without a rejected
// instance.
func TestEveryDefinitionIsChecked(t *testing.T) {
	h := loadHarness(t)
	const enough = 40 // rejected instances looked at per definition
	byValidate := 0
	for _, def := range h.doc.names {
		// The mutants of a few generated instances (the differential test
		// samples those of 24).
		var all []mutant
		for _, seed := range h.doc.seeds(def, 4) {
			all = append(all, h.doc.mutate(seed)...)
		}
		rejected, atValidate := 0, 0
		for _, in := range all {
			if rejected == enough {
				break
			}
			if _, info, err := parseExact(in.data); err != nil || info.dup || info.tooDeep || info.lone || info.hugeExp {
				continue // not a question of the definition's keywords
			}
			r := h.check(def, in.data)
			switch {
			case r.finding == findAcceptsInvalid:
				t.Errorf("%s accepts %s, which schema.json rejects: %s", def, in.data, r.why)
			case r.want || r.deviation != "" || r.finding != "":
				// valid, or a deliberate deviation, or a finding of another kind
			default:
				rejected++
				if r.gen.stage == "validate" {
					atValidate++
				}
			}
		}
		switch {
		case def == "JSONValue":
			if rejected != 0 {
				t.Errorf("JSONValue rejects %d instances schema.json (with the JSONValue deviation) rejects; expected none to exist", rejected)
			}
		case rejected == 0:
			t.Errorf("%s: no instance schema.json rejects was rejected", def)
		}
		if atValidate > 0 {
			byValidate++
		}
	}
	t.Logf("%d of %d definitions rejected instances in Validate (the others' keywords are all enforced while decoding: kinds, constants, required discriminators)", byValidate, len(h.doc.names))
}
