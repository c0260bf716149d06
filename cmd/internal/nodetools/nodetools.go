// Package nodetools locates the Node.js tooling that the conformance and
// interop tests drive (installed by .ci/install-node-tools) and builds the
// fixture binaries they run against.
package nodetools

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// dir returns the directory named by env, or skips the test (fails it
// under CI=true) when it is not set up.
func dir(t testing.TB, env, what string) string {
	t.Helper()
	d := os.Getenv(env)
	msg := ""
	if d == "" {
		msg = env + " is unset: " + what + " need the Node tooling (run make test, or .ci/install-node-tools and export what it prints)"
	} else if _, err := os.Stat(filepath.Join(d, "node_modules")); err != nil {
		msg = env + "=" + d + " has no node_modules: " + err.Error()
	}
	if msg != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return d
}

// Conformance returns the directory holding node@22 and the conformance
// suite (node_modules/.bin/{node,conformance}).
func Conformance(t testing.TB) string {
	return dir(t, "MCPGEN_CONFORMANCE_DIR", "conformance tests")
}

// ConformanceCmd returns a command running the conformance CLI with node 22
// first on PATH.
func ConformanceCmd(t testing.TB, args ...string) *exec.Cmd {
	d := Conformance(t)
	bin := filepath.Join(d, "node_modules", ".bin")
	cmd := exec.Command(filepath.Join(bin, "conformance"), args...)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}

// Interop returns the directory with the TypeScript SDK packages; the
// interop scripts of testdata/interop are copied into it (ESM resolves
// packages next to the script), and the script path is returned.
func Interop(t testing.TB, script string) (dirPath, scriptPath string) {
	t.Helper()
	d := dir(t, "MCPGEN_INTEROP_DIR", "interop tests")
	src := filepath.Join(RepoRoot(t), "testdata", "interop", script)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(d, script)
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return d, dst
}

// Node returns the node binary for the interop scripts: the machine's,
// or node 22 from the conformance install when present.
func Node(t testing.TB) string {
	if d := os.Getenv("MCPGEN_CONFORMANCE_DIR"); d != "" {
		if p := filepath.Join(d, "node_modules", ".bin", "node"); fileExists(p) {
			return p
		}
	}
	p, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// RepoRoot is the repository's top directory.
func RepoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Build compiles the main package at pkg (e.g. "./cmd/mcp-everything") into
// the test's temporary directory and returns the binary's path.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = RepoRoot(t)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build %s: %v", pkg, err)
	}
	return out
}

// Summary parses the "=== SUMMARY ===" block of a conformance run: the
// scenario name of every ✓/✗ line, with whether it passed and the line.
func Summary(out string) map[string]Result {
	res := map[string]Result{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		var ok bool
		switch {
		case strings.HasPrefix(line, "✓ "):
			ok = true
		case strings.HasPrefix(line, "✗ "):
		default:
			continue
		}
		name, rest, found := strings.Cut(line[len("✓ "):], ": ")
		if !found {
			continue // the "not scored" list repeats names without counts
		}
		res[name] = Result{OK: ok, Line: name + ": " + rest}
	}
	return res
}

// Result is one scenario of a conformance summary.
type Result struct {
	OK   bool
	Line string
}

// Discard is an io.Writer for noisy subprocess output.
var Discard io.Writer = io.Discard

// StartHTTP starts cmd, a server that prints "LISTENING <url>" as its first
// line on stdout (the fixture and the TypeScript interop server do), and
// returns that URL. The server is interrupted and waited for when the test
// ends.
func StartHTTP(t testing.TB, cmd *exec.Cmd) string {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("%s did not start: %v", cmd.Path, err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "LISTENING ")
	if !ok {
		t.Fatalf("%s: unexpected first line %q", cmd.Path, line)
	}
	return url
}
