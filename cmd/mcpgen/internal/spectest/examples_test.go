package spectest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// brokenExamples lists the upstream examples that break their own schema,
// with the exact violations Validate must report (digest §10, A6).
var brokenExamples = map[string][]string{
	"ReadResourceResultResponse/read-resource-result-response.json": {
		"result.cacheScope: required member is missing",
		"result.ttlMs: required member is missing",
	},
}

// TestSpecExamples decodes every example under examples/<Type>/ into the
// generated <Type>, validates it and re-encodes it; the re-encoded JSON must
// decode to the same value (compared with go-cmp) and hold the same JSON
// as the example.
func TestSpecExamples(t *testing.T) {
	dir := filepath.Join(schemaDir(t), "2026-07-28", "examples")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 129 {
		t.Fatalf("found %d examples, want 129", len(files))
	}
	for _, file := range files {
		typeName := filepath.Base(filepath.Dir(file))
		rel := typeName + "/" + filepath.Base(file)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			v, ok := mcp.NewDefinition(typeName)
			if !ok {
				t.Fatalf("no generated type %s", typeName)
			}
			if err := wireimpl.Decode(data, v); err != nil {
				t.Fatalf("decode: %v", err)
			}
			err = v.Validate()
			if want, broken := brokenExamples[rel]; broken {
				var ve *wire.ValidationError
				if err == nil || !errorsAs(err, &ve) {
					t.Fatalf("Validate() = %v, want violations %q", err, want)
				}
				var got []string
				for _, x := range ve.Violations {
					got = append(got, x.String())
				}
				sort.Strings(got)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("violations (-want +got):\n%s", diff)
				}
			} else if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			out, err := wireimpl.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := mcp.NewDefinition(typeName)
			if err := wireimpl.Decode(out, again); err != nil {
				t.Fatalf("decode of re-encoded %s: %v", out, err)
			}
			if diff := cmp.Diff(v, again, exporter); diff != "" {
				t.Fatalf("round trip changed the value (-first +second):\n%s", diff)
			}
			var want, got any
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("re-encoded JSON is invalid: %v\n%s", err, out)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("re-encoded JSON differs (-example +ours):\n%s", diff)
			}
		})
	}
}

// exporter lets go-cmp see the unexported presence bits of generated types.
var exporter = cmp.Exporter(func(t reflectType) bool {
	return strings.HasPrefix(t.PkgPath(), "github.com/mcpgen/mcpgen/gen/")
})
