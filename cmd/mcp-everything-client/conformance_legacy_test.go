package main

import (
	"testing"

	"github.com/mcpgen/mcpgen/cmd/internal/nodetools"
)

// legacyScenarioNames are the client scenarios required for 2025-11-25
// other than authorization, plus json-schema-2020-12-preservation (run,
// not scored, for this revision).
var legacyScenarioNames = []string{
	"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry",
	"json-schema-2020-12-preservation",
}

// TestConformanceClientLegacy runs the official conformance suite (client
// side, --requirements 2025-11-25) against the same fixture client: its
// mock servers speak only the initialize-based revisions, so the client
// must find them legacy and speak 2025-11-25 (initialize, sessions, SSE
// resumption, server-to-client elicitation). Every scenario must pass,
// the 14 required auth scenarios and the 6 extension ones included.
//
// It runs the suite twice. As-told: the auth scenarios connect with a
// client that speaks only the version the suite names
// (MCP_CONFORMANCE_PROTOCOL_VERSION, see connectVersion), so initialize is
// the first request and draws the 401. Discover (the fixture's -discover
// flag): the default dual-era client, whose server/discover probe draws
// the 401, is authorized, then finds the server legacy and opens the
// session with the same token.
func TestConformanceClientLegacy(t *testing.T) {
	bin := nodetools.Build(t, "./cmd/mcp-everything-client")
	groups := []scenarioGroup{
		{"non-auth", legacyScenarioNames},
		{"auth (required)", legacyAuthScenarios},
		{"auth (extension)", authExtensionScenarios},
	}
	t.Run("as-told", func(t *testing.T) { runClientSuite(t, bin, "2025-11-25", groups) })
	t.Run("discover", func(t *testing.T) { runClientSuite(t, bin+" -discover", "2025-11-25", groups[1:]) })
}
