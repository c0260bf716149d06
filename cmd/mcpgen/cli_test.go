package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// cliCase is one failing invocation of the command.
type cliCase struct {
	name string
	// schema, when set, is written to the file named by file (default
	// schema.json) in the case's directory; "{dir}" in args is replaced by
	// that directory and "{out}" by the -out directory.
	file, schema string
	args         []string
	env          map[string]string
	// want lists substrings of the error: the file name and JSON pointer
	// where there is a file.
	want []string
}

func cliCases() []cliCase {
	return []cliCase{
		{
			name: "unreadable file",
			args: []string{"-schema", "{dir}/missing.json", "-out", "{out}"},
			want: []string{"missing.json: cannot read: no such file or directory"},
		},
		{
			name: "schema is a directory",
			args: []string{"-schema", "{dir}", "-out", "{out}"},
			want: []string{"cannot read: is a directory"},
		},
		{
			name:   "invalid JSON",
			file:   "broken.json",
			schema: "{\n  \"$defs\": {\n    \"A\": {\"type\": \"object\",\n      \"properties\": {\"b\": {\"type\": \"string\",}}\n    }\n  }\n}\n",
			args:   []string{"-schema", "{dir}/broken.json", "-out", "{out}"},
			want:   []string{"broken.json: /$defs/A/properties/b: line 4: invalid JSON"},
		},
		{
			name:   "truncated JSON",
			schema: `{"$defs": {"A": {"type": "object"`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A: invalid JSON: unexpected end of input"},
		},
		{
			name:   "duplicate member in the schema",
			schema: `{"$defs": {"A": {"type": "object", "type": "string"}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A/type: line 1: duplicate member \"type\""},
		},
		{
			name:   "dangling $ref",
			schema: `{"$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/Missing"}}}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A/properties/b/$ref: $ref \"#/$defs/Missing\" resolves nowhere"},
		},
		{
			name:   "remote $ref",
			schema: `{"$defs": {"A": {"$ref": "https://example.com/s.json#/x"}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A/$ref: $ref \"https://example.com/s.json#/x\" points outside this document"},
		},
		{
			name:   "$ref cycle",
			schema: `{"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A/$ref: $ref cycle"},
		},
		{
			name:   "not keyword",
			schema: `{"$defs": {"A": {"type": "object", "properties": {"b": {"not": {"type": "string"}}}}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A/properties/b: keyword \"not\" cannot be mapped to Go"},
		},
		{
			name:   "tuple items",
			schema: `{"$defs": {"A": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A/items: tuple-form items cannot be mapped to a Go type"},
		},
		{
			name:   "patternProperties",
			schema: `{"$defs": {"A": {"type": "object", "patternProperties": {"^x": {"type": "string"}}}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A: keyword \"patternProperties\" cannot be mapped to Go"},
		},
		{
			name:   "schema false",
			schema: `{"$defs": {"A": {"type": "object", "properties": {"never": false}}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A/properties/never: the schema false admits no value"},
		},
		{
			name:   "allOf without common type",
			schema: `{"$defs": {"A": {"allOf": [{"type": "string"}, {"type": "integer"}]}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A: cannot merge allOf: types [string] and [integer] have nothing in common"},
		},
		{
			name:   "keyword of the wrong kind",
			schema: `{"$defs": {"A": {"type": "object", "required": "b"}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A/required: required must be an array of strings"},
		},
		{
			name:   "type of the wrong kind",
			schema: `{"$defs": {"A": {"type": 5}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A/type: type must be a string or an array of strings"},
		},
		{
			name:   "unknown type",
			schema: `{"$defs": {"A": {"type": "text"}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/A: unknown type \"text\""},
		},
		{
			name:   "definition name not a Go identifier",
			schema: `{"$defs": {"my-type": {"type": "string"}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/my-type: definition name \"my-type\" is not a Go identifier"},
		},
		{
			name:   "definition named like a generated identifier",
			schema: `{"$defs": {"Methods": {"type": "string"}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /$defs/Methods: definition name \"Methods\" is also an identifier mcpgen generates"},
		},
		{
			name:   "not an object",
			schema: `[1, 2]`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /: a schema document must be a JSON object"},
		},
		{
			name:   "no definitions",
			schema: `{"type": "object"}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{"schema.json: /: no $defs or definitions"},
		},
		{
			name: "missing -out",
			args: []string{"-schema", "{dir}/schema.json"},
			want: []string{"-out is required"},
		},
		{
			name: "neither -schema nor -revision",
			args: []string{"-out", "{out}"},
			want: []string{"either -schema or -revision is required"},
		},
		{
			name: "bad package name",
			args: []string{"-schema", "{dir}/schema.json", "-out", "{out}", "-package", "My-Pkg"},
			want: []string{`-package "My-Pkg" is not a valid package name: use lower-case letters, digits and underscores`},
		},
		{
			name: "package name is a keyword",
			args: []string{"-schema", "{dir}/schema.json", "-out", "{out}", "-package", "func"},
			want: []string{`-package "func" is a Go keyword`},
		},
		{
			name: "package name starts with a digit",
			args: []string{"-schema", "{dir}/schema.json", "-out", "{out}", "-package", "2026"},
			want: []string{`-package "2026" is not a valid package name`},
		},
		{
			name: "package main",
			args: []string{"-schema", "{dir}/schema.json", "-out", "{out}", "-package", "main"},
			want: []string{`-package "main" would make a command`},
		},
		{
			name:   "unknown $schema dialect",
			schema: `{"$schema": "http://json-schema.org/draft-04/schema#", "definitions": {"A": {"type": "string"}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{`schema.json: /$schema: unknown JSON Schema dialect "http://json-schema.org/draft-04/schema#": mcpgen reads draft-07`},
		},
		{
			name:   "$schema not a string",
			schema: `{"$schema": 7, "$defs": {"A": {"type": "string"}}}`,
			args:   []string{"-schema", "{dir}/schema.json", "-out", "{out}"},
			want:   []string{`schema.json: /$schema: $schema must be a string`},
		},
		{
			name:   "-revision and a -schema in another revision's folder",
			file:   "2025-11-25/schema.json",
			schema: `{"$defs": {"A": {"type": "string"}}}`,
			args:   []string{"-revision", "2026-07-28", "-schema", "{dir}/2025-11-25/schema.json", "-out", "{out}"},
			want:   []string{`2025-11-25/schema.json: the schema lies in a folder named for revision 2025-11-25, not -revision 2026-07-28`},
		},
		{
			name: "unknown flag",
			args: []string{"-schemas", "x.json", "-out", "{out}"},
			want: []string{"flag provided but not defined: -schemas"},
		},
		{
			name: "stray argument",
			args: []string{"-out", "{out}", "-schema", "{dir}/schema.json", "extra"},
			want: []string{`unexpected arguments ["extra"]`},
		},
		{
			name: "revision missing from MCPGEN_SCHEMA_DIR",
			args: []string{"-revision", "2026-07-28", "-out", "{out}"},
			env:  map[string]string{"MCPGEN_SCHEMA_DIR": "{dir}"},
			want: []string{"2026-07-28/schema.json: cannot read (MCPGEN_SCHEMA_DIR is ", "): no such file or directory"},
		},
		{
			name: "revision that is a path",
			args: []string{"-revision", "../2026-07-28", "-out", "{out}"},
			env:  map[string]string{"MCPGEN_SCHEMA_DIR": "{dir}"},
			want: []string{`-revision "../2026-07-28" is not a revision name`},
		},
	}
}

func expand(s, dir, out string) string {
	return strings.NewReplacer("{dir}", dir, "{out}", out).Replace(s)
}

// TestCLIErrors runs every failing invocation twice: with -out naming a
// directory that does not exist (it must not be created) and one that holds
// files (they must be left exactly as they were). The error is one line
// naming the file and JSON pointer, and never an internal error (a
// recovered panic).
func TestCLIErrors(t *testing.T) {
	for _, tc := range cliCases() {
		t.Run(tc.name, func(t *testing.T) {
			for _, existing := range []bool{false, true} {
				dir := t.TempDir()
				if tc.schema != "" {
					file := tc.file
					if file == "" {
						file = "schema.json"
					}
					if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, file), []byte(tc.schema), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				out := filepath.Join(dir, "out")
				var before map[string]string
				if existing {
					if err := os.MkdirAll(out, 0o755); err != nil {
						t.Fatal(err)
					}
					for name, content := range map[string]string{"types_gen.go": "package old\n", "keep.go": "package old // hand-written\n"} {
						if err := os.WriteFile(filepath.Join(out, name), []byte(content), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					before = snapshot(t, dir)
				}
				for k, v := range tc.env {
					t.Setenv(k, expand(v, dir, out))
				}
				var args []string
				for _, a := range tc.args {
					args = append(args, expand(a, dir, out))
				}
				var stderr bytes.Buffer
				err := run(args, &stderr)
				if err == nil {
					t.Fatalf("run(%q) succeeded", args)
				}
				msg := err.Error()
				if strings.Contains(msg, "\n") {
					t.Errorf("error spans lines: %q", msg)
				}
				if strings.Contains(msg, "internal error") {
					t.Errorf("run panicked: %s", msg)
				}
				for _, w := range tc.want {
					if !strings.Contains(msg, w) {
						t.Errorf("error %q lacks %q", msg, w)
					}
				}
				if stderr.Len() != 0 {
					t.Errorf("run wrote to stderr (main prints the one-line error): %q", stderr.String())
				}
				if existing {
					if diff := diffSnapshots(before, snapshot(t, dir)); diff != "" {
						t.Errorf("failed run changed files: %s", diff)
					}
				} else if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("failed run created -out %s (stat: %v)", out, err)
				}
			}
		})
	}
}

// snapshot maps every file and directory under dir to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			m[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		m[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func diffSnapshots(a, b map[string]string) string {
	var diffs []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			diffs = append(diffs, "removed "+k)
		} else if v != w {
			diffs = append(diffs, "changed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, "added "+k)
		}
	}
	return strings.Join(diffs, ", ")
}

// TestCLIWritesAndReplaces: a successful run creates -out, and a second run
// into it replaces the generated files, removes generated files it no
// longer produces and leaves other files alone.
func TestCLIWritesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(repoRoot(t), "testdata", "golden", "enums", "schema.json")
	out := filepath.Join(dir, "nested", "enums")
	var stderr bytes.Buffer
	if err := run([]string{"-schema", schema, "-out", out, "-package", "enums"}, &stderr); err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "golden", "enums", "types_gen.go.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "types_gen.go")); !bytes.Equal(got, golden) {
		t.Fatal("types_gen.go differs from the golden file")
	}
	for name, content := range map[string]string{"stale_gen.go": "package enums\n", "keep.go": "package enums\n", "types_gen.go": "package enums\n"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := run([]string{"-schema", schema, "-out", out, "-package", "enums"}, &stderr); err != nil {
		t.Fatal(err)
	}
	if fileExists(filepath.Join(out, "stale_gen.go")) {
		t.Error("a generated file no longer produced was kept")
	}
	if !fileExists(filepath.Join(out, "keep.go")) {
		t.Error("a hand-written file was removed")
	}
	if got, _ := os.ReadFile(filepath.Join(out, "types_gen.go")); !bytes.Equal(got, golden) {
		t.Error("types_gen.go was not replaced")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "nested"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".mcpgen-") {
			t.Errorf("temporary directory %s left behind", e.Name())
		}
	}
}

// TestCLIExitStatus builds the real binary: a failure prints exactly one
// line "mcpgen: <file>: <pointer>: ..." on stderr and exits with status 1;
// -h prints the flags and exits 0.
func TestCLIExitStatus(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcpgen")
	cmd := exec.Command(goTool(t), "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	schema := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(schema, []byte(`{"$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/Nope"}}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-schema", schema, "-out", filepath.Join(dir, "out")}, "mcpgen: " + schema + ": /$defs/A/properties/b/$ref: $ref \"#/$defs/Nope\" resolves nowhere\n"},
		{[]string{"-nope"}, "mcpgen: flag provided but not defined: -nope (mcpgen -h lists the flags)\n"},
	} {
		cmd := exec.Command(bin, tc.args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("%q: exit %v, want status 1", tc.args, err)
		}
		if stderr.String() != tc.want || stdout.Len() != 0 {
			t.Errorf("%q: stderr %q stdout %q, want stderr %q", tc.args, stderr.String(), stdout.String(), tc.want)
		}
	}
	if fileExists(filepath.Join(dir, "out")) {
		t.Error("failed run created -out")
	}
	cmd = exec.Command(bin, "-h")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || !strings.Contains(stderr.String(), "-schema string") {
		t.Errorf("-h: %v %q", err, stderr.String())
	}
}

// withPin points canonicalURL at srv and pins sum for revision for the
// duration of the test, with MCPGEN_SCHEMA_DIR unset so that readSchema
// downloads.
func withPin(t *testing.T, srv *httptest.Server, revision, sum string) {
	t.Helper()
	t.Setenv("MCPGEN_SCHEMA_DIR", "")
	oldURL := canonicalURL
	canonicalURL = func(rev string) string { return srv.URL + "/schema/" + rev + "/schema.json" }
	old, had := pinned[revision]
	if sum != "" {
		pinned[revision] = sum
	}
	t.Cleanup(func() {
		canonicalURL = oldURL
		if had {
			pinned[revision] = old
		} else {
			delete(pinned, revision)
		}
	})
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// schemaServer serves body at /schema/<rev>/schema.json and counts requests.
func schemaServer(t *testing.T, body []byte, hits *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if !strings.HasSuffix(r.URL.Path, "/schema.json") {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestReadSchemaDownload covers the network path of -revision: a body whose
// sha256 matches the pin is accepted (and generates), one that does not is
// refused, an unpinned revision is never requested, HTTP errors and
// oversized bodies are errors.
func TestReadSchemaDownload(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "golden", "structs", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	const rev = "2099-01-01"

	t.Run("pinned sha256 matches", func(t *testing.T) {
		var hits atomic.Int32
		srv := schemaServer(t, body, &hits)
		withPin(t, srv, rev, sha(body))
		src, data, err := readSchema("", rev)
		if err != nil || !bytes.Equal(data, body) || src != srv.URL+"/schema/"+rev+"/schema.json" {
			t.Fatalf("readSchema = %q, %d bytes, %v", src, len(data), err)
		}
		out := filepath.Join(t.TempDir(), "out")
		var stderr bytes.Buffer
		if err := run([]string{"-revision", rev, "-out", out, "-package", "structs"}, &stderr); err != nil {
			t.Fatal(err)
		}
		types, _ := os.ReadFile(filepath.Join(out, "types_gen.go"))
		if !strings.HasPrefix(string(types), "// Code generated by mcpgen from ") || !strings.Contains(string(types), "/schema.json (revision "+rev+"). DO NOT EDIT.\n") {
			t.Fatalf("header: %.120s", types)
		}
	})
	t.Run("sha256 mismatch is refused", func(t *testing.T) {
		var hits atomic.Int32
		tampered := append(bytes.Clone(body), ' ')
		srv := schemaServer(t, tampered, &hits)
		withPin(t, srv, rev, sha(body))
		_, data, err := readSchema("", rev)
		if err == nil || data != nil || !strings.Contains(err.Error(), "sha256 "+sha(tampered)+" does not match the pinned "+sha(body)+"; refusing it") {
			t.Fatalf("readSchema = %d bytes, %v", len(data), err)
		}
		out := filepath.Join(t.TempDir(), "out")
		var stderr bytes.Buffer
		if err := run([]string{"-revision", rev, "-out", out}, &stderr); err == nil || fileExists(out) {
			t.Fatalf("run with a tampered download: %v (out created: %v)", err, fileExists(out))
		}
	})
	t.Run("unpinned revision is not downloaded", func(t *testing.T) {
		var hits atomic.Int32
		srv := schemaServer(t, body, &hits)
		withPin(t, srv, "2099-02-02", "")
		_, _, err := readSchema("", "2099-02-02")
		if err == nil || !strings.Contains(err.Error(), `revision "2099-02-02" has no pinned sha256`) || hits.Load() != 0 {
			t.Fatalf("err %v, %d requests", err, hits.Load())
		}
	})
	t.Run("HTTP error", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		t.Cleanup(srv.Close)
		withPin(t, srv, rev, sha(body))
		_, _, err := readSchema("", rev)
		if err == nil || !strings.Contains(err.Error(), "download: HTTP 404") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("oversized body", func(t *testing.T) {
		var hits atomic.Int32
		big := bytes.Repeat([]byte(" "), maxSchemaSize+1)
		srv := schemaServer(t, big, &hits)
		withPin(t, srv, rev, sha(big))
		_, _, err := readSchema("", rev)
		if err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Fatalf("err %v", err)
		}
	})
}

// TestPinnedRevisionsMatchMirror: the pins are the sha256 of the schema
// files in the mirror (same upstream snapshot), so a download of any pinned
// revision yields the bytes the tests use.
func TestPinnedRevisionsMatchMirror(t *testing.T) {
	dir := schemaDir(t)
	if len(pinned) != 5 {
		t.Errorf("%d pinned revisions, want the 5 dated ones", len(pinned))
	}
	for rev, want := range pinned {
		data, err := os.ReadFile(filepath.Join(dir, rev, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha(data); got != want {
			t.Errorf("%s: mirror sha256 %s, pinned %s", rev, got, want)
		}
	}
}

// TestRevisionFromSchemaDir: -revision alone reads MCPGEN_SCHEMA_DIR/<rev>.
func TestRevisionFromSchemaDir(t *testing.T) {
	dir := schemaDir(t)
	src, data, err := readSchema("", "2025-06-18")
	if err != nil || src != filepath.Join(dir, "2025-06-18", "schema.json") || len(data) == 0 {
		t.Fatalf("readSchema = %q, %d bytes, %v", src, len(data), err)
	}
	if got := sourceName(src); got != "2025-06-18/schema.json" {
		t.Errorf("sourceName = %q: generated headers must not carry machine paths", got)
	}
}
