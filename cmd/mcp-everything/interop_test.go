package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cmd/internal/nodetools"
)

// TestInteropTSClient drives the fixture with the official TypeScript SDK v2
// client (@modelcontextprotocol/client 2.4.0, pinned to 2026-07-28) through
// testdata/interop/ts-client.mjs: discover, every list, tool calls
// (progress, Mcp-Param headers, cancellation), multi round-trip tools and
// prompts through its elicitation/sampling/roots handlers, resources,
// completion and a listen for list changes, over stdio and HTTP.
func TestInteropTSClient(t *testing.T) {
	dir, script := nodetools.Interop(t, "ts-client.mjs")
	node := nodetools.Node(t)
	bin := nodetools.Build(t, "./cmd/mcp-everything")
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
	}{
		// The TS client probes with a throw-away server process first, then
		// starts the real one: the fixture is launched twice.
		{"stdio", func(t *testing.T) []string { return []string{"--", bin} }},
		{"http", func(t *testing.T) []string { return []string{startHTTP(t, bin)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, append([]string{script, "--overall", "150000"}, tc.args(t)...)...)
			cmd.Dir = dir
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			var sum struct {
				OK     bool `json:"ok"`
				Passed int  `json:"passed"`
				Failed int  `json:"failed"`
				Checks []struct {
					Name  string          `json:"name"`
					OK    bool            `json:"ok"`
					Error json.RawMessage `json:"error"`
				} `json:"checks"`
			}
			if jerr := json.Unmarshal(out, &sum); jerr != nil {
				t.Fatalf("ts-client output is not its JSON summary (%v, exit %v):\n%s", jerr, err, out)
			}
			for _, c := range sum.Checks {
				if !c.OK {
					t.Errorf("check %s failed: %s", c.Name, c.Error)
				}
			}
			if err != nil || !sum.OK || sum.Failed > 0 || sum.Passed < 26 {
				t.Fatalf("ts-client: exit %v, %d passed, %d failed", err, sum.Passed, sum.Failed)
			}
			t.Logf("TypeScript SDK client: %d checks passed over %s", sum.Passed, tc.name)
		})
	}
}
