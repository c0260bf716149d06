package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// TestSeamVersionGuard: a generated package built against a runtime that
// does not support its seam version fails to compile, and the compiler's
// message names both the version the code needs and the runtime's.
func TestSeamVersionGuard(t *testing.T) {
	src := filepath.Join(schemaDir(t), "2026-07-28", "schema.json")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	files, err := generate(src, data, "mcp", "2026-07-28", revisionFacts(t, "2026-07-28"))
	if err != nil {
		t.Fatal(err)
	}
	have := fmt.Sprintf("SupportsGeneratedCode%d()", wireimpl.GeneratedCodeVersion)
	newer := fmt.Sprintf("SupportsGeneratedCode%d()", wireimpl.LatestCodeVersion+1)
	found := false
	for i, f := range files {
		if f.Name == "methods_gen.go" && bytes.Contains(f.Source, []byte(have)) {
			files[i].Source = bytes.Replace(f.Source, []byte(have), []byte(newer), 1)
			found = true
		}
	}
	if !found {
		t.Fatalf("methods_gen.go declares no %s guard", have)
	}
	mod := tempModule(t)
	writeGenerated(t, filepath.Join(mod, "gen", "mcp"), files)
	cmd := exec.Command(goTool(t), "build", "./...")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("code generated for a newer seam built against this runtime")
	}
	msg := string(out)
	runtimeType := fmt.Sprintf("RuntimeVersion%d", wireimpl.LatestCodeVersion)
	if !strings.Contains(msg, strings.TrimSuffix(newer, "()")) || !strings.Contains(msg, runtimeType) {
		t.Fatalf("the build error does not name both versions (%s, %s):\n%s", newer, runtimeType, msg)
	}
}
