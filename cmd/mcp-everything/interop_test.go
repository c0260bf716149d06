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

// TestInteropTSClientLegacy drives the fixture with 2025-era TypeScript
// clients, which begin with initialize and get a 2025-11-25 session: the
// SDK v1 client (@modelcontextprotocol/sdk 1.32.2, through
// testdata/interop/ts-client-v1.mjs) and the SDK v2 client in its default
// mode (ts-client.mjs --mode legacy: no versionNegotiation), over stdio and
// HTTP. Both check the negotiated version (2025-11-25, era legacy), every
// list, tool calls (progress, judged on the wire as the SDKs may drop
// updates read together with the response; cancellation with
// notifications/cancelled), elicitation, sampling and roots as real
// server->client requests answered by their handlers (ask_name, sample, list_roots, multi_round, every
// test_input_required_result_* tool, test_sampling, test_elicitation*,
// prompts confirm_prompt and test_input_required_result_prompt), prompts,
// resources (-32002 for an unknown one), completion, ping, logging/setLevel
// with notifications/message, resources/subscribe and unsubscribe with
// notifications/resources/updated, notifications/tools/list_changed and
// notifications/prompts/list_changed as ordinary notifications, and SEP-1699
// polling (test_reconnection); on HTTP also the session (Mcp-Session-Id on
// every request, the GET stream, notifications answered 202), the
// resumption of the cancelled call's stream (an SSE stream or 405, nothing
// of another stream, and every GET the SDK sends after the cancellation
// answered likewise) and DELETE (a later request on the session gets 404).
// The modern-only checks (server/discover, Mcp-Param headers,
// subscriptions/listen) are reported skipped. On stdio the SDKs spawn the
// fixture once (no probe).
func TestInteropTSClientLegacy(t *testing.T) {
	node := nodetools.Node(t)
	bin := nodetools.Build(t, "./cmd/mcp-everything")
	for _, client := range []struct {
		name, script string
		args         []string
	}{
		{"v1", "ts-client-v1.mjs", nil},
		{"v2", "ts-client.mjs", []string{"--mode", "legacy"}},
	} {
		dir, script := nodetools.Interop(t, client.script)
		for _, tc := range []struct {
			name      string
			args      func(t *testing.T) []string
			minPassed int
		}{
			{"stdio", func(t *testing.T) []string { return []string{"--", bin} }, 44},
			{"http", func(t *testing.T) []string { return []string{startHTTP(t, bin)} }, 47},
		} {
			t.Run(client.name+"/"+tc.name, func(t *testing.T) {
				args := append([]string{script, "--overall", "150000"}, client.args...)
				runInteropClient(t, node, dir, append(args, tc.args(t)...), tc.minPassed)
			})
		}
	}
}

// runInteropClient runs an interop script and requires its JSON summary to
// be ok, with no failed check and at least minPassed passed ones.
func runInteropClient(t *testing.T, node, dir string, args []string, minPassed int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var sum struct {
		OK      bool   `json:"ok"`
		SDK     string `json:"sdk"`
		Version string `json:"negotiatedProtocolVersion"`
		Passed  int    `json:"passed"`
		Failed  int    `json:"failed"`
		Skipped int    `json:"skipped"`
		Checks  []struct {
			Name  string          `json:"name"`
			OK    bool            `json:"ok"`
			Error json.RawMessage `json:"error"`
		} `json:"checks"`
	}
	if jerr := json.Unmarshal(out, &sum); jerr != nil {
		t.Fatalf("interop client output is not its JSON summary (%v, exit %v):\n%s", jerr, err, out)
	}
	for _, c := range sum.Checks {
		if !c.OK {
			t.Errorf("check %s failed: %s", c.Name, c.Error)
		}
	}
	if err != nil || !sum.OK || sum.Failed > 0 || sum.Passed < minPassed {
		t.Fatalf("%s: exit %v, %d passed (want at least %d), %d failed", sum.SDK, err, sum.Passed, minPassed, sum.Failed)
	}
	t.Logf("%s at %s: %d checks passed, %d skipped", sum.SDK, sum.Version, sum.Passed, sum.Skipped)
}
