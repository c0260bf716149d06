package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRevisionOfSchemaChecked: -revision with a -schema that is the
// published schema of another revision is refused, whatever the folder the
// file lies in (the file is recognised by its pinned sha256), and so is a
// file in a folder named after another revision. A matching pair passes.
func TestRevisionOfSchemaChecked(t *testing.T) {
	dir := schemaDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "2025-11-25", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	renamed := filepath.Join(tmp, "mine", "schema.json")
	if err := os.MkdirAll(filepath.Dir(renamed), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(renamed, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, schema := range []string{filepath.Join(dir, "2025-11-25", "schema.json"), renamed} {
		out := filepath.Join(tmp, "out")
		err := run([]string{"-revision", "2026-07-28", "-schema", schema, "-out", out}, new(bytes.Buffer))
		want := schema + ": this is the published schema of revision 2025-11-25, not of -revision 2026-07-28"
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("-schema %s: err %v, want %q", schema, err, want)
		}
		if fileExists(out) {
			t.Errorf("-schema %s: a refused run created -out", schema)
		}
	}
	out := filepath.Join(tmp, "ok")
	if err := run([]string{"-revision", "2025-11-25", "-schema", renamed, "-out", out, "-package", "legacy"}, new(bytes.Buffer)); err != nil {
		t.Fatalf("matching -revision and -schema: %v", err)
	}
}

// TestOutIsAFile: -out naming a file is one line naming it, and the file is
// left alone.
func TestOutIsAFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.WriteFile(out, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(repoRoot(t), "testdata", "golden", "enums", "schema.json")
	err := run([]string{"-schema", schema, "-out", out, "-package", "enums"}, new(bytes.Buffer))
	if err == nil || err.Error() != "-out "+out+": not a directory" {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep" {
		t.Error("the file was changed")
	}
}

// TestOutParentNotWritable runs the real binary as a user who may write
// into -out but not into its parent (as root, the test runs it as nobody,
// since root writes anywhere): generation into the existing -out works and
// leaves no temporary folder; an -out to create under that parent, or an
// -out that is itself read-only, is one line naming the folder.
func TestOutParentNotWritable(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{filepath.Dir(root), root} { // TempDir makes them 0700
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(root, "mcpgen")
	if out, err := exec.Command(goTool(t), "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	schema := filepath.Join(root, "schema.json")
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "golden", "enums", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(schema, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// parent: read-only for the user running mcpgen; parent/out and
	// parent/ro exist, out writable by that user, ro not.
	parent := filepath.Join(root, "parent")
	out := filepath.Join(parent, "out")
	ro := filepath.Join(parent, "ro")
	for _, d := range []string{out, ro} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "keep.go"), []byte("package enums\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		const nobody = 65534
		cred = &syscall.Credential{Uid: nobody, Gid: nobody}
		if err := os.Chown(out, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(parent, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(parent, 0o755); _ = os.Chmod(ro, 0o755) })
	mcpgen := func(out string) (string, error) {
		cmd := exec.Command(bin, "-schema", schema, "-out", out, "-package", "enums")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		return stderr.String(), err
	}

	if msg, err := mcpgen(out); err != nil {
		t.Fatalf("into an existing writable -out under a read-only parent: %v: %s", err, msg)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "types_gen.go") || !strings.Contains(got, "keep.go") || strings.Contains(got, ".mcpgen-") {
		t.Errorf("-out holds %s", got)
	}

	for _, tc := range []struct{ out, want string }{
		{filepath.Join(parent, "new"), "mcpgen: -out " + filepath.Join(parent, "new") + ": cannot create it in " + parent + ": permission denied\n"},
		{ro, "mcpgen: -out " + ro + ": cannot write into it: permission denied\n"},
	} {
		msg, err := mcpgen(tc.out)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || msg != tc.want {
			t.Errorf("-out %s: %v, stderr %q, want %q", tc.out, err, msg, tc.want)
		}
	}
}
