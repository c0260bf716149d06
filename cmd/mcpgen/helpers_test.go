package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/emit"
)

// repoRoot is the module root, two levels above this package.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at the repository root %s: %v", root, err)
	}
	return root
}

// revisions are the schema revisions the upstream mirror publishes.
var revisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "draft"}

// schemaDir returns MCPGEN_SCHEMA_DIR (the upstream schema mirror; the
// Makefile sets it). When it is unset or lacks a revision the test is
// skipped, except under CI=true, where it fails: a CI run without spec data
// must not pass. (Same rule as spectest's schemaDir.)
func schemaDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MCPGEN_SCHEMA_DIR")
	var msg string
	if dir == "" {
		msg = "MCPGEN_SCHEMA_DIR is unset: spec-data tests need the mcp-spec schema directory (make test sets it)"
	} else {
		for _, rev := range revisions {
			if _, err := os.Stat(filepath.Join(dir, rev, "schema.json")); err != nil {
				msg = "MCPGEN_SCHEMA_DIR lacks revision " + rev + ": " + err.Error()
				break
			}
		}
	}
	if msg != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// goTool is the go command of the toolchain running the tests.
func goTool(t testing.TB) string {
	t.Helper()
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command: %v", err)
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// tempModule creates a module example.com/tmpgen in a new temporary
// directory that requires this repository through a replace directive, with
// this repository's requirements and go.sum, so generated packages and
// tests placed in it build against the working tree's runtime/wire.
func tempModule(t testing.TB) string {
	t.Helper()
	root := repoRoot(t)
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(string(gomod), "\n") {
		if strings.HasPrefix(line, "module ") {
			line = "module example.com/tmpgen"
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("require github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + root + "\n")
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// goRun runs the go command with args in dir and fails the test with its
// output when it fails.
func goRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(goTool(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out.String())
	}
	return out.String()
}

// writeGenerated writes files into dir (created as needed).
func writeGenerated(t testing.TB, dir string, files []emit.File) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Source, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
