package main

import (
	"context"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cmd/internal/nodetools"
)

// nonAuthScenarios are the client scenarios required for 2026-07-28 other
// than authorization, plus json-schema-2020-12-preservation.
var nonAuthScenarios = []string{
	"tools_call", "request-metadata", "sep-2322-client-request-state", "http-standard-headers",
	"http-custom-headers", "http-invalid-tool-headers", "json-schema-ref-no-deref",
	"json-schema-2020-12-preservation",
}

// TestConformanceClient runs the official conformance suite (client side,
// --requirements 2026-07-28) against this fixture client. The non-auth
// scenarios must pass; authorization is not implemented yet, so the auth
// scenarios are reported, not asserted.
func TestConformanceClient(t *testing.T) {
	bin := nodetools.Build(t, "./cmd/mcp-everything-client")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	base := nodetools.ConformanceCmd(t, "client", "--command", bin, "--requirements", "2026-07-28", "-o", t.TempDir())
	cmd := exec.CommandContext(ctx, base.Path, base.Args[1:]...)
	cmd.Env = base.Env
	out, _ := cmd.Output() // exits 1 while auth scenarios fail
	summary := nodetools.Summary(string(out))
	for _, name := range nonAuthScenarios {
		t.Run(name, func(t *testing.T) {
			r, ok := summary[name]
			switch {
			case !ok:
				t.Fatalf("scenario did not run; output:\n%s", out)
			case !r.OK:
				t.Fatalf("failed: %s", r.Line)
			}
			t.Log(r.Line)
		})
	}
	var auth []string
	pass := 0
	for name, r := range summary {
		if strings.HasPrefix(name, "auth/") {
			auth = append(auth, r.Line)
			if r.OK {
				pass++
			}
		}
	}
	sort.Strings(auth)
	t.Logf("auth scenarios (authorization is a later issue): %d of %d pass", pass, len(auth))
	for _, l := range auth {
		t.Log("  " + l)
	}
}
