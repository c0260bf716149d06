package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cmd/internal/nodetools"
)

// The server scenarios of each revision: the required list of the suite's
// requirements/<revision>.yaml (its length is checked), and the scenarios
// not scored for that revision that this fixture passes too.
var serverRequirements = []struct {
	revision string
	required int
	extra    []string
}{
	{"2026-07-28", 37, []string{"json-schema-2020-12", "http-header-validation", "http-custom-header-server-validation",
		// The tasks extension (io.modelcontextprotocol/tasks; not scored, reason: extension).
		"tasks-lifecycle", "tasks-capability-negotiation", "tasks-wire-fields", "tasks-request-state-removal",
		"tasks-mrtr-input", "tasks-request-headers", "tasks-dispatch-and-envelope", "tasks-status-notifications",
		"tasks-required-task-error", "tasks-mrtr-composition"}},
	{"2025-11-25", 30, []string{"server-session-lifecycle", "json-schema-2020-12", "server-sse-polling"}},
}

// startHTTP runs the fixture on 127.0.0.1 with a free port and returns
// its MCP endpoint URL.
func startHTTP(t *testing.T, bin string) string {
	return nodetools.StartHTTP(t, exec.Command(bin, "-http", "127.0.0.1:0"))
}

// requiredServerScenarios reads the frozen server list of the installed
// suite's requirements/<revision>.yaml.
func requiredServerScenarios(t *testing.T, revision string, want int) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(nodetools.Conformance(t), "node_modules", "@modelcontextprotocol", "conformance", "requirements", revision+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "server:":
			in = true
		case in && strings.HasPrefix(line, "  - "):
			names = append(names, strings.TrimSpace(strings.TrimPrefix(line, "  - ")))
		case in && line != "" && !strings.HasPrefix(line, " "):
			in = false
		}
	}
	if len(names) != want {
		t.Fatalf("requirements list %d server scenarios, want the %d of %s", len(names), want, revision)
	}
	return names
}

// TestConformanceServer runs the official conformance suite (server side)
// against one fixture process over Streamable HTTP, once with
// --requirements 2026-07-28 (stateless requests) and once with
// --requirements 2025-11-25 (initialize and sessions): every required
// scenario of each and the unscored ones listed above must pass.
func TestConformanceServer(t *testing.T) {
	bin := nodetools.Build(t, "./cmd/mcp-everything")
	url := startHTTP(t, bin)
	for _, req := range serverRequirements {
		t.Run(req.revision, func(t *testing.T) {
			required := requiredServerScenarios(t, req.revision, req.required)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := nodetools.ConformanceCmd(t, "server", "--url", url, "--requirements", req.revision, "-o", t.TempDir())
			cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
			cmd.Env = nodetools.ConformanceCmd(t).Env
			out, runErr := cmd.CombinedOutput()
			summary := nodetools.Summary(string(out))
			passed := 0
			for _, name := range append(required, req.extra...) {
				t.Run(name, func(t *testing.T) {
					r, ok := summary[name]
					switch {
					case !ok:
						t.Fatalf("scenario did not run; output:\n%s", out)
					case !r.OK:
						t.Fatalf("failed: %s", r.Line)
					}
					passed++
					t.Log(r.Line)
				})
			}
			if runErr != nil {
				t.Errorf("conformance exited with %v", runErr)
			}
			for _, line := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(line, "Total:") {
					t.Logf("suite %s", line)
				}
			}
			// One line per run, which make conformance prints at the end.
			t.Logf("CONFORMANCE server --requirements %s: required and unscored %d/%d pass", req.revision, passed, len(required)+len(req.extra))
		})
	}
}
