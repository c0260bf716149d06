package spectest

import (
	"os"
	"path/filepath"
	"testing"
)

// schemaDir returns MCPGEN_SCHEMA_DIR, the upstream schema mirror (the
// Makefile points it at ../shared/mcp-spec/schema). When it is unset or
// lacks the 2026-07-28 schema the test says so and is skipped, except under
// CI=true, where it fails: a CI run without spec data must not pass.
func schemaDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MCPGEN_SCHEMA_DIR")
	var msg string
	if dir == "" {
		msg = "MCPGEN_SCHEMA_DIR is unset: spec-data tests need the mcp-spec schema directory (make test sets it)"
	} else if _, err := os.Stat(filepath.Join(dir, "2026-07-28", "schema.json")); err != nil {
		msg = "MCPGEN_SCHEMA_DIR has no 2026-07-28/schema.json: " + err.Error()
	}
	if msg != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}
