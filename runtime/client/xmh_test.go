package client_test

import (
	"context"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// invalidHeaderTools break XMH-1..5 one way each; "good" and "plain" are
// valid.
var invalidHeaderTools = []obj{
	{"name": "good", "inputSchema": obj{"type": "object", "properties": obj{
		"region": obj{"type": "string", "x-mcp-header": "Region"}}}},
	{"name": "bad_token", "inputSchema": obj{"type": "object", "properties": obj{
		"region": obj{"type": "string", "x-mcp-header": "Bad Header"}}}},
	{"name": "duplicate", "inputSchema": obj{"type": "object", "properties": obj{
		"a": obj{"type": "string", "x-mcp-header": "Region"},
		"b": obj{"type": "string", "x-mcp-header": "region"}}}},
	{"name": "number", "inputSchema": obj{"type": "object", "properties": obj{
		"ratio": obj{"type": "number", "x-mcp-header": "Ratio"}}}},
	{"name": "in_items", "inputSchema": obj{"type": "object", "properties": obj{
		"list": obj{"type": "array", "items": obj{"type": "string", "x-mcp-header": "Item"}}}}},
	{"name": "in_oneof", "inputSchema": obj{"type": "object", "oneOf": []obj{
		{"properties": obj{"id": obj{"type": "string", "x-mcp-header": "Id"}}}}}},
	{"name": "plain", "inputSchema": obj{"type": "object"}},
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	var names []string
	for tool, err := range c.ListTools(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// On Streamable HTTP a tool with an invalid x-mcp-header annotation is
// dropped from tools/list with a warning naming the tool and the reason;
// the other tools stay usable (XMH-6).
func TestXMH6_InvalidHeaderToolsDropped(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(invalidHeaderTools...)
	f.on(mcp.MethodCallTool, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, textResult("region="+m.header.Get("Mcp-Param-Region"))))
	})
	logs := &logRecorder{}
	c := f.connect(t, &client.Options{Logger: slog.New(logs)})
	if got, want := toolNames(t, c), []string{"good", "plain"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	reasons := map[string]string{}
	for _, r := range logs.records() {
		if r.level == slog.LevelWarn && r.attrs["tool"] != "" {
			reasons[r.attrs["tool"]] = r.attrs["reason"]
		}
	}
	for tool, rule := range map[string]string{"bad_token": "XMH-1", "duplicate": "XMH-2", "number": "XMH-3", "in_items": "XMH-5", "in_oneof": "XMH-5"} {
		if !strings.Contains(reasons[tool], rule) {
			t.Errorf("warning for %s: reason %q, want one citing %s", tool, reasons[tool], rule)
		}
	}
	if len(reasons) != 5 {
		t.Errorf("warnings for %v, want the five invalid tools", reasons)
	}
	r, err := c.CallTool(context.Background(), "good", wire.Raw(`{"region":"eu"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, r); got != "region=eu" {
		t.Errorf("result %q", got)
	}
}

// On stdio there are no headers: the same tools are all kept (XMH-6 MAY).
func TestXMH6_InvalidHeaderToolsKeptOnStdio(t *testing.T) {
	c, f := connectStdio(t, nil)
	done := make(chan []string, 1)
	go func() {
		var names []string
		for tool, err := range c.ListTools(context.Background()) {
			if err != nil {
				break
			}
			names = append(names, tool.Name)
		}
		done <- names
	}()
	m := f.recvMethod(mcp.MethodListTools)
	f.send(result(m.ID, toolsResult(invalidHeaderTools, nil, 0, "public")))
	got := <-done
	var want []string
	for _, tool := range invalidHeaderTools {
		want = append(want, tool["name"].(string))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tools %v, want all of %v", got, want)
	}
}

// On -32020 the client re-lists the tools (the annotation may have
// changed) and retries once, with a new id and corrected headers (XMH-8).
func TestXMH8_HeaderMismatchRelistsAndRetriesOnce(t *testing.T) {
	f := newHTTPFake(t)
	var mu sync.Mutex
	header := "Region" // the server's current annotation
	tool := func() obj {
		mu.Lock()
		defer mu.Unlock()
		return obj{"name": "deploy", "inputSchema": obj{"type": "object", "properties": obj{
			"region": obj{"type": "string", "x-mcp-header": header}}}}
	}
	f.on(mcp.MethodListTools, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, toolsResult([]obj{tool()}, nil, 3600000, "public")))
	})
	f.on(mcp.MethodCallTool, func(w http.ResponseWriter, r *http.Request, m msg) {
		mu.Lock()
		want := header
		mu.Unlock()
		if m.header.Get("Mcp-Param-"+want) == "" {
			writeJSON(w, 400, rpcError(m.ID, -32020, "Header mismatch: Mcp-Param-"+want+" is missing", nil))
			return
		}
		writeJSON(w, 200, result(m.ID, textResult("deployed")))
	})
	c := f.connect(t, nil)
	ctx := context.Background()
	toolNames(t, c) // learns "Region"; the list is cached for an hour
	mu.Lock()
	header = "Zone-Name"
	mu.Unlock()
	if _, err := c.CallTool(ctx, "deploy", wire.Raw(`{"region":"eu"}`)); err != nil {
		t.Fatal(err)
	}
	calls := f.requests(mcp.MethodCallTool)
	if len(calls) != 2 {
		t.Fatalf("%d tools/call requests, want 2", len(calls))
	}
	if calls[0].idKey() == calls[1].idKey() {
		t.Errorf("the retry reused id %s", calls[0].idKey())
	}
	if calls[0].header.Get("Mcp-Param-Region") != "eu" || calls[1].header.Get("Mcp-Param-Zone-Name") != "eu" {
		t.Errorf("headers: first %v, retry %v", calls[0].header, calls[1].header)
	}
	if n := len(f.requests(mcp.MethodListTools)); n != 2 {
		t.Errorf("%d tools/list requests, want 2 (the cached list must be re-fetched)", n)
	}

	// A server that keeps refusing gets exactly one retry.
	mu.Lock()
	header = "Never-Sent"
	mu.Unlock()
	f.on(mcp.MethodListTools, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, toolsResult([]obj{toolDef("deploy", nil)}, nil, 0, "public")))
	})
	before := len(f.requests(mcp.MethodCallTool))
	_, err := c.CallTool(ctx, "deploy", wire.Raw(`{"region":"eu"}`))
	if !isRPCError(err, mcp.CodeHeaderMismatch) {
		t.Fatalf("err = %v, want the -32020 error", err)
	}
	if n := len(f.requests(mcp.MethodCallTool)) - before; n != 2 {
		t.Errorf("%d tools/call requests, want the call and one retry", n)
	}
}
