package client_test

// Fakes of legacy (2025-11-25) servers: a stdio one on the relay helper of
// helpers_test.go, and a Streamable HTTP one with sessions, a GET stream
// and SSE resumption, both scripted by the tests and recording what the
// client sends.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
)

// legacyInit is an InitializeResult offering version.
func legacyInit(version string, caps obj) obj {
	if caps == nil {
		caps = obj{"tools": obj{"listChanged": true}, "resources": obj{"subscribe": true, "listChanged": true}, "prompts": obj{}, "logging": obj{}}
	}
	return obj{"protocolVersion": version, "capabilities": caps,
		"serverInfo": obj{"name": "legacy-server", "version": "1.0.0"}, "instructions": "Legacy instructions."}
}

// legacyTools is a 2025-11-25 tools/list result: no resultType, no
// caching hints, a member only 2025-11-25 declares (execution).
func legacyTools(names ...string) obj {
	tools := []obj{}
	for _, n := range names {
		tools = append(tools, obj{"name": n, "description": "tool " + n,
			"inputSchema": obj{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": obj{"x": obj{"type": "string"}}},
			"execution":   obj{"taskSupport": "forbidden"}})
	}
	return obj{"tools": tools}
}

func legacyText(text string) obj {
	return obj{"content": []obj{{"type": "text", "text": text}}}
}

// ---- stdio ----

// connectLegacyStdio runs ConnectCommand against a fake legacy server:
// the probe gets -32601 (what SDK servers answer before initialize), and
// initialize gets init. It returns once notifications/initialized arrived.
func connectLegacyStdio(t testing.TB, opts *client.Options, init obj) (*client.Client, *stdioFake) {
	t.Helper()
	f, cmd := startStdio(t)
	type res struct {
		c   *client.Client
		err error
	}
	done := make(chan res, 1)
	go func() {
		c, err := client.ConnectCommand(context.Background(), cmd, clientInfo, opts)
		done <- res{c, err}
	}()
	first := f.recv()
	if first.Method == mcp.MethodDiscover {
		f.send(rpcError(first.ID, -32601, "Method not found", nil))
		first = f.recv()
	}
	if first.Method != "initialize" {
		t.Fatalf("got %s, want initialize", first.raw)
	}
	f.send(result(first.ID, init))
	if n := f.recv(); n.Method != "notifications/initialized" || n.ID != nil {
		t.Fatalf("after initialize: %s, want notifications/initialized", n.raw)
	}
	r := within(t, "ConnectCommand", func() res { return <-done })
	if r.err != nil {
		t.Fatalf("ConnectCommand: %v", r.err)
	}
	t.Cleanup(func() { f.close(); _ = r.c.Close() })
	return r.c, f
}

// ---- HTTP ----

// legacyHTTPFake is a 2025-11-25 Streamable HTTP endpoint with sessions.
// server/discover gets the 400 of SDK servers (no session); initialize
// mints a session; requests of other sessions get 404; GET opens the
// session's stream (events pushed with push); DELETE ends the session.
type legacyHTTPFake struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	reqs     []legacyReq
	session  string
	sessions int
	handlers map[string]func(w http.ResponseWriter, r *http.Request, m msg)
	get      func(w http.ResponseWriter, r *http.Request) // nil: the default stream
	init     obj
	streams  []chan string // open GET streams: send event text
	posted   chan msg      // responses and notifications the client POSTs (not notifications/initialized)
	// deleteStatus answers DELETE (0: 200, ending the session).
	deleteStatus int
}

// legacyReq is one HTTP request the client made.
type legacyReq struct {
	method string
	header http.Header
	m      msg // POST only
}

func newLegacyHTTPFake(t testing.TB) *legacyHTTPFake {
	f := &legacyHTTPFake{t: t, handlers: map[string]func(http.ResponseWriter, *http.Request, msg){},
		init: legacyInit("2025-11-25", nil), posted: make(chan msg, 64)}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.mu.Lock()
		for _, s := range f.streams {
			close(s)
		}
		f.streams = nil
		f.mu.Unlock()
		f.srv.CloseClientConnections()
		f.srv.Close()
	})
	return f
}

func (f *legacyHTTPFake) on(method string, h func(w http.ResponseWriter, r *http.Request, m msg)) {
	f.mu.Lock()
	f.handlers[method] = h
	f.mu.Unlock()
}

// expire ends the current session: its id gets 404 from now on.
func (f *legacyHTTPFake) expire() {
	f.mu.Lock()
	f.session = ""
	f.mu.Unlock()
}

func (f *legacyHTTPFake) serve(w http.ResponseWriter, r *http.Request) {
	rec := legacyReq{method: r.Method, header: r.Header.Clone()}
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		rec.m = parseMsg(f.t, string(body))
		rec.m.header = rec.header
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, rec)
	session := f.session
	h := f.handlers[rec.m.Method]
	get := f.get
	f.mu.Unlock()
	sid := r.Header.Get("Mcp-Session-Id")
	if sid != "" && sid != session {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodGet:
		if get != nil {
			get(w, r)
			return
		}
		f.stream(w, r)
		return
	case http.MethodDelete:
		f.mu.Lock()
		status := f.deleteStatus
		f.mu.Unlock()
		if status == 0 || status/100 == 2 {
			f.expire()
			status = http.StatusOK
		}
		w.WriteHeader(status)
		return
	}
	m := rec.m
	switch {
	case m.Method == "initialize":
		f.mu.Lock()
		f.sessions++
		f.session = fmt.Sprintf("sess-%d", f.sessions)
		init := f.init
		f.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", f.currentSession())
		if h != nil {
			h(w, r, m)
			return
		}
		writeJSON(w, 200, result(m.ID, init))
		return
	case h != nil:
		h(w, r, m)
	case sid == "":
		writeJSON(w, 400, rpcError(nil, -32000, "Bad Request: No valid session ID provided", nil))
	case m.Method == "":
		f.posted <- m // a response
		w.WriteHeader(http.StatusAccepted)
	case m.ID == nil:
		if m.Method != "notifications/initialized" {
			f.posted <- m // a notification
		}
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "tools/list":
		writeJSON(w, 200, result(m.ID, legacyTools("t")))
	default:
		writeJSON(w, 200, result(m.ID, obj{}))
	}
}

func (f *legacyHTTPFake) currentSession() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.session
}

// stream serves a GET stream: events pushed with push, until the test ends
// or the client goes away.
func (f *legacyHTTPFake) stream(w http.ResponseWriter, r *http.Request) {
	events := make(chan string, 16)
	f.mu.Lock()
	f.streams = append(f.streams, events)
	f.mu.Unlock()
	s := startSSE(w)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			_, _ = io.WriteString(s.w, ev)
			s.w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// push sends a message on the newest GET stream.
func (f *legacyHTTPFake) push(message string) {
	f.t.Helper()
	eventually(f.t, "a GET stream", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.streams) > 0
	})
	f.mu.Lock()
	s := f.streams[len(f.streams)-1]
	f.mu.Unlock()
	s <- "data: " + message + "\n\n"
}

// requests returns the HTTP requests of the given method ("" for all).
func (f *legacyHTTPFake) requests(method string) []legacyReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []legacyReq
	for _, r := range f.reqs {
		if method == "" || r.method == method {
			out = append(out, r)
		}
	}
	return out
}

// posts returns the POSTed messages of a JSON-RPC method.
func (f *legacyHTTPFake) posts(method string) []msg {
	var out []msg
	for _, r := range f.requests(http.MethodPost) {
		if r.m.Method == method {
			out = append(out, r.m)
		}
	}
	return out
}

// nextPosted returns the next response or notification the client POSTed.
func (f *legacyHTTPFake) nextPosted() msg {
	f.t.Helper()
	select {
	case m := <-f.posted:
		return m
	case <-time.After(waitFor):
		f.t.Fatal("the client posted nothing")
	}
	return msg{}
}

func (f *legacyHTTPFake) connect(t testing.TB, opts *client.Options) *client.Client {
	t.Helper()
	return connectURL(t, f.srv.URL, opts)
}

// jsonEq compares two values by their JSON.
func jsonEq(a, b any) bool {
	var x, y any
	_ = json.Unmarshal([]byte(mustJSON(a)), &x)
	_ = json.Unmarshal([]byte(mustJSON(b)), &y)
	return mustJSON(x) == mustJSON(y)
}

// hasModernMeta reports whether a request's _meta holds any of the
// 2026-07-28 keys a legacy request must not carry.
func hasModernMeta(m msg) bool {
	meta, _ := m.param("_meta")
	mm, _ := meta.(map[string]any)
	for k := range mm {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") {
			return true
		}
	}
	return false
}
