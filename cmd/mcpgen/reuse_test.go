package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/emit"
	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/plan"
)

// tasksSchema is the tasks extension's schema in the upstream mirror,
// beside the revisions of MCPGEN_SCHEMA_DIR (as the Makefile finds it).
func tasksSchema(t testing.TB) string {
	t.Helper()
	p := filepath.Join(schemaDir(t), "..", "ext-tasks", "schema", "draft", "schema.json")
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return p
}

// generateTasks generates gen/mcptasks as make generate does: the tasks
// extension's schema with its facts, reusing the checked-in gen/mcp.
func generateTasks(t testing.TB) []emit.File {
	t.Helper()
	src := tasksSchema(t)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	reuse, err := plan.LoadReuse("github.com/mcpgen/mcpgen/gen/mcp", filepath.Join(repoRoot(t), "gen", "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := generateWith(src, data, "mcptasks", "", revisionFacts(t, "ext-tasks"), reuse)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestTasksExtensionReusesCore: of the 76 definitions of the tasks
// extension's schema, the 56 copies of 2026-07-28 definitions become
// aliases of gen/mcp's types and only the extension's 20 are declared.
func TestTasksExtensionReusesCore(t *testing.T) {
	var types []byte
	for _, f := range generateTasks(t) {
		if f.Name == "types_gen.go" {
			types = f.Source
		}
	}
	aliases := regexp.MustCompile(`(?m)^type (\w+) = mcp\.(\w+)$`).FindAllSubmatch(types, -1)
	for _, a := range aliases {
		if !bytes.Equal(a[1], a[2]) {
			t.Errorf("alias %s names mcp.%s", a[1], a[2])
		}
	}
	if len(aliases) != 56 {
		t.Errorf("%d aliases of gen/mcp types, want the 56 repeated definitions", len(aliases))
	}
	for _, own := range []string{"Task", "CreateTaskResult", "GetTaskResult", "DetailedTask", "UpdateTaskRequest", "TaskStatusNotification"} {
		if !regexp.MustCompile(`(?m)^type ` + own + ` struct`).Match(types) {
			t.Errorf("the extension's %s is not declared", own)
		}
	}
	for _, core := range []string{"Tool", "Error", "InputRequests", "ElicitRequest", "Result"} {
		if !regexp.MustCompile(`(?m)^type ` + core + ` = mcp\.` + core + `$`).Match(types) {
			t.Errorf("%s is not an alias of mcp.%s", core, core)
		}
	}
}

// The command's -reuse errors are one line naming what is wrong, and
// nothing is written.
func TestReuseErrors(t *testing.T) {
	src := tasksSchema(t)
	dir := t.TempDir()
	other := filepath.Join(dir, "core")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-reuse", "github.com/mcpgen/mcpgen/gen/nosuch", "-package", "mcptasks"}, "-reuse github.com/mcpgen/mcpgen/gen/nosuch: cannot find the package"},
		{[]string{"-reuse", "github.com/mcpgen/mcpgen/runtime/wire", "-package", "mcptasks"}, "shapes_gen.go"},
		{[]string{"-reuse", "github.com/mcpgen/mcpgen/gen/mcp", "-package", "mcp"}, "the reused package is also named mcp"},
		{[]string{"-reuse", "github.com/mcpgen/mcpgen/gen/mcp20251125", "-package", "mcptasks"}, `has another structure than 2025-11-25/schema.json#/$defs/`},
		{[]string{"-reuse", "github.com/mcpgen/mcpgen/gen/mcp", "-package", "mcptasks", "-facts", "ext-task"}, "-facts ext-task: mcpgen carries no such facts"},
	} {
		out := filepath.Join(dir, "out")
		args := append([]string{"-schema", src, "-facts", "ext-tasks", "-out", out}, tc.args...)
		err := run(args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: err = %v, want one line with %q", tc.args, err, tc.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%v: the output directory was written", tc.args)
		}
	}
}
