package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A facts file that disagrees with the schema fails generation with one
// line naming the file and the key, and writes nothing.
func TestFactsCheckedAgainstSchema(t *testing.T) {
	schemaDir(t)
	for _, tc := range []struct{ facts, want string }{
		{`{"methods":{"tools/cal":{"mcpName":"name"}}}`, `methods.tools/cal: the schema defines no method "tools/cal"`},
		{`{"methods":{"tools/call":{"mcpName":"nam"}}}`, `methods.tools/call.mcpName: "nam" is not a required string member`},
		{`{"methods":{"tools/list":{"serverCapability":"tool"}}}`, `methods.tools/list.serverCapability: ServerCapabilities has no member "tool"`},
		{`{"methods":{"roots/list":{"clientCapability":"root"}}}`, `methods.roots/list.clientCapability: ClientCapabilities has no member "root"`},
		{`{"logLevels":{"type":"LoggingLevel","order":["debug","info"]}}`, `logLevels.order:`},
		{`{"resultType":{"member":"resultType","complete":"complete","values":{"x":"NoSuchResult"}}}`, `resultType.values.x: the schema defines no "NoSuchResult"`},
		{`{"methods":{"tools/call":{"mcpNames":"name"}}}`, `unknown field "mcpNames"`},
		{`{"compatible":{"versions":["2026-07-28"]}}`, `compatible.versions: "2026-07-28" is not an older revision`},
		{`{"batches":{"versions":["2025-03-26"]}}`, `batches.versions: "2025-03-26" is neither the revision nor one of compatible.versions`},
		{`{"compatible":{"versions":["June 2025"]}}`, `compatible.versions: "June 2025" is not an older revision`},
		{`{"revision":"2025-11-25"}`, `revision: facts of 2025-11-25 used for revision 2026-07-28`},
		// Extension facts (docs/facts.md), checked the same way.
		{`{"methods":{"tools/call":{"direction":"sideways"}}}`, `methods.tools/call.direction: "sideways" is neither clientToServer nor serverToClient`},
		{`{"methods":{"tools/call":{"direction":"serverToClient"}}}`, `methods.tools/call.direction: "serverToClient" is not the direction the schema gives tools/call`},
		{`{"extension":{"id":"tasks"}}`, `extension.id: "tasks" is not an extension identifier`},
		{`{"extension":{"id":"io.example/x","capability":"NoSuchCapability"}}`, `extension.capability: the schema defines no "NoSuchCapability"`},
		{`{"extension":{"id":"io.example/x","augments":{"tools/list":"CallToolResult"}}}`, `extension.augments.tools/list: tools/list is a method of this schema`},
		{`{"extension":{"id":"io.example/x","removedMethods":["tools/call"]}}`, `extension.removedMethods: the schema defines "tools/call"`},
		{`{"extension":{"id":"io.example/x","subscriptionFilter":"NoSuchFilter"}}`, `extension.subscriptionFilter: the schema defines no "NoSuchFilter"`},
	} {
		dir := t.TempDir()
		facts := filepath.Join(dir, "facts.json")
		if err := os.WriteFile(facts, []byte(tc.facts), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		err := run([]string{"-revision", "2026-07-28", "-facts", facts, "-out", out, "-package", "mcp"}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), facts) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line naming %s and %q", tc.facts, err, facts, tc.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: the output directory was written", tc.facts)
		}
	}
}
