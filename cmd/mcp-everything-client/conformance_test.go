package main

import (
	"context"
	"os/exec"
	"sort"
	"strconv"
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

// legacyAuthScenarios are the authorization scenarios both 2025-11-25 and
// 2026-07-28 require.
var legacyAuthScenarios = []string{
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration",
}

// authScenarios are the authorization scenarios 2026-07-28 requires: those
// of 2025-11-25 and eleven introduced with 2026-07-28.
var authScenarios = append(append([]string(nil), legacyAuthScenarios...),
	"auth/resource-mismatch", "auth/offline-access-scope",
	"auth/offline-access-not-supported", "auth/authorization-server-migration",
	"auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing",
	"auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
	"auth/metadata-issuer-mismatch",
)

// authExtensionScenarios are the authorization extensions' scenarios: the
// suite runs them unscored at both revisions; this fixture implements
// every extension, so they must pass too.
var authExtensionScenarios = []string{
	"auth/client-credentials-jwt", "auth/client-credentials-basic",
	"auth/enterprise-managed-authorization", "auth/dpop", "auth/dpop-nonce", "auth/wif-jwt-bearer",
}

// scenarioGroup is a named list of scenarios that must all pass.
type scenarioGroup struct {
	name      string
	scenarios []string
}

// TestConformanceClient runs the official conformance suite (client side,
// --requirements 2026-07-28) against this fixture client: every scenario
// listed above must pass, authorization (required and extension) included.
func TestConformanceClient(t *testing.T) {
	bin := nodetools.Build(t, "./cmd/mcp-everything-client")
	runClientSuite(t, bin, "2026-07-28", []scenarioGroup{
		{"non-auth", nonAuthScenarios},
		{"auth (required)", authScenarios},
		{"auth (extension)", authExtensionScenarios},
	})
}

// runClientSuite runs `conformance client` with --requirements rev against
// command (the fixture's path, maybe followed by flags), asserts every
// scenario of groups by name (one subtest each) and logs the count of each
// group. An auth scenario that no group lists (a newer suite) is logged,
// and fails the test if it fails.
func runClientSuite(t *testing.T, command, rev string, groups []scenarioGroup) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	base := nodetools.ConformanceCmd(t, "client", "--command", command, "--requirements", rev, "-o", t.TempDir())
	cmd := exec.CommandContext(ctx, base.Path, base.Args[1:]...)
	cmd.Env = base.Env
	out, runErr := cmd.Output() // the scenarios below say what failed
	summary := nodetools.Summary(string(out))
	listed := map[string]bool{}
	var counts []string
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
		counts = append(counts, g.name+" "+strconv.Itoa(pass)+"/"+strconv.Itoa(len(g.scenarios)))
	}
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
	// One line per run, which make conformance prints at the end.
	flags := strings.Join(strings.Fields(command)[1:], " ")
	if flags != "" {
		flags = " (fixture " + flags + ")"
	}
	t.Logf("CONFORMANCE client --requirements %s%s: %s pass", rev, flags, strings.Join(counts, ", "))
	if runErr != nil && !t.Failed() {
		t.Errorf("conformance exited with %v although every listed scenario passed; output:\n%s", runErr, out)
	}
}
