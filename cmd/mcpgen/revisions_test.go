package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/emit"
)

// TestAllRevisionsBuild runs the command (in process) on every revision in
// MCPGEN_SCHEMA_DIR, writing each into a package of one temporary module,
// and requires `go build ./...` and `go vet ./...` of that module to pass.
func TestAllRevisionsBuild(t *testing.T) {
	dir := schemaDir(t)
	mod := tempModule(t)
	for _, rev := range revisions {
		out := filepath.Join(mod, "gen", rev)
		var stderr bytes.Buffer
		args := []string{"-schema", filepath.Join(dir, rev, "schema.json"), "-out", out, "-package", "mcp", "-revision", rev}
		if err := run(args, &stderr); err != nil {
			t.Fatalf("mcpgen %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		files, err := filepath.Glob(filepath.Join(out, "*_gen.go"))
		if err != nil || len(files) != 7 {
			t.Fatalf("%s: generated %v (%v), want 7 files", rev, files, err)
		}
		// The revision constant is generated for dated revisions only.
		methods, err := os.ReadFile(filepath.Join(out, "methods_gen.go"))
		if err != nil {
			t.Fatal(err)
		}
		hasConst := strings.Contains(string(methods), "const ProtocolVersion = \""+rev+"\"")
		if dated := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(rev); hasConst != dated {
			t.Errorf("%s: ProtocolVersion constant present=%v, want %v", rev, hasConst, dated)
		}
	}
	goRun(t, mod, "build", "./...")
	goRun(t, mod, "vet", "./...")
}

// TestCheckedInGenerationIsFresh: each package of gen/ is exactly what the
// generator produces from its revision's schema today (make check tests
// the same from the Makefile): gen/mcp for 2026-07-28, gen/mcp20251125 for
// 2025-11-25, and gen/mcptasks from the tasks extension's schema with
// -reuse of gen/mcp.
func TestCheckedInGenerationIsFresh(t *testing.T) {
	for rev, pkg := range map[string]string{"2026-07-28": "mcp", "2025-11-25": "mcp20251125", "ext-tasks": "mcptasks"} {
		var files []emit.File
		if rev == "ext-tasks" {
			files = generateTasks(t)
		} else {
			src := filepath.Join(schemaDir(t), rev, "schema.json")
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if files, err = generate(src, data, pkg, rev, revisionFacts(t, rev)); err != nil {
				t.Fatal(err)
			}
		}
		genDir := filepath.Join(repoRoot(t), "gen", pkg)
		onDisk, err := filepath.Glob(filepath.Join(genDir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(onDisk) != len(files) {
			t.Errorf("gen/%s has %d Go files, the generator produces %d", pkg, len(onDisk), len(files))
		}
		for _, f := range files {
			have, err := os.ReadFile(filepath.Join(genDir, f.Name))
			if err != nil {
				t.Errorf("gen/%s/%s: %v (run make generate)", pkg, f.Name, err)
				continue
			}
			if !bytes.Equal(have, f.Source) {
				t.Errorf("gen/%s/%s is stale: run make generate", pkg, f.Name)
			}
		}
	}
}
