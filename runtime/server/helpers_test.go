package server

// Shared test harness: requests are built as JSON text, sent over a real
// transport (io.Pipe for stdio, httptest for Streamable HTTP) and the bytes
// the server writes are parsed back as JSON-RPC messages. Nothing here looks
// at the server's internal state.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
)

const (
	testVersion = mcp.ProtocolVersion
	// waitFor bounds every wait for the server in these tests; it is a
	// deadline against hangs, never an assertion about speed.
	waitFor = 10 * time.Second
)

var testInfo = mcp.Implementation{Name: "test-server", Version: "1.2.3"}

type obj = map[string]any

// reqMeta is a request _meta with the required keys (clientCapabilities
// caps, {} when nil) plus extra.
func reqMeta(caps obj, extra obj) obj {
	if caps == nil {
		caps = obj{}
	}
	m := obj{
		"io.modelcontextprotocol/protocolVersion":    testVersion,
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         obj{"name": "test-client", "version": "0.1"},
	}
	for k, v := range extra {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	return m
}

// params are request params with the standard _meta (no client
// capabilities) and the given members.
func params(fields obj) obj { return paramsCaps(nil, fields) }

// paramsCaps are request params declaring client capabilities caps.
func paramsCaps(caps obj, fields obj) obj {
	p := obj{"_meta": reqMeta(caps, nil)}
	for k, v := range fields {
		p[k] = v
	}
	return p
}

var elicitCaps = obj{"elicitation": obj{}}

// request is the JSON text of a request; p == nil leaves params out.
func request(id any, method string, p any) string {
	m := obj{"jsonrpc": "2.0", "id": id, "method": method}
	if p != nil {
		m["params"] = p
	}
	return mustJSON(m)
}

func notification(method string, p any) string {
	m := obj{"jsonrpc": "2.0", "method": method}
	if p != nil {
		m["params"] = p
	}
	return mustJSON(m)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// msg is one JSON-RPC message as the server wrote it.
type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  obj             `json:"params"`
	Result  obj             `json:"result"`
	Error   *rpcError       `json:"error"`

	raw string
	bad string // why raw is not a JSON-RPC message

	// serverRequest: a request from the server, which only 2025-11-25
	// sessions may get (bad says so for the modern era, MSG-3).
	serverRequest bool
}

// legacyOK reports whether a 2025-11-25 client may get m.
func (m msg) legacyOK() bool { return m.bad == "" || m.serverRequest }

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *rpcError) data() obj {
	var d obj
	_ = json.Unmarshal(e.Data, &d)
	return d
}

// parseMsg parses one message and checks the JSON-RPC 2.0 envelope.
func parseMsg(raw string) msg {
	var m msg
	dec := json.NewDecoder(strings.NewReader(raw))
	if err := dec.Decode(&m); err != nil {
		return msg{raw: raw, bad: err.Error()}
	}
	if dec.More() {
		return msg{raw: raw, bad: "more than one JSON value"}
	}
	m.raw = raw
	switch {
	case m.JSONRPC != "2.0":
		m.bad = `"jsonrpc" is not "2.0"`
	case m.Method != "" && m.Result == nil && m.Error == nil:
		if m.ID != nil {
			m.bad, m.serverRequest = "the server sent a request (MSG-3)", true
		}
	case m.Result != nil && m.Error == nil && m.ID != nil:
	case m.Error != nil && m.Result == nil:
	default:
		m.bad = "neither a notification nor a response"
	}
	return m
}

func (m msg) isResponse() bool { return m.Result != nil || m.Error != nil }

// idIs reports whether the message's id is the JSON text id.
func (m msg) idIs(id string) bool { return string(m.ID) == id }

func (m msg) String() string { return m.raw }

// dig walks nested objects.
func dig(v any, path ...string) any {
	for _, k := range path {
		o, ok := v.(obj)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

// subID is the _meta subscriptionId of a notification (nil when absent).
func (m msg) subID() any { return dig(m.Params, "_meta", "io.modelcontextprotocol/subscriptionId") }

// text is the text of the first content block of a tool result.
func (m msg) text() string {
	c, _ := m.Result["content"].([]any)
	if len(c) == 0 {
		return ""
	}
	s, _ := dig(c[0], "text").(string)
	return s
}

// wantError fails unless m is an error response with code.
func wantError(t *testing.T, m msg, code int) *rpcError {
	t.Helper()
	if m.Error == nil {
		t.Fatalf("want error %d, got %s", code, m.raw)
	}
	if m.Error.Code != code {
		t.Fatalf("want error %d, got %d (%s)", code, m.Error.Code, m.raw)
	}
	return m.Error
}

// wantResult fails unless m is a result response and returns the result.
func wantResult(t *testing.T, m msg) obj {
	t.Helper()
	if m.Result == nil {
		t.Fatalf("want a result, got %s", m.raw)
	}
	return m.Result
}

// ---- stdio ----

// stdioClient drives ServeStdio through pipes.
type stdioClient struct {
	t      *testing.T
	legacy bool // a 2025-11-25 client: requests from the server are fine
	in     *io.PipeWriter
	out    chan msg
	done   chan error
	cancel context.CancelFunc
	once   sync.Once
}

func startStdio(t *testing.T, s *Server) *stdioClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &stdioClient{t: t, in: inW, out: make(chan msg, 4096), done: make(chan error, 1), cancel: cancel}
	go func() {
		err := s.ServeStdio(ctx, inR, outW)
		outW.Close()
		c.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 64<<10), 32<<20)
		for sc.Scan() {
			c.out <- parseMsg(sc.Text())
		}
		close(c.out)
	}()
	t.Cleanup(func() {
		c.cancel()
		c.closeInput()
		go func() { // unblock the server's writes if nobody reads any more
			for range c.out {
			}
		}()
		select {
		case <-c.done:
		case <-time.After(waitFor):
			t.Errorf("ServeStdio did not return after its context ended")
		}
	})
	return c
}

func (c *stdioClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("write to the server: %v", err)
	}
}

func (c *stdioClient) closeInput() { c.once.Do(func() { c.in.Close() }) }

// next returns the next line the server wrote; every line must be a
// JSON-RPC message (STDIO-1, STDIO-2).
func (c *stdioClient) next() msg {
	c.t.Helper()
	select {
	case m, ok := <-c.out:
		if !ok {
			c.t.Fatalf("the server closed its output")
		}
		if m.bad != "" && !(c.legacy && m.serverRequest) {
			c.t.Fatalf("the server wrote a line that is not a JSON-RPC message (%s): %q", m.bad, m.raw)
		}
		return m
	case <-time.After(waitFor):
		c.t.Fatalf("no message from the server within %v", waitFor)
	}
	panic("unreachable")
}

// until reads messages until one satisfies stop; it returns the ones
// before it and the one that stopped.
func (c *stdioClient) until(stop func(msg) bool) ([]msg, msg) {
	c.t.Helper()
	var seen []msg
	for {
		m := c.next()
		if stop(m) {
			return seen, m
		}
		seen = append(seen, m)
	}
}

// response reads until the response to id (JSON text) and returns it with
// the messages that came before it.
func (c *stdioClient) response(id string) (msg, []msg) {
	c.t.Helper()
	before, m := c.until(func(m msg) bool { return m.isResponse() && m.idIs(id) })
	return m, before
}

// roundTrip sends a request and returns its response.
func (c *stdioClient) roundTrip(id any, method string, p any) msg {
	c.t.Helper()
	c.send(request(id, method, p))
	m, _ := c.response(mustJSON(id))
	return m
}

// expectQuiet sends a server/discover sentinel and returns every message
// the server wrote before answering it.
func (c *stdioClient) expectQuiet(sentinel string) []msg {
	c.t.Helper()
	c.send(request(sentinel, "server/discover", params(nil)))
	m, before := c.response(mustJSON(sentinel))
	wantResult(c.t, m)
	return before
}

// finish closes stdin and checks that ServeStdio returns nil (STDIO-8).
func (c *stdioClient) finish() {
	c.t.Helper()
	c.closeInput()
	select {
	case err := <-c.done:
		if err != nil {
			c.t.Fatalf("ServeStdio returned %v at EOF, want nil", err)
		}
		c.done <- nil
	case <-time.After(waitFor):
		c.t.Fatalf("ServeStdio did not return at EOF")
	}
}

// ---- Streamable HTTP ----

type httpClient struct {
	t  *testing.T
	ts *httptest.Server
	c  *http.Client
	tr *http.Transport
}

func startHTTP(t *testing.T, s *Server, opts *HTTPOptions) *httpClient {
	t.Helper()
	return serveHandler(t, s.Handler(opts))
}

// serveHandler serves h on httptest.
func serveHandler(t *testing.T, hh http.Handler) *httpClient {
	t.Helper()
	ts := httptest.NewServer(hh)
	tr := &http.Transport{}
	h := &httpClient{t: t, ts: ts, tr: tr, c: &http.Client{Transport: tr}}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		ts.CloseClientConnections()
		ts.Close()
	})
	return h
}

// stdHeaders are the headers a conforming client sends for body (§5.3.2).
func stdHeaders(body string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	var m struct {
		Method string `json:"method"`
		Params obj    `json:"params"`
	}
	if json.Unmarshal([]byte(body), &m) != nil {
		return h
	}
	if v, ok := dig(m.Params, "_meta", "io.modelcontextprotocol/protocolVersion").(string); ok {
		h.Set(mcpheader.ProtocolVersion, v)
	} else {
		h.Set(mcpheader.ProtocolVersion, testVersion)
	}
	if m.Method != "" {
		h.Set(mcpheader.Method, m.Method)
	}
	key := ""
	switch m.Method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		key = "taskId" // TASK-15
	}
	if v, ok := m.Params[key].(string); ok && key != "" {
		h.Set(mcpheader.Name, mcpheader.Encode(v))
	}
	return h
}

// post sends body with the standard headers, changed by hdr (an empty
// value deletes the header; an all-lower-case name is sent as is).
func (h *httpClient) post(ctx context.Context, body string, hdr map[string]string) *http.Response {
	h.t.Helper()
	req := mustRequest(h.t, ctx, h.ts.URL, body)
	for k, v := range hdr {
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		if k == strings.ToLower(k) {
			req.Header[k] = []string{v} // sent with a lower-case name
			continue
		}
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header[http.CanonicalHeaderKey(k)] = []string{v}
	}
	resp, err := h.c.Do(req)
	if err != nil {
		h.t.Fatalf("POST: %v", err)
	}
	return resp
}

// mustRequest is a POST of body with the standard headers.
func mustRequest(t *testing.T, ctx context.Context, url, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = stdHeaders(body)
	return req
}

// exchange POSTs body and reads the whole answer: the messages of an SSE
// stream in order, or the one JSON message.
func (h *httpClient) exchange(body string, hdr map[string]string) (*http.Response, []msg) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	resp := h.post(ctx, body, hdr)
	defer resp.Body.Close()
	return resp, readMessages(h.t, resp)
}

// call POSTs a request and returns the response and its final message.
func (h *httpClient) call(id any, method string, p any, hdr map[string]string) (*http.Response, msg) {
	h.t.Helper()
	resp, msgs := h.exchange(request(id, method, p), hdr)
	if len(msgs) == 0 {
		h.t.Fatalf("%s: status %d and no JSON-RPC message", method, resp.StatusCode)
	}
	return resp, msgs[len(msgs)-1]
}

func readMessages(t *testing.T, resp *http.Response) []msg {
	t.Helper()
	return readAnswer(t, resp, false)
}

// readAnswer is readMessages; legacy accepts what a 2025-11-25 client may
// get besides: requests from the server and events without data (the
// priming event of a stream, LSSE-4).
func readAnswer(t *testing.T, resp *http.Response, legacy bool) []msg {
	t.Helper()
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		var out []msg
		r := bufio.NewReader(resp.Body)
		for {
			ev, err := readEvent(r)
			if err != nil {
				if err != io.EOF {
					t.Fatalf("reading the SSE stream: %v", err)
				}
				return out
			}
			if ev.comment || legacy && ev.data == "" {
				continue
			}
			m := parseMsg(ev.data)
			if m.bad != "" && !(legacy && m.serverRequest) {
				t.Fatalf("SSE event is not a JSON-RPC message (%s): %q", m.bad, ev.data)
			}
			out = append(out, m)
		}
	case strings.HasPrefix(ct, "application/json"):
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("reading the body: %v", err)
		}
		m := parseMsg(string(b))
		if m.bad != "" {
			t.Fatalf("body is not a JSON-RPC message (%s): %q", m.bad, b)
		}
		return []msg{m}
	}
	b, _ := io.ReadAll(resp.Body)
	if len(bytes.TrimSpace(b)) != 0 {
		// non-JSON bodies (plain-text 403/405) carry no message
		return nil
	}
	return nil
}

type sseEvent struct {
	comment bool
	data    string
}

// readEvent reads one SSE event or comment.
func readEvent(r *bufio.Reader) (sseEvent, error) {
	var data []string
	primed := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF && (line != "" || len(data) > 0) {
				return sseEvent{}, io.ErrUnexpectedEOF
			}
			return sseEvent{}, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if len(data) > 0 {
				return sseEvent{data: strings.Join(data, "\n")}, nil
			}
			if primed {
				return sseEvent{}, nil // an event without data (priming)
			}
		case strings.HasPrefix(line, ":"):
			if len(data) == 0 {
				return sseEvent{comment: true, data: line}, nil
			}
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case strings.HasPrefix(line, "id:"), strings.HasPrefix(line, "retry:"):
			primed = true
		case strings.HasPrefix(line, "event:"):
		default:
			return sseEvent{}, fmt.Errorf("bad SSE line %q", line)
		}
	}
}

// stream is an open SSE response read in the background.
type stream struct {
	t      *testing.T
	resp   *http.Response
	cancel context.CancelFunc
	events chan sseEvent
	errc   chan error
}

// open POSTs body and expects an SSE stream.
func (h *httpClient) open(body string, hdr map[string]string) *stream {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp := h.post(ctx, body, hdr)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		h.t.Fatalf("want an SSE stream, got %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return newStream(h.t, resp, cancel)
}

// newStream reads the SSE response resp in the background; cancel ends
// its request.
func newStream(t *testing.T, resp *http.Response, cancel context.CancelFunc) *stream {
	s := &stream{t: t, resp: resp, cancel: cancel, events: make(chan sseEvent, 1024), errc: make(chan error, 1)}
	go func() {
		r := bufio.NewReader(resp.Body)
		for {
			ev, err := readEvent(r)
			if err != nil {
				s.errc <- err
				close(s.events)
				return
			}
			s.events <- ev
		}
	}()
	t.Cleanup(s.close)
	return s
}

// close drops the stream (HTTP cancellation, HCAN-2).
func (s *stream) close() {
	s.cancel()
	s.resp.Body.Close()
}

// nextEvent returns the next event or comment.
func (s *stream) nextEvent() sseEvent {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			s.t.Fatalf("the SSE stream ended: %v", <-s.errc)
		}
		return ev
	case <-time.After(waitFor):
		s.t.Fatalf("no SSE event within %v", waitFor)
	}
	panic("unreachable")
}

// next returns the next message, skipping comments.
func (s *stream) next() msg {
	s.t.Helper()
	for {
		ev := s.nextEvent()
		if ev.comment {
			continue
		}
		m := parseMsg(ev.data)
		if m.bad != "" {
			s.t.Fatalf("SSE event is not a JSON-RPC message (%s): %q", m.bad, ev.data)
		}
		return m
	}
}

// ended waits for the server to end the stream.
func (s *stream) ended() {
	s.t.Helper()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				if err := <-s.errc; err != io.EOF {
					s.t.Fatalf("stream ended with %v, want a clean end", err)
				}
				return
			}
			if !ev.comment {
				s.t.Fatalf("unexpected event after the final response: %s", ev.data)
			}
		case <-time.After(waitFor):
			s.t.Fatalf("the server did not end the stream")
		}
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// settledGoroutines waits until the goroutine count drops to at most n.
func settledGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		runtime.GC()
		got := runtime.NumGoroutine()
		if got <= n {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("goroutines: %d, want at most %d\n%s", got, n, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ---- fixtures ----

// newServer is a server with one tool, prompt, resource, template and a
// completion handler.
func newServer(t *testing.T, opts *Options) *Server {
	t.Helper()
	s := New(testInfo, opts)
	must(t, s.AddTool(mcp.Tool{Name: "echo", InputSchema: []byte(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Text string }
			if err := json.Unmarshal(req.Arguments, &in); err != nil {
				return nil, err
			}
			return TextResult(in.Text), nil
		}))
	must(t, s.AddPrompt(mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "name", Required: someTrue}}},
		func(ctx context.Context, req *PromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{UserMessage("Hello, " + req.Arguments["name"])}}, nil
		}))
	must(t, s.AddResource(mcp.Resource{URI: "file:///readme.txt", Name: "readme"},
		func(ctx context.Context, req *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
			return []mcp.ReadResourceResultContentsItem{TextContents(req.URI, "text/plain", "read me")}, nil
		}))
	must(t, s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///docs/{name}", Name: "docs"},
		func(ctx context.Context, req *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
			if req.Vars["name"] == "missing" {
				return nil, ResourceNotFound(req.URI)
			}
			return []mcp.ReadResourceResultContentsItem{TextContents(req.URI, "", "doc "+req.Vars["name"])}, nil
		}))
	s.SetCompletion(func(ctx context.Context, req *CompletionRequest) (*mcp.CompleteResultCompletion, error) {
		var vals []string
		for _, v := range []string{"go", "gopher", "python", "rust"} {
			if strings.HasPrefix(v, req.Params.Argument.Value) {
				vals = append(vals, v)
			}
		}
		return &mcp.CompleteResultCompletion{Values: vals}, nil
	})
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// toolFunc registers a tool with a permissive schema.
func toolFunc(t *testing.T, s *Server, name string, h ToolHandler) {
	t.Helper()
	must(t, s.AddTool(mcp.Tool{Name: name}, h))
}

// elicitForm is a one-field form elicitation.
func elicitForm(field string) mcp.ElicitRequestFormParams {
	return mcp.ElicitRequestFormParams{
		Message: "Please give " + field,
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
			Properties: map[string]mcp.PrimitiveSchemaDefinition{field: {StringSchema: &mcp.StringSchema{}}},
			Required:   []string{field},
		},
	}
}

// accept is an ElicitResult accepting the form with field = value.
func accept(field, value string) obj {
	return obj{"action": "accept", "content": obj{field: value}}
}

// clock is a settable time source for the requestState sealer.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// caller sends one request and returns the HTTP status (0 on stdio) and
// the final message.
type caller func(id any, method string, p any) (status int, m msg)

// forEachTransport runs f once over stdio and once over Streamable HTTP,
// against the same server.
func forEachTransport(t *testing.T, s *Server, f func(t *testing.T, call caller)) {
	t.Run("stdio", func(t *testing.T) {
		c := startStdio(t, s)
		f(t, func(id any, method string, p any) (int, msg) {
			return 0, c.roundTrip(id, method, p)
		})
		c.finish()
	})
	t.Run("http", func(t *testing.T) {
		h := startHTTP(t, s, nil)
		f(t, func(id any, method string, p any) (int, msg) {
			resp, m := h.call(id, method, p, nil)
			return resp.StatusCode, m
		})
	})
}

// wantStatus checks an HTTP status; status 0 (stdio) is not checked.
func wantStatus(t *testing.T, status, want int) {
	t.Helper()
	if status != 0 && status != want {
		t.Fatalf("HTTP status %d, want %d", status, want)
	}
}

// collector sends one request and returns the HTTP status (0 on stdio),
// the notifications that came before the final message, and that message.
type collector func(id any, method string, p any) (status int, notes []msg, final msg)

// forEachTransportN is forEachTransport with the notifications.
func forEachTransportN(t *testing.T, s *Server, f func(t *testing.T, call collector)) {
	t.Run("stdio", func(t *testing.T) {
		c := startStdio(t, s)
		f(t, func(id any, method string, p any) (int, []msg, msg) {
			c.send(request(id, method, p))
			m, before := c.response(mustJSON(id))
			return 0, before, m
		})
		c.finish()
	})
	t.Run("http", func(t *testing.T) {
		h := startHTTP(t, s, nil)
		f(t, func(id any, method string, p any) (int, []msg, msg) {
			resp, msgs := h.exchange(request(id, method, p), nil)
			if len(msgs) == 0 {
				t.Fatalf("%s: status %d and no message", method, resp.StatusCode)
			}
			return resp.StatusCode, msgs[:len(msgs)-1], msgs[len(msgs)-1]
		})
	})
}

func timeAfter() <-chan time.Time { return time.After(waitFor) }
