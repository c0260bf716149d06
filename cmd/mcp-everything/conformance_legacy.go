package main

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// The surface the conformance suite's 2025-11-25 server scenarios add to
// the 2026-07-28 one. The handlers are ordinary: a 2025-11-25 session gets
// real elicitation and sampling requests from them, a modern client multi
// round-trip results.

// form decodes an elicitation form from its JSON.
func form(message, schema string) mcp.ElicitRequestFormParams {
	p := mcp.ElicitRequestFormParams{Message: message}
	must(wireimpl.Decode([]byte(schema), &p.RequestedSchema))
	return p
}

// describe renders an elicitation answer: its action and content.
func describe(r *mcp.ElicitResult) string {
	content, _ := json.Marshal(r.Content)
	if r.Content == nil {
		content = []byte("{}")
	}
	return "action=" + string(r.Action) + ", content=" + string(content)
}

func (f *fixture) legacyConformanceTools() {
	s := f.s
	f.tool("test_tool_with_logging", "Logs three messages 50 ms apart, then completes", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			req.Log(mcp.LoggingLevelInfo, "test_tool_with_logging", msg)
		}
		return server.TextResult("Logging test completed"), nil
	})
	must(s.AddTool(mcp.Tool{Name: "test_sampling", Description: wire.Some("Asks the client's model to answer a prompt (sampling)"),
		InputSchema: wire.Raw(`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send"}},"required":["prompt"]}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Prompt string `json:"prompt"`
			}
			if err := decodeArgs(req.Arguments, &a); err != nil {
				return nil, err
			}
			r, err := req.Sample("sampling", sampling(a.Prompt))
			if err != nil {
				return nil, err
			}
			return server.TextResult("LLM response: " + samplingText(r)), nil
		}))
	must(s.AddTool(mcp.Tool{Name: "test_elicitation", Description: wire.Some("Asks the user for a username and an email (elicitation)"),
		InputSchema: wire.Raw(`{"type":"object","properties":{"message":{"type":"string","description":"The message to show"}},"required":["message"]}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Message string `json:"message"`
			}
			if err := decodeArgs(req.Arguments, &a); err != nil {
				return nil, err
			}
			r, err := req.Elicit("user_info", form(a.Message,
				`{"type":"object","properties":{"username":{"type":"string","description":"Your username"},"email":{"type":"string","description":"Your email address"}},"required":["username","email"]}`))
			if err != nil {
				return nil, err
			}
			return server.TextResult("User response: " + describe(r)), nil
		}))
	f.tool("test_elicitation_sep1034_defaults", "Asks for a form whose fields have defaults (SEP-1034)", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Elicit("defaults", form("Please review the defaults",
			`{"type":"object","properties":{`+
				`"name":{"type":"string","description":"User name","default":"John Doe"},`+
				`"age":{"type":"integer","description":"User age","default":30},`+
				`"score":{"type":"number","description":"User score","default":95.5},`+
				`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},`+
				`"verified":{"type":"boolean","description":"Verification status","default":true}}}`))
		if err != nil {
			return nil, err
		}
		return server.TextResult("Elicitation completed: " + describe(r)), nil
	})
	f.tool("test_elicitation_sep1330_enums", "Asks for a form with every kind of enum field (SEP-1330)", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Elicit("enums", form("Please pick options",
			`{"type":"object","properties":{`+
				`"untitledSingle":{"type":"string","description":"Pick one","enum":["option1","option2","option3"]},`+
				`"titledSingle":{"type":"string","description":"Pick one","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},`+
				`"legacyEnum":{"type":"string","description":"Pick one","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},`+
				`"untitledMulti":{"type":"array","description":"Pick some","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},`+
				`"titledMulti":{"type":"array","description":"Pick some","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`))
		if err != nil {
			return nil, err
		}
		return server.TextResult("Elicitation completed: " + describe(r)), nil
	})
	f.tool("test_reconnection", "Closes its response stream, then completes (SEP-1699 polling)", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		req.CloseStream()
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return server.TextResult("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil
	})
	must(s.AddResource(mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: wire.Some("A resource to subscribe to"), MIMEType: wire.Some("text/plain")},
		func(ctx context.Context, req *server.ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
			return []mcp.ReadResourceResultContentsItem{server.TextContents(req.URI, "text/plain", "Watched resource content")}, nil
		}))
}
