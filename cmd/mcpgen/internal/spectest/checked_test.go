package spectest

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// TestTOOL5_InputSchemaCheckedWhileDecoding: Tool.inputSchema is kept
// verbatim and its declared members ("type": "object", "$schema" a
// string) are checked while it is scanned. Validate relies on that check
// only while the member still holds the decoded slice: a replaced schema,
// or one that failed the check, is checked again and its violations
// reported.
func TestTOOL5_InputSchemaCheckedWhileDecoding(t *testing.T) {
	var tool mcp.Tool
	if err := wireimpl.Decode([]byte(`{"name":"t","inputSchema":{"properties":{"type":{"type":"string"}},"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema"}}`), &tool); err != nil {
		t.Fatal(err)
	}
	if err := tool.Validate(); err != nil {
		t.Fatalf("valid tool: %v", err)
	}
	tool.InputSchema = wire.Raw(`{"type":"array"}`)
	if err := tool.Validate(); err == nil || !strings.Contains(err.Error(), `inputSchema.type: must be "object"`) {
		t.Fatalf("replaced schema: Validate() = %v", err)
	}
	for _, in := range []string{
		`{"name":"t","inputSchema":{"type":"array"}}`,
		`{"name":"t","inputSchema":{"properties":{}}}`,
		`{"name":"t","inputSchema":{"type":"object","$schema":7}}`,
		`{"name":"t","inputSchema":{"ty\u0070e":"string"}}`,
	} {
		var bad mcp.Tool
		if err := wireimpl.Decode([]byte(in), &bad); err != nil {
			t.Fatal(err)
		}
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "inputSchema") {
			t.Errorf("%s: Validate() = %v, want an inputSchema violation", in, err)
		}
	}
}
