package spectest

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
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
		if _, err := wireimpl.Marshal(v); err != nil {
			t.Errorf("%s: encoding the zero value: %v", name, err)
		}
		_ = v.Validate() // zero values may be invalid; this must not panic
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
