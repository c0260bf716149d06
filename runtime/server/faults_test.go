package server

import (
	"context"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
)

// panicServer has a tool, a prompt, a resource and a completion handler
// that panic.
func panicServer(t *testing.T) *Server {
	t.Helper()
	s := newServer(t, nil)
	toolFunc(t, s, "panic", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		req.Progress(1, 0, "about to fail")
		panic("tool exploded")
	})
	must(t, s.AddPrompt(mcp.Prompt{Name: "panic"}, func(context.Context, *PromptRequest) (*mcp.GetPromptResult, error) { panic("prompt exploded") }))
	must(t, s.AddResource(mcp.Resource{URI: "file:///panic", Name: "panic"}, func(context.Context, *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
		panic("resource exploded")
	}))
	s.SetCompletion(func(context.Context, *CompletionRequest) (*mcp.CompleteResultCompletion, error) {
		panic("completion exploded")
	})
	return s
}

// TestFAULT_PanicIsInternalError: a handler that panics is answered with
// -32603 (no panic text leaks) and the server keeps serving.
func TestFAULT_PanicIsInternalError(t *testing.T) {
	s := panicServer(t)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for i, c := range []struct {
			method string
			p      obj
		}{
			{"tools/call", params(obj{"name": "panic"})},
			{"prompts/get", params(obj{"name": "panic"})},
			{"resources/read", params(obj{"uri": "file:///panic"})},
			{"completion/complete", params(obj{"ref": obj{"type": "ref/prompt", "name": "x"}, "argument": obj{"name": "n", "value": ""}})},
		} {
			_, m := call(i, c.method, c.p)
			if e := wantError(t, m, -32603); strings.Contains(e.Message, "exploded") {
				t.Errorf("%s: the panic leaks: %q", c.method, e.Message)
			}
			_, m = call("after", "tools/call", params(obj{"name": "echo", "arguments": obj{"text": "still here"}}))
			if m.text() != "still here" {
				t.Fatalf("after a panic in %s: %s", c.method, m)
			}
		}
	})
	// After the SSE stream opened, the error is its last event.
	h := startHTTP(t, s, nil)
	resp, msgs := h.exchange(request(9, "tools/call", obj{"_meta": reqMeta(nil, obj{"progressToken": 1}), "name": "panic"}), nil)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") || len(msgs) != 2 ||
		msgs[0].Method != "notifications/progress" || msgs[1].Error == nil || msgs[1].Error.Code != -32603 || !msgs[1].idIs("9") {
		t.Errorf("panic after progress: %v", msgs)
	}
}

// TestFAULT_NoGoroutineLeakOnDisconnect: clients that drop an SSE stream
// (a listen and a request with progress), a JSON request and a stdio
// connection mid-request leave no goroutine behind.
func TestFAULT_NoGoroutineLeakOnDisconnect(t *testing.T) {
	s := newServer(t, nil)
	started := make(chan context.Context, 3)
	blockTool(t, s, started, make(chan struct{}), false)
	ts := httptest.NewServer(s.Handler(nil))
	defer ts.Close()
	before := runtime.NumGoroutine()

	tr := &http.Transport{}
	h := &httpClient{t: t, ts: ts, tr: tr, c: &http.Client{Transport: tr}}
	listen := h.open(request(1, "subscriptions/listen", listenParams(obj{"toolsListChanged": true})), nil)
	wantAck(t, listen.next(), 1.0, obj{"toolsListChanged": true})
	progress := h.open(request(2, "tools/call", obj{"_meta": reqMeta(nil, obj{"progressToken": "p"}), "name": "block"}), nil)
	<-started
	if m := progress.next(); m.Method != "notifications/progress" {
		t.Fatalf("first event %s", m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := h.c.Do(mustRequest(t, ctx, ts.URL, request(3, "tools/call", params(obj{"name": "block"})))); err == nil {
			resp.Body.Close()
		}
	}()
	<-started

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sctx, scancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.ServeStdio(sctx, inR, outW) }()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	if _, err := inW.Write([]byte(request(4, "tools/call", params(obj{"name": "block"})) + "\n")); err != nil {
		t.Fatal(err)
	}
	<-started

	listen.close()
	progress.close()
	cancel()
	<-done
	scancel()
	<-served
	inW.Close()
	outW.Close()
	tr.CloseIdleConnections()
	eventually(t, "the listener is gone", func() bool { return s.ListenerCount() == 0 })
	settledGoroutines(t, before)
}

// TestFAULT_GarbageNeverCrashes: random bytes, truncated and mutated
// messages on stdio and HTTP never crash the server, every line it writes
// is JSON-RPC, and it keeps answering.
func TestFAULT_GarbageNeverCrashes(t *testing.T) {
	s := newServer(t, nil)
	rng := rand.New(rand.NewSource(1))
	valid := []string{
		request(1, "tools/call", params(obj{"name": "echo", "arguments": obj{"text": "hi"}})),
		request("p", "prompts/get", params(obj{"name": "greet", "arguments": obj{"name": "x"}})),
		request(2, "resources/read", params(obj{"uri": "file:///docs/a"})),
		request(3, "tools/list", params(obj{"cursor": "b2"})),
		request(4, "completion/complete", params(obj{"ref": obj{"type": "ref/prompt", "name": "greet"}, "argument": obj{"name": "n", "value": "g"}})),
		request(5, "tools/call", paramsCaps(obj{"elicitation": obj{}, "sampling": obj{"tools": obj{}}}, obj{"name": "echo", "requestState": "AAAA", "inputResponses": obj{"a": obj{"action": "accept"}}})),
		notification("notifications/cancelled", obj{"requestId": 1}),
	}
	var garbage []string
	for range 300 {
		switch rng.Intn(3) {
		case 0: // random bytes
			b := make([]byte, rng.Intn(64))
			rng.Read(b)
			garbage = append(garbage, strings.ReplaceAll(string(b), "\n", ""))
		case 1: // truncated
			v := valid[rng.Intn(len(valid))]
			garbage = append(garbage, v[:rng.Intn(len(v))])
		default: // a few bytes changed
			b := []byte(valid[rng.Intn(len(valid))])
			for range 1 + rng.Intn(3) {
				const alphabet = " {}[]\":,0a\\\x00\xff"
				b[rng.Intn(len(b))] = alphabet[rng.Intn(len(alphabet))]
			}
			garbage = append(garbage, strings.ReplaceAll(string(b), "\n", ""))
		}
	}
	garbage = append(garbage, "{", "}", "[", "\"", "0", "-", "1e999999", `{"jsonrpc":"2.0","id":9223372036854775808,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":[1,2]}}`,
		strings.Repeat("[", 100000), strings.Repeat(`{"a":`, 50000))

	input := strings.Join(garbage, "\n") + "\n" + request("sentinel", "server/discover", params(nil)) + "\n"
	msgs := serveLines(t, s, input)
	if byID(msgs)[`"sentinel"`].Result == nil {
		t.Errorf("the server stopped answering after garbage")
	}

	h := startHTTP(t, s, nil)
	for _, g := range garbage[:60] {
		resp, _ := h.exchange(g, nil)
		if resp.StatusCode >= 500 {
			t.Errorf("%q: HTTP %d", g, resp.StatusCode)
		}
	}
	if _, m := h.call("alive", "server/discover", params(nil), nil); m.Result == nil {
		t.Errorf("HTTP server stopped answering: %s", m)
	}
}

// FuzzStdioLine feeds one arbitrary input to ServeStdio followed by a
// discover request: the server must not crash, must write only JSON-RPC
// lines and must answer the discover request.
func FuzzStdioLine(f *testing.F) {
	for _, seed := range []string{
		request(1, "tools/call", params(obj{"name": "echo", "arguments": obj{"text": "hi"}})),
		request(2, "server/discover", params(nil)),
		notification("notifications/cancelled", obj{"requestId": 2}),
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`[{"jsonrpc":"2.0"}]`,
		"\xff",
		"",
	} {
		f.Add(seed)
	}
	s := New(testInfo, nil)
	must(f, s.AddTool(mcp.Tool{Name: "echo"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		return TextResult(string(req.Arguments)), nil
	}))
	f.Fuzz(func(t *testing.T, line string) {
		msgs := serveLines(t, s, line+"\n"+request("fuzz-sentinel-7f3a", "server/discover", params(nil))+"\n")
		if byID(msgs)[`"fuzz-sentinel-7f3a"`].Result == nil && !strings.Contains(line, "fuzz-sentinel-7f3a") {
			t.Errorf("no answer to the sentinel after %q: %v", line, msgs)
		}
	})
}
