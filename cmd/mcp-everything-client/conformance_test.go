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

// authScenarios are the authorization scenarios 2026-07-28 requires.
var authScenarios = []string{
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/resource-mismatch", "auth/offline-access-scope",
	"auth/offline-access-not-supported", "auth/authorization-server-migration",
	"auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing",
	"auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
	"auth/metadata-issuer-mismatch",
}

// authExtensionScenarios are the authorization extensions' scenarios: the
// suite runs them unscored; this fixture implements every extension, so
// they must pass too.
var authExtensionScenarios = []string{
	"auth/client-credentials-jwt", "auth/client-credentials-basic",
	"auth/enterprise-managed-authorization", "auth/dpop", "auth/dpop-nonce", "auth/wif-jwt-bearer",
}

// TestConformanceClient runs the official conformance suite (client side,
// --requirements 2026-07-28) against this fixture client: every scenario
// listed above must pass, authorization (required and extension) included.
// The 2025-11-25 runs of the auth scenarios need the initialize lifecycle,
// which the fixture does not have yet (connectVersion).
func TestConformanceClient(t *testing.T) {
	bin := nodetools.Build(t, "./cmd/mcp-everything-client")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	base := nodetools.ConformanceCmd(t, "client", "--command", bin, "--requirements", "2026-07-28", "-o", t.TempDir())
	cmd := exec.CommandContext(ctx, base.Path, base.Args[1:]...)
	cmd.Env = base.Env
	out, runErr := cmd.Output() // the scenarios below say what failed
	summary := nodetools.Summary(string(out))
	groups := []struct {
		name      string
		scenarios []string
	}{
		{"non-auth", nonAuthScenarios},
		{"auth (required)", authScenarios},
		{"auth (extension)", authExtensionScenarios},
	}
	listed := map[string]bool{}
	for _, g := range groups {
		pass := 0
		for _, name := range g.scenarios {
			listed[name] = true
			t.Run(name, func(t *testing.T) {
				r, ok := summary[name]
				switch {
				case !ok:
					t.Fatalf("scenario did not run; output:\n%s", out)
				case !r.OK:
					t.Fatalf("failed: %s", r.Line)
				}
				pass++
				t.Log(r.Line)
			})
		}
		t.Logf("%s scenarios: %d of %d pass", g.name, pass, len(g.scenarios))
	}
	// An auth scenario the lists above do not know (a newer suite) is
	// reported, and fails the test if it fails.
	var other []string
	for name, r := range summary {
		if strings.HasPrefix(name, "auth/") && !listed[name] {
			other = append(other, r.Line)
			if !r.OK {
				t.Errorf("unlisted scenario failed: %s", r.Line)
			}
		}
	}
	sort.Strings(other)
	for _, l := range other {
		t.Log("unlisted: " + l)
	}
	if runErr != nil && !t.Failed() {
		t.Errorf("conformance exited with %v although every listed scenario passed; output:\n%s", runErr, out)
	}
}
