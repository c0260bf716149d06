package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDownstreamRecipe runs the two recipes of docs/downstream.md as they
// are written, in fresh modules: the shell commands of each section in
// order, with main.go from its Go block. What differs is forced by mcpgen
// not being published (docs/downstream.md says so): before the first go
// get, go.mod gets a replace directive onto this checkout and a require of
// v0.0.0; "@latest" is dropped (a replaced module has no versions); the go
// command runs with GOPROXY=off and this checkout's go.sum. The last
// command's output must be what main.go's comment says it prints.
func TestDownstreamRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpgen and the runtime in temporary modules")
	}
	schemaDir(t) // section 2 generates from MCPGEN_SCHEMA_DIR
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "downstream.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := regexp.MustCompile(`(?m)^## `).Split(string(doc), -1)
	var ran int
	for _, sec := range sections {
		title, _, _ := strings.Cut(sec, "\n")
		if !strings.HasPrefix(title, "1. ") && !strings.HasPrefix(title, "2. ") {
			continue
		}
		ran++
		t.Run(title, func(t *testing.T) { runRecipe(t, root, sec) })
	}
	if ran != 2 {
		t.Fatalf("docs/downstream.md has %d recipe sections, want 2 (## 1. and ## 2.)", ran)
	}
}

var fence = regexp.MustCompile("(?s)```(sh|go)\n(.*?)```")

func runRecipe(t *testing.T, root, sec string) {
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=mod")
	injected := false
	var last string
	var wantOut string
	prev := 0
	for _, ix := range fence.FindAllStringSubmatchIndex(sec, -1) {
		before, kind, body := sec[prev:ix[0]], sec[ix[2]:ix[3]], sec[ix[4]:ix[5]]
		prev = ix[1]
		if kind == "go" {
			if !strings.Contains(before, "`main.go`") {
				t.Fatalf("a Go block not introduced as `main.go`:\n%s", body)
			}
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			if c := regexp.MustCompile(`fmt\.Println\(.*\) // (.*)`).FindStringSubmatch(body); c != nil {
				wantOut = c[1] + "\n"
			}
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
			for _, cmd := range strings.Split(line, " && ") {
				args := strings.Fields(cmd)
				switch {
				case args[0] == "mkdir":
					if err := os.MkdirAll(filepath.Join(dir, args[1]), 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				case args[0] == "cd":
					dir = filepath.Join(dir, args[1])
					continue
				case args[0] != "go":
					t.Fatalf("%q: the recipe runs only mkdir, cd and go", cmd)
				}
				if args[1] == "get" && !injected {
					injected = true
					goCmd(t, dir, env, "mod", "edit", "-replace", "github.com/mcpgen/mcpgen="+root, "-require", "github.com/mcpgen/mcpgen@v0.0.0")
					if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				for i, a := range args {
					args[i] = strings.TrimSuffix(a, "@latest")
				}
				last = goCmd(t, dir, env, args[1:]...)
			}
		}
	}
	if !injected {
		t.Fatal("the recipe never runs go get")
	}
	if wantOut != "" && last != wantOut {
		t.Errorf("the last command printed %q, main.go says %q", last, wantOut)
	}
}

func goCmd(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(goTool(t), args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go %s in %s: %v\n%s%s", strings.Join(args, " "), dir, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}
