package server

import (
	"context"
	"testing"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// BenchmarkRespond is one tools/call through the server's pipeline, no
// transport: a modern request, and the same call in a 2025-11-25 session
// (converted to the modern params and back). The difference is what the
// conversion costs.
func BenchmarkRespond(b *testing.B) {
	s := New(testInfo, nil)
	type args struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	if err := AddTypedTool(s, mcp.Tool{Name: "add"}, func(ctx context.Context, req *ToolRequest, a args) (*mcp.CallToolResult, error) {
		return TextResult("3"), nil
	}); err != nil {
		b.Fatal(err)
	}
	p := mcp20251125.InitializeRequestParams{ProtocolVersion: legacyVersion, ClientInfo: mcp20251125.Implementation{Name: "c", Version: "1"}}
	sess, err := s.newSession(&p, legacyVersion, "")
	if err != nil {
		b.Fatal(err)
	}
	defer sess.end()
	for _, tc := range []struct {
		name string
		line string
		sess *session
	}{
		{"era=2026-07-28", request(1, "tools/call", params(obj{"name": "add", "arguments": obj{"a": 1, "b": 2}})), nil},
		{"era=2025-11-25", request(1, "tools/call", obj{"name": "add", "arguments": obj{"a": 1, "b": 2}}), sess},
	} {
		b.Run(tc.name, func(b *testing.B) {
			e := jx.GetEncoder()
			b.ReportAllocs()
			for range b.N {
				m, err := jsonrpc.Decode([]byte(tc.line))
				if err != nil {
					b.Fatal(err)
				}
				ex := &exchange{id: m.ID, method: m.Method, out: nopSink{}, sess: tc.sess}
				e.Reset()
				if rpc, err := s.respond(context.Background(), ex, m, e); rpc != nil || err != nil {
					b.Fatal(rpc, err, string(e.Bytes()))
				}
			}
		})
	}
}
