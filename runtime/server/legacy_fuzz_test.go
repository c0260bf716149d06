package server

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// FuzzLegacySession feeds arbitrary messages to a 2025-11-25 session:
// nothing a legacy client sends may crash the server or leave a request
// without an answer, and every answer is one JSON value.
func FuzzLegacySession(f *testing.F) {
	for _, seed := range []string{
		request(1, "tools/call", obj{"name": "echo", "arguments": obj{"text": "hi"}}),
		request(2, "tools/list", obj{"cursor": "x"}),
		request(3, "resources/read", obj{"uri": "file:///docs/missing"}),
		request(4, "prompts/get", obj{"name": "greet", "arguments": obj{"name": "A"}}),
		request(5, "logging/setLevel", obj{"level": "warning"}),
		request(6, "resources/subscribe", obj{"uri": "file:///readme.txt"}),
		request(7, "completion/complete", obj{"ref": obj{"type": "ref/prompt", "name": "greet"}, "argument": obj{"name": "name", "value": "g"}}),
		request(8, "initialize", obj{"protocolVersion": "2025-11-25"}),
		request(9, "tasks/get", obj{"taskId": "t"}),
		request(10, "tools/call", obj{"name": "echo", "arguments": obj{"text": "hi"}, "_meta": obj{"progressToken": 1}, "task": obj{}}),
		`{"jsonrpc":"2.0","id":11,"method":"ping","params":null}`,
		`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":[1,2]}}`,
	} {
		f.Add([]byte(seed))
	}
	s := New(testInfo, &Options{Logging: true})
	must(f, s.AddTool(mcp.Tool{Name: "echo"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		req.Progress(1, 0, "")
		req.Log(mcp.LoggingLevelInfo, "echo", "called")
		return TextResult(string(req.Arguments)), nil
	}))
	must(f, s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///docs/{name}", Name: "docs"},
		func(ctx context.Context, req *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
			return nil, ResourceNotFound(req.URI)
		}))
	p := mcp20251125.InitializeRequestParams{ProtocolVersion: legacyVersion, ClientInfo: mcp20251125.Implementation{Name: "fuzz", Version: "1"}}
	sess, err := s.newSession(&p, legacyVersion, "")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(sess.end)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, derr := jsonrpc.Decode(append([]byte(nil), data...))
		if derr != nil || m.Kind != jsonrpc.KindRequest {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		e := jx.GetEncoder()
		defer jx.PutEncoder(e)
		ex := &exchange{id: m.ID, method: m.Method, out: nopSink{}, sess: sess}
		if _, err := s.respond(ctx, ex, m, e); err != nil {
			t.Fatalf("no answer for %s: %v", data, err)
		}
		if !json.Valid(e.Bytes()) {
			t.Fatalf("answer to %s is not JSON: %s", data, e.Bytes())
		}
	})
}
