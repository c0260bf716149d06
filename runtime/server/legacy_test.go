package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestLVER2_Negotiation: initialize gets the requested version when it is
// served (2025-11-25, 2025-06-18, 2025-03-26), else the newest served
// initialize-based version, never a stateless one (LVER-4); the answer is
// a valid 2025-11-25 InitializeResult with the server's capabilities and
// identity and no member of 2026-07-28 (LLIFE-2).
func TestLVER2_Negotiation(t *testing.T) {
	s := newServer(t, &Options{Instructions: "be nice"})
	cases := map[string]string{
		"2025-11-25": "2025-11-25", "2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26",
		"2024-11-05": "2025-11-25", "2026-07-28": "2025-11-25", "2099-01-01": "2025-11-25",
	}
	check := func(t *testing.T, asked string, m msg) {
		t.Helper()
		r := wantResult(t, m)
		checkLegacy(t, "initialize", m)
		if r["protocolVersion"] != cases[asked] {
			t.Errorf("asked %s, got %v, want %s", asked, r["protocolVersion"], cases[asked])
		}
		if dig(r, "serverInfo", "name") != testInfo.Name || r["instructions"] != "be nice" || dig(r, "capabilities", "tools", "listChanged") != true {
			t.Errorf("asked %s: result %v", asked, r)
		}
	}
	for asked := range cases {
		t.Run("stdio/"+asked, func(t *testing.T) {
			c := startStdio(t, s)
			c.send(legacyInit(1, asked, nil))
			m, _ := c.response("1")
			check(t, asked, m)
			c.finish()
		})
		t.Run("http/"+asked, func(t *testing.T) {
			h := startHTTP(t, s, nil)
			l := &legacyHTTP{httpClient: h}
			_, msgs := l.send(legacyInit(1, asked, nil), nil)
			check(t, asked, msgs[0])
		})
	}
	t.Run("configured", func(t *testing.T) {
		s := newServer(t, &Options{Versions: []string{"2026-07-28", "2025-06-18"}})
		c := startStdio(t, s)
		c.send(legacyInit(1, "2025-11-25", nil))
		m, _ := c.response("1")
		if v := wantResult(t, m)["protocolVersion"]; v != "2025-06-18" {
			t.Errorf("got %v, want the only initialize-based version served, 2025-06-18", v)
		}
	})
}

// TestLPING1_EmptyResults: ping, logging/setLevel, resources/subscribe and
// unsubscribe answer exactly {} (LPING-3, pitfall 4), on both transports.
func TestLPING1_EmptyResults(t *testing.T) {
	s := newServer(t, &Options{Logging: true})
	calls := []struct {
		method string
		params any
	}{
		{"ping", nil},
		{"logging/setLevel", obj{"level": "info"}},
		{"resources/subscribe", obj{"uri": "file:///readme.txt"}},
		{"resources/unsubscribe", obj{"uri": "file:///readme.txt"}},
	}
	check := func(t *testing.T, method string, m msg) {
		t.Helper()
		if r := wantResult(t, m); len(r) != 0 {
			t.Errorf("%s: result %v, want {}", method, r)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		c := startLegacyStdio(t, s, legacyVersion, nil)
		for i, call := range calls {
			check(t, call.method, c.roundTrip(i, call.method, call.params))
		}
	})
	t.Run("http", func(t *testing.T) {
		l := startLegacyHTTP(t, s, nil, nil)
		for i, call := range calls {
			check(t, call.method, l.call(i, call.method, call.params))
		}
	})
}

// TestLegacyResults: the features answer a session with valid 2025-11-25
// results (no resultType, caching hints or serverInfo), the same content
// a modern client gets.
func TestLegacyResults(t *testing.T) {
	s := newServer(t, nil)
	calls := []struct {
		method string
		params obj
		want   func(obj) bool
	}{
		{"tools/list", obj{}, func(r obj) bool { return dig(r, "tools") != nil }},
		{"tools/call", obj{"name": "echo", "arguments": obj{"text": "hi"}}, func(r obj) bool { return strings.Contains(mustJSON(r), `"hi"`) }},
		{"prompts/list", obj{}, func(r obj) bool { return dig(r, "prompts") != nil }},
		{"prompts/get", obj{"name": "greet", "arguments": obj{"name": "Ann"}}, func(r obj) bool { return strings.Contains(mustJSON(r), "Hello, Ann") }},
		{"resources/list", obj{}, func(r obj) bool { return dig(r, "resources") != nil }},
		{"resources/templates/list", obj{}, func(r obj) bool { return dig(r, "resourceTemplates") != nil }},
		{"resources/read", obj{"uri": "file:///readme.txt"}, func(r obj) bool { return strings.Contains(mustJSON(r), "read me") }},
		{"completion/complete", obj{"ref": obj{"type": "ref/prompt", "name": "greet"}, "argument": obj{"name": "name", "value": "go"}},
			func(r obj) bool { return strings.Contains(mustJSON(r), "gopher") }},
	}
	t.Run("stdio", func(t *testing.T) {
		c := startLegacyStdio(t, s, legacyVersion, nil)
		for i, call := range calls {
			m := c.roundTrip(i, call.method, call.params)
			checkLegacy(t, call.method, m)
			if !call.want(wantResult(t, m)) {
				t.Errorf("%s: %s", call.method, m)
			}
		}
	})
	t.Run("http", func(t *testing.T) {
		l := startLegacyHTTP(t, s, nil, nil)
		for i, call := range calls {
			m := l.call(i, call.method, call.params)
			if !call.want(wantResult(t, m)) {
				t.Errorf("%s: %s", call.method, m)
			}
		}
	})
}

// TestLERR2_ResourceNotFound: a missing resource is -32002 in a session
// and -32602 for a modern request, from the same handler (LERR-2, RES-5).
func TestLERR2_ResourceNotFound(t *testing.T) {
	s := newServer(t, nil)
	read := obj{"uri": "file:///docs/missing"}
	c := startLegacyStdio(t, s, legacyVersion, nil)
	if e := wantError(t, c.roundTrip(1, "resources/read", read), -32002); !strings.Contains(string(e.Data), "file:///docs/missing") {
		t.Errorf("data %s, want the uri", e.Data)
	}
	wantError(t, c.roundTrip(2, "resources/read", params(read)), -32602) // modern _meta: stateless, modern code
	l := startLegacyHTTP(t, s, nil, nil)
	wantError(t, l.call(1, "resources/read", read), -32002)
}

// TestLERR6_NoModernCodes: a handler's error with a code only 2026-07-28
// defines reaches a session as -32603 with its message (LERR-6).
func TestLERR6_NoModernCodes(t *testing.T) {
	s := newServer(t, nil)
	askTool(t, s) // the session declares no elicitation: -32021 for a modern client
	c := startLegacyStdio(t, s, legacyVersion, nil)
	e := wantError(t, c.roundTrip(1, "tools/call", obj{"name": "ask"}), -32603)
	if !strings.Contains(e.Message, "elicitation") {
		t.Errorf("message %q, want the missing capability named", e.Message)
	}
}

// inputTool asks for all three inputs and reports the answers.
func inputTool(t *testing.T, s *Server) {
	toolFunc(t, s, "inputs", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		who, err := req.Elicit("who", elicitForm("name"))
		if err != nil {
			return nil, err
		}
		llm, err := req.Sample("llm", mcp.CreateMessageRequestParams{MaxTokens: 10,
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingMessageContent{TextContent: &mcp.TextContent{Text: "2+2?"}}}}})
		if err != nil {
			return nil, err
		}
		roots, err := req.Roots("roots")
		if err != nil {
			return nil, err
		}
		return TextResult("name=" + who.Content["name"].String.Value + " llm=" + llm.Content.TextContent.Text + " root=" + roots.Roots[0].URI), nil
	})
}

// answers are a 2025-11-25 client's answers to the server's requests.
var answers = map[string]obj{
	"elicitation/create":     accept("name", "Ann"),
	"sampling/createMessage": {"role": "assistant", "model": "m", "content": obj{"type": "text", "text": "four"}},
	"roots/list":             {"roots": []any{obj{"uri": "file:///home/ann"}}},
}

const inputsText = "name=Ann llm=four root=file:///home/ann"

// TestBC2_OneHandlerBothEras: one handler asking for input serves a
// session with real server requests (LS2C-1, LS2C-3) and a modern client
// with an input-required result, over stdio and HTTP.
func TestBC2_OneHandlerBothEras(t *testing.T) {
	s := newServer(t, nil)
	inputTool(t, s)
	t.Run("stdio", func(t *testing.T) {
		c := startLegacyStdio(t, s, legacyVersion, allCaps)
		c.send(request(1, "tools/call", obj{"name": "inputs"}))
		var asked []string
		for {
			m := c.next()
			if m.isResponse() {
				checkLegacy(t, "tools/call", m)
				if m.text() != inputsText || !reflect.DeepEqual(asked, []string{"elicitation/create", "sampling/createMessage", "roots/list"}) {
					t.Fatalf("result %s after %v", m, asked)
				}
				break
			}
			asked = append(asked, m.Method)
			c.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + mustJSON(answers[m.Method]) + `}`)
		}
		// The modern era on the same connection: a multi round-trip result.
		m := c.roundTrip(2, "tools/call", paramsCaps(allCaps, obj{"name": "inputs"}))
		if wantResult(t, m)["resultType"] != "input_required" {
			t.Errorf("modern request: %s, want input_required", m)
		}
	})
	t.Run("http", func(t *testing.T) {
		l := startLegacyHTTP(t, s, nil, allCaps)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		resp := l.post(ctx, request(1, "tools/call", obj{"name": "inputs"}), nil)
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("Content-Type %q, want an SSE stream for a call that may ask for input (LS2C-2)", ct)
		}
		st := newLegacyStream(t, resp, cancel)
		if ev, _ := st.next(); ev.id == "" || ev.data != "" || ev.retry == "" {
			t.Errorf("first event %+v, want the priming event: an id, retry, no data (LSSE-4)", ev)
		}
		var asked []string
		for {
			m, id := st.message()
			if id == "" {
				t.Errorf("event without id (LSSE-6): %s", m)
			}
			if m.isResponse() {
				checkLegacy(t, "tools/call", m)
				if m.text() != inputsText || len(asked) != 3 {
					t.Fatalf("result %s after %v", m, asked)
				}
				break
			}
			asked = append(asked, m.Method)
			r, _ := l.send(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+mustJSON(answers[m.Method])+`}`, nil)
			if r.StatusCode != http.StatusAccepted {
				t.Fatalf("POST of the answer: %d, want 202 (LS2C-3)", r.StatusCode)
			}
		}
		h := startHTTP(t, s, nil)
		if _, m := h.call(2, "tools/call", paramsCaps(allCaps, obj{"name": "inputs"}), nil); wantResult(t, m)["resultType"] != "input_required" {
			t.Errorf("modern request: %s, want input_required", m)
		}
	})
}

// TestLPROG_Progress: a session's progress token gets notifications on
// the request's stream (LPROG-2, LPROG-5).
func TestLPROG_Progress(t *testing.T) {
	s := newServer(t, nil)
	toolFunc(t, s, "work", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		req.Progress(1, 2, "half")
		req.Progress(2, 2, "done")
		return TextResult("ok"), nil
	})
	call := obj{"name": "work", "_meta": obj{"progressToken": "p1"}}
	check := func(t *testing.T, notes []msg) {
		t.Helper()
		if len(notes) != 2 || notes[0].Method != "notifications/progress" || dig(notes[1].Params, "progressToken") != "p1" || dig(notes[1].Params, "progress") != 2.0 {
			t.Errorf("notifications %v", notes)
		}
	}
	c := startLegacyStdio(t, s, legacyVersion, nil)
	c.send(request(1, "tools/call", call))
	_, notes := c.response("1")
	check(t, notes)
	l := startLegacyHTTP(t, s, nil, nil)
	_, msgs := l.send(request(1, "tools/call", call), nil)
	check(t, msgs[:len(msgs)-1])
}

// TestLLOG2_SessionLevel: logging/setLevel sets the level of the session
// (LLOG-2, LLOG-6); messages below it are not sent; before any setLevel
// every level is (LLOG-5).
func TestLLOG2_SessionLevel(t *testing.T) {
	s := newServer(t, &Options{Logging: true})
	toolFunc(t, s, "log", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		req.Log(mcp.LoggingLevelDebug, "t", "debug message")
		req.Log(mcp.LoggingLevelError, "t", "error message")
		return TextResult("ok"), nil
	})
	c := startLegacyStdio(t, s, legacyVersion, nil)
	c.send(request(1, "tools/call", obj{"name": "log"}))
	if _, notes := c.response("1"); len(notes) != 2 {
		t.Errorf("before setLevel: %v, want both messages", notes)
	}
	wantResult(t, c.roundTrip(2, "logging/setLevel", obj{"level": "warning"}))
	c.send(request(3, "tools/call", obj{"name": "log"}))
	if _, notes := c.response("3"); len(notes) != 1 || dig(notes[0].Params, "data") != "error message" {
		t.Errorf("at warning: %v, want the error message only", notes)
	}
	wantError(t, c.roundTrip(4, "logging/setLevel", obj{"level": "loud"}), -32602) // LLOG-3
}

// TestLSUB_Notifications: a session gets list changes and the updates of
// the resources it subscribed to: on stdio as lines, over HTTP on its GET
// stream (LSUB-2, LSUB-4, LSSE-2).
func TestLSUB_Notifications(t *testing.T) {
	s := newServer(t, nil)
	t.Run("stdio", func(t *testing.T) {
		c := startLegacyStdio(t, s, legacyVersion, nil)
		wantResult(t, c.roundTrip(1, "resources/subscribe", obj{"uri": "file:///readme.txt"}))
		s.NotifyResourceUpdated("file:///readme.txt")
		m := c.next()
		if m.Method != "notifications/resources/updated" || dig(m.Params, "uri") != "file:///readme.txt" {
			t.Fatalf("got %s, want the update", m)
		}
		toolFunc(t, s, "new_tool", func(context.Context, *ToolRequest) (*mcp.CallToolResult, error) { return TextResult(""), nil })
		if m := c.next(); m.Method != "notifications/tools/list_changed" {
			t.Fatalf("got %s, want tools/list_changed", m)
		}
		wantResult(t, c.roundTrip(2, "resources/unsubscribe", obj{"uri": "file:///readme.txt"}))
		s.NotifyResourceUpdated("file:///readme.txt")
		if before := c.expectQuiet("q"); len(before) != 0 {
			t.Errorf("after unsubscribe: %v", before)
		}
	})
	t.Run("http", func(t *testing.T) {
		l := startLegacyHTTP(t, s, nil, nil)
		wantResult(t, l.call(1, "resources/subscribe", obj{"uri": "file:///readme.txt"}))
		resp, st := l.get("")
		if st == nil {
			t.Fatalf("GET: %d", resp.StatusCode)
		}
		s.NotifyResourceUpdated("file:///readme.txt")
		if m, id := st.message(); m.Method != "notifications/resources/updated" || id == "" {
			t.Fatalf("got %s (id %q), want the update with an event id", m, id)
		}
		s.RemoveTool("new_tool")
		if m, _ := st.message(); m.Method != "notifications/tools/list_changed" {
			t.Fatalf("got %s, want tools/list_changed", m)
		}
		if resp, _ := l.get(""); resp.StatusCode != http.StatusConflict {
			t.Errorf("second GET: %d, want 409 while the stream is open", resp.StatusCode)
		}
	})
}

// slowTool blocks until cancelled and counts how it ended.
func slowTool(t *testing.T, s *Server, started chan<- struct{}, cancelled *atomic.Int32) {
	toolFunc(t, s, "slow", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			cancelled.Add(1)
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
			return TextResult("finished"), nil
		}
	})
}

// TestLCAN1_CancelByNotification: notifications/cancelled stops a
// session's request on both transports, and nothing is answered for it
// (LCAN-1, LCAN-3).
func TestLCAN1_CancelByNotification(t *testing.T) {
	s := newServer(t, nil)
	started := make(chan struct{}, 2)
	var cancelled atomic.Int32
	slowTool(t, s, started, &cancelled)
	c := startLegacyStdio(t, s, legacyVersion, nil)
	c.send(request(7, "tools/call", obj{"name": "slow"}))
	<-started
	c.send(notification("notifications/cancelled", obj{"requestId": 7, "reason": "no longer needed"}))
	eventually(t, "the stdio request is cancelled", func() bool { return cancelled.Load() == 1 })
	if before := c.expectQuiet("q"); len(before) != 0 {
		t.Errorf("answered a cancelled request: %v", before)
	}

	l := startLegacyHTTP(t, s, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *http.Response, 1)
	go func() { done <- l.post(ctx, request(8, "tools/call", obj{"name": "slow"}), nil) }()
	<-started
	if r, _ := l.send(notification("notifications/cancelled", obj{"requestId": 8}), nil); r.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel: %d", r.StatusCode)
	}
	eventually(t, "the HTTP request is cancelled", func() bool { return cancelled.Load() == 2 })
	resp := <-done
	if msgs := readAnswer(t, resp, true); len(msgs) != 0 {
		t.Errorf("answered a cancelled request: %v", msgs)
	}
}

// TestLCAN6_DisconnectIsNoCancel: a session's request goes on when its
// client's connection drops (LCAN-6); the client resumes the stream with
// Last-Event-ID and gets the answer (LSSE-7).
func TestLCAN6_DisconnectIsNoCancel(t *testing.T) {
	s := newServer(t, nil)
	started := make(chan struct{}, 1)
	var cancelled atomic.Int32
	slowTool(t, s, started, &cancelled)
	l := startLegacyHTTP(t, s, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	st := newLegacyStream(t, l.post(ctx, request(1, "tools/call", obj{"name": "slow"}), nil), cancel)
	priming, _ := st.next()
	<-started
	st.close() // the connection drops
	_, resumed := l.get(priming.id)
	if resumed == nil {
		t.Fatal("GET with Last-Event-ID refused")
	}
	m, _ := resumed.message()
	if m.text() != "finished" || cancelled.Load() != 0 {
		t.Fatalf("resumed: %s (cancelled %d)", m, cancelled.Load())
	}
	if _, ok := resumed.next(); ok {
		t.Error("the resumed stream goes on after the answer")
	}
	// Resuming a delivered stream again: nothing to resume (405, LSSE-1),
	// and never the events of the session's GET stream (LSSE-7).
	if resp, again := l.get(priming.id); again != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET of a delivered stream: %d, want 405", resp.StatusCode)
	}
}

// TestLSSE5_CloseStream: Request.CloseStream ends the POST's response
// after the priming event (which carries retry); the answer comes on the
// stream resumed by GET (SEP-1699 polling).
func TestLSSE5_CloseStream(t *testing.T) {
	s := newServer(t, nil)
	toolFunc(t, s, "poll", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		if !req.CloseStream() {
			return ErrorResult("no stream to close"), nil
		}
		req.Progress(1, 0, "while away")
		return TextResult("after the close"), nil
	})
	l := startLegacyHTTP(t, s, &HTTPOptions{RetryInterval: 250 * time.Millisecond}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	st := newLegacyStream(t, l.post(ctx, request(1, "tools/call", obj{"name": "poll", "_meta": obj{"progressToken": 1}}), nil), cancel)
	priming, _ := st.next()
	if priming.retry != "250" {
		t.Errorf("priming event %+v, want retry: 250", priming)
	}
	if ev, ok := st.next(); ok {
		t.Fatalf("the POST stream went on after CloseStream: %+v", ev)
	}
	_, resumed := l.get(priming.id)
	if resumed == nil {
		t.Fatal("GET with Last-Event-ID refused")
	}
	if m, _ := resumed.message(); m.Method != "notifications/progress" {
		t.Errorf("resumed: %s, want the progress sent while away", m)
	}
	if m, _ := resumed.message(); m.text() != "after the close" {
		t.Errorf("resumed: %s, want the answer", m)
	}
	// Elsewhere CloseStream does nothing.
	c := startLegacyStdio(t, s, legacyVersion, nil)
	if m := c.roundTrip(1, "tools/call", obj{"name": "poll"}); !strings.Contains(m.text(), "no stream") {
		t.Errorf("stdio: %s", m)
	}
}

// TestLHTTP7_SessionLifecycle: ids are long and visible ASCII (LHTTP-5);
// DELETE ends a session, after which its id is 404 (LHTTP-7, LHTTP-8); an
// unknown id is 404 and GET or DELETE without one 400; a request of a
// 2025-11-25 client without a session is 400.
func TestLHTTP7_SessionLifecycle(t *testing.T) {
	s := newServer(t, nil)
	h := startHTTP(t, s, nil)
	a, b := h.initialize(t, legacyVersion, nil, nil), h.initialize(t, legacyVersion, nil, nil)
	if a.sid == b.sid || len(a.sid) < 22 || strings.ContainsFunc(a.sid, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		t.Errorf("session ids %q and %q", a.sid, b.sid)
	}
	req := a.request(context.Background(), http.MethodDelete, "", nil)
	if resp, err := a.c.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	if resp, _ := a.send(request(1, "tools/list", nil), nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("after DELETE: %d, want 404", resp.StatusCode)
	}
	wantResult(t, b.call(1, "tools/list", nil)) // the other session lives on
	unknown := &legacyHTTP{httpClient: h, sid: "nope", version: legacyVersion}
	if resp, _ := unknown.send(request(1, "tools/list", nil), nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404", resp.StatusCode)
	}
	none := &legacyHTTP{httpClient: h}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		resp, err := h.c.Do(none.request(context.Background(), method, "", map[string]string{"Accept": "text/event-stream"}))
		if err != nil || resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s without a session: %v %v, want 400", method, resp, err)
		}
	}
	resp, msgs := none.send(request(1, "tools/list", nil), nil)
	if resp.StatusCode != http.StatusBadRequest || len(msgs) != 1 || msgs[0].Error == nil || !strings.Contains(msgs[0].Error.Message, "initialize") {
		t.Errorf("sessionless legacy request: %d %v", resp.StatusCode, msgs)
	}
	if resp, _ := b.send(request(2, "tools/list", nil), map[string]string{"MCP-Protocol-Version": "2025-06-18"}); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("another version than the session's: %d, want 400 (LHTTP-9)", resp.StatusCode)
	}
}

// TestSessionHeaderIgnoredByModernRequests: a modern request carrying
// Mcp-Session-Id is served statelessly, whatever the id, and no answer to
// a modern request names a session (pitfall 1, 2).
func TestSessionHeaderIgnoredByModernRequests(t *testing.T) {
	s := newServer(t, nil)
	h := startHTTP(t, s, nil)
	l := h.initialize(t, legacyVersion, nil, nil)
	for _, sid := range []string{"bogus", l.sid} {
		resp, m := h.call(1, "tools/list", params(nil), map[string]string{"Mcp-Session-Id": sid})
		if resp.StatusCode != http.StatusOK || wantResult(t, m)["resultType"] != "complete" || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("modern request with session %q: %d %s %v", sid, resp.StatusCode, m, resp.Header)
		}
	}
}

// TestLHTTP12_SessionBoundToPrincipal: a session is found only for the
// principal that opened it.
func TestLHTTP12_SessionBoundToPrincipal(t *testing.T) {
	s := newServer(t, nil)
	h := startHTTP(t, s, &HTTPOptions{Principal: func(r *http.Request) string { return r.Header.Get("X-User") }})
	alice := h.initialize(t, legacyVersion, nil, map[string]string{"X-User": "alice"})
	if resp, _ := alice.send(request(1, "tools/list", nil), map[string]string{"X-User": "mallory"}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another principal's POST: %d, want 404", resp.StatusCode)
	}
	req := alice.request(context.Background(), http.MethodGet, "", map[string]string{"X-User": "mallory", "Accept": "text/event-stream"})
	if resp, err := h.c.Do(req); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("another principal's GET: %v %v, want 404", resp, err)
	}
	if resp, _ := alice.send(request(1, "tools/list", nil), map[string]string{"X-User": "alice"}); resp.StatusCode != http.StatusOK {
		t.Errorf("the owner: %d", resp.StatusCode)
	}
}

// TestSessionLimits: an initialize beyond MaxSessions is 503; an idle
// session ends after SessionIdleTimeout, unless a request keeps it busy.
func TestSessionLimits(t *testing.T) {
	s := newServer(t, nil)
	started := make(chan struct{}, 1)
	var cancelled atomic.Int32
	slowTool(t, s, started, &cancelled)
	hh := s.Handler(&HTTPOptions{MaxSessions: 2, SessionIdleTimeout: 100 * time.Millisecond}).(*httpHandler)
	h := serveHandler(t, hh)
	a := h.initialize(t, legacyVersion, nil, nil)
	h.initialize(t, legacyVersion, nil, nil)
	l := &legacyHTTP{httpClient: h}
	if resp, msgs := l.send(legacyInit(1, legacyVersion, nil), nil); resp.StatusCode != http.StatusServiceUnavailable || len(msgs) != 1 || msgs[0].Error == nil {
		t.Errorf("third session: %d %v, want 503 with an error", resp.StatusCode, msgs)
	}
	// A request longer than the idle timeout keeps its session.
	if m := a.call(1, "tools/call", obj{"name": "slow"}); m.text() != "finished" {
		t.Fatalf("slow call: %s", m)
	}
	<-started
	eventually(t, "idle sessions end", func() bool { return hh.sessions.count() == 0 })
	if resp, _ := a.send(request(2, "ping", nil), nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a timed-out session: %d, want 404", resp.StatusCode)
	}
	h.initialize(t, legacyVersion, nil, nil) // room again
}

// TestSessionsReleased: whether a session is deleted, times out, or its
// client just goes away (then times out), its goroutines and memory are
// released: the goroutine count and the live heap return to where they
// were before the sessions.
func TestSessionsReleased(t *testing.T) {
	s := newServer(t, &Options{Logging: true})
	hh := s.Handler(&HTTPOptions{SessionIdleTimeout: 200 * time.Millisecond, KeepAlive: time.Hour}).(*httpHandler)
	h := serveHandler(t, hh)
	// A first session warms up the connection pool and lazy tables.
	warm := h.initialize(t, legacyVersion, allCaps, nil)
	warm.call(0, "tools/list", obj{})
	h.tr.CloseIdleConnections()
	eventually(t, "the warm-up session times out", func() bool { return hh.sessions.count() == 0 })
	base := runtime.NumGoroutine()
	before := liveHeap()

	// The sessions' client has a transport of its own, dropped at the end,
	// so that what is measured is the server's.
	own := *h
	own.tr = &http.Transport{}
	own.c = &http.Client{Transport: own.tr}
	const n = 60
	var streams []*legacyStream
	var sessions []*legacyHTTP
	for i := 0; i < n; i++ {
		l := own.initialize(t, legacyVersion, allCaps, nil)
		wantResult(t, l.call(1, "resources/subscribe", obj{"uri": "file:///readme.txt"}))
		wantResult(t, l.call(2, "tools/call", obj{"name": "echo", "arguments": obj{"text": strings.Repeat("x", 4096)}}))
		ctx, cancel := context.WithCancel(context.Background())
		resp, err := l.c.Do(l.request(ctx, http.MethodGet, "", map[string]string{"Accept": "text/event-stream"}))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET: %v %v", resp, err)
		}
		sessions, streams = append(sessions, l), append(streams, readLegacyStream(t, resp, cancel))
	}
	s.NotifyResourceUpdated("file:///readme.txt")
	for _, st := range streams {
		if m, _ := st.message(); m.Method != "notifications/resources/updated" {
			t.Fatalf("got %s", m)
		}
	}
	if hh.sessions.count() != n {
		t.Fatalf("%d sessions, want %d", hh.sessions.count(), n)
	}
	during := liveHeap()
	for i, l := range sessions {
		switch i % 3 {
		case 0: // DELETE
			resp, err := l.c.Do(l.request(context.Background(), http.MethodDelete, "", nil))
			if err != nil || resp.StatusCode != http.StatusNoContent {
				t.Fatalf("DELETE: %v %v", resp, err)
			}
			resp.Body.Close()
		case 1: // the client goes away; the idle timeout ends the session
			streams[i].close()
		}
		// case 2: the stream stays open; the session outlives the idle
		// timeout while it is, and ends when the test closes it below.
	}
	eventually(t, "deleted and abandoned sessions end", func() bool { return hh.sessions.count() == n/3 })
	for i := 2; i < n; i += 3 {
		streams[i].close()
	}
	eventually(t, "every session ends", func() bool { return hh.sessions.count() == 0 })
	own.tr.CloseIdleConnections()
	sessions, streams, own = nil, nil, httpClient{} // the test's own
	h.tr.CloseIdleConnections()
	settledGoroutines(t, base)
	// The slack is a tenth of what the sessions held, so a session that
	// kept even a tenth of its memory fails the test.
	after, slack := liveHeap(), (during-before)/10
	t.Logf("live heap: %d KiB before, %d KiB with %d sessions, %d KiB after", before>>10, during>>10, n, after>>10)
	if after > before+slack {
		t.Errorf("live heap %d KiB after the sessions ended, %d KiB before (slack %d KiB)", after>>10, before>>10, slack>>10)
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestLSTDIO4_SessionEndsWithConnection: the session of a stdio
// connection and its goroutines end when the input ends.
func TestLSTDIO4_SessionEndsWithConnection(t *testing.T) {
	s := newServer(t, nil)
	base := runtime.NumGoroutine()
	c := startLegacyStdio(t, s, legacyVersion, nil)
	wantResult(t, c.roundTrip(1, "resources/subscribe", obj{"uri": "file:///readme.txt"}))
	c.finish()
	settledGoroutines(t, base+2) // the harness's own reader and cleanup
	if n := s.hub.count(); n != 0 {
		t.Errorf("%d listeners after the connection ended", n)
	}
}

// TestLSTDIO_SecondInitialize: a stdio connection is initialized once.
func TestLSTDIO_SecondInitialize(t *testing.T) {
	c := startLegacyStdio(t, newServer(t, nil), legacyVersion, nil)
	wantError(t, c.roundTrip(2, "initialize", obj{"protocolVersion": legacyVersion, "capabilities": obj{}, "clientInfo": obj{"name": "x", "version": "1"}}), -32600)
	wantResult(t, c.roundTrip(3, "ping", nil))
}

// TestLegacyDegrade: what a modern tool has and 2025-11-25 cannot express
// (an outputSchema whose root is an array, array structuredContent) is
// left out of a session's answers; the rest of the answer is kept.
func TestLegacyDegrade(t *testing.T) {
	s := newServer(t, nil)
	must(t, s.AddTool(mcp.Tool{Name: "list_items", InputSchema: wire.Raw(`{"type":"object"}`), OutputSchema: wire.Raw(`{"type":"array","items":{"type":"string"}}`)},
		func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
			r := TextResult(`["a","b"]`)
			r.StructuredContent = wire.Raw(`["a","b"]`)
			return r, nil
		}))
	c := startLegacyStdio(t, s, legacyVersion, nil)
	m := c.roundTrip(1, "tools/list", obj{})
	checkLegacy(t, "tools/list", m)
	tools, _ := wantResult(t, m)["tools"].([]any)
	names := map[string]obj{}
	for _, x := range tools {
		names[x.(obj)["name"].(string)] = x.(obj)
	}
	if names["echo"] == nil || names["list_items"] == nil || names["list_items"]["outputSchema"] != nil || names["list_items"]["inputSchema"] == nil {
		t.Errorf("tools %v, want every tool, list_items without its outputSchema", tools)
	}
	m = c.roundTrip(2, "tools/call", obj{"name": "list_items"})
	checkLegacy(t, "tools/call", m)
	if r := wantResult(t, m); r["structuredContent"] != nil || m.text() != `["a","b"]` {
		t.Errorf("call: %s, want the content without structuredContent", m)
	}
	// A modern client gets it all.
	m = c.roundTrip(3, "tools/call", params(obj{"name": "list_items"}))
	if wantResult(t, m)["structuredContent"] == nil {
		t.Errorf("modern call: %s", m)
	}
}

// TestDegradePaths: the paths of wire errors are read back, and a part is
// dropped from a member of a list item, or the item, or the top level.
func TestDegradePaths(t *testing.T) {
	for in, want := range map[string]string{
		`tools[3].outputSchema.type`: `tools[3].outputSchema`,
		`structuredContent`:          `structuredContent`,
		`a["x.y"][2].b`:              `a["x.y"][2].b`,
		`[0].c`:                      `[0].c`,
	} {
		if got := pathString(memberTarget(parsePath(in))); got != want {
			t.Errorf("%s: target %q, want %q", in, got, want)
		}
	}
	tree := any(map[string]any{"tools": []any{map[string]any{"a": 1.0}, map[string]any{"b": 2.0}}})
	tree, ok := without(tree, parsePath("tools[0]"))
	if !ok || mustJSON(tree) != `{"tools":[{"b":2}]}` {
		t.Errorf("without an item: %v %s", ok, mustJSON(tree))
	}
	if _, ok := without(tree, parsePath("tools[5].x")); ok {
		t.Error("a path that leads nowhere was deleted")
	}
}

// TestLBATCH_Batches: a 2025-03-26 session takes JSON-RPC batches: the
// requests are answered in order in one array, notifications get nothing,
// a batch of notifications only gets no answer (HTTP 202), an empty batch
// one error, initialize inside a batch an error (LBATCH-1..5); a session
// of a later version refuses batches.
func TestLBATCH_Batches(t *testing.T) {
	s := newServer(t, nil)
	batch := "[" + request(1, "ping", nil) + "," + notification("notifications/initialized", nil) + "," +
		request(2, "tools/call", obj{"name": "echo", "arguments": obj{"text": "hi"}}) + "," +
		legacyInit(3, "2025-03-26", nil) + "]"
	check := func(t *testing.T, raw string) {
		t.Helper()
		var answers []map[string]any
		if err := json.Unmarshal([]byte(raw), &answers); err != nil || len(answers) != 3 {
			t.Fatalf("answer %s, want an array of 3 responses", raw)
		}
		if answers[0]["id"] != 1.0 || answers[1]["id"] != 2.0 || answers[2]["id"] != 3.0 || answers[2]["error"] == nil ||
			!strings.Contains(mustJSON(answers[1]["result"]), `"hi"`) {
			t.Errorf("answers %s", raw)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		c := startLegacyStdio(t, s, "2025-03-26", nil)
		c.send(batch)
		// The harness reads lines as messages; a batch answer is an array.
		var m msg
		select {
		case m = <-c.out:
		case <-timeAfter():
			t.Fatal("no answer to the batch")
		}
		check(t, m.raw)
		c.send("[]")
		wantError(t, c.next(), -32600)
		c2 := startLegacyStdio(t, s, legacyVersion, nil)
		c2.send("[" + request(1, "ping", nil) + "]")
		wantError(t, c2.next(), -32600)
	})
	t.Run("http", func(t *testing.T) {
		h := startHTTP(t, s, nil)
		l := h.initialize(t, "2025-03-26", nil, nil)
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		resp := l.post(ctx, batch, nil)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("batch: %d %s", resp.StatusCode, body)
		}
		check(t, string(body))
		resp = l.post(ctx, "["+notification("notifications/initialized", nil)+"]", nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("notifications only: %d, want 202", resp.StatusCode)
		}
		later := h.initialize(t, legacyVersion, nil, nil)
		resp = later.post(ctx, "["+request(1, "ping", nil)+"]", nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("batch in a 2025-11-25 session: %d, want 400", resp.StatusCode)
		}
	})
}
