package client_test

// Shared test harness. Servers are fakes that look only at the bytes the
// client sends: an httptest server with a hand-written handler that records
// every request (headers and body) and answers with scripted JSON or SSE,
// and, for stdio, a fake server process. The process is this test binary
// re-executed (TestMain below) as a relay that copies its stdin and stdout
// to a TCP connection back to the test, so each test scripts the server
// side in Go with ordinary channels. Some tests use the real runtime/server
// in the same process instead.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

const (
	// waitFor bounds every wait in these tests; it guards against hangs
	// and is never an assertion about speed.
	waitFor = 10 * time.Second

	helperEnv   = "MCPGEN_CLIENT_TEST_HELPER" // "relay" or "server"
	relayAddrEv = "MCPGEN_CLIENT_TEST_RELAY"  // where the relay connects
)

var clientInfo = mcp.Implementation{Name: "test-client", Version: "0.9.1"}

// TestMain turns the test binary into a stdio server when it is launched
// as a helper process (helperCommand); otherwise it runs the tests.
func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "relay":
		os.Exit(runRelay(os.Getenv(relayAddrEv)))
	case "server":
		os.Exit(runStdioServer())
	}
	os.Exit(m.Run())
}

// TestHelperProcess is what helperCommand names on the command line; the
// helper's work happens in TestMain before any test runs, so in a normal
// test run this does nothing.
func TestHelperProcess(t *testing.T) {}

// helperCommand re-executes the test binary as a helper stdio server.
func helperCommand(mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+mode), env...)
	// A race-enabled helper would otherwise sleep a second at exit.
	cmd.Env = append(cmd.Env, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd.Stderr = os.Stderr
	return cmd
}

// runRelay copies stdin to a TCP connection to the test and the
// connection to stdout. It exits when either side ends: the test closing
// the connection is the server process going away, and stdin ending is
// the client shutting the server down (STDIO-8).
func runRelay(addr string) int {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 2
	}
	go func() {
		_, _ = io.Copy(conn, os.Stdin)
		_ = conn.(*net.TCPConn).CloseWrite()
		os.Exit(0)
	}()
	_, _ = io.Copy(os.Stdout, conn)
	return 0
}

// runStdioServer serves exampleServer over stdio (ExampleConnectCommand).
func runStdioServer() int {
	s := exampleServer()
	if err := s.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		return 1
	}
	return 0
}

// exampleServer is the real server the examples talk to.
func exampleServer() *server.Server {
	s := server.New(mcp.Implementation{Name: "example-server", Version: "1.0.0"}, &server.Options{
		Instructions: "Greets people.",
	})
	type greetArgs struct {
		Name string `json:"name" description:"who to greet"`
	}
	err := server.AddTypedTool(s, mcp.Tool{Name: "greet", Description: wire.Some("Greets someone")},
		func(ctx context.Context, req *server.ToolRequest, a greetArgs) (*mcp.CallToolResult, error) {
			return server.TextResult("Hello, " + a.Name + "!"), nil
		})
	if err != nil {
		panic(err)
	}
	err = s.AddTool(mcp.Tool{Name: "book_table", Description: wire.Some("Books a table, asking for the party size")},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			ans, err := req.Elicit("party", mcp.ElicitRequestFormParams{
				Message: "How many people?",
				RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
					Properties: map[string]mcp.PrimitiveSchemaDefinition{
						"size": {NumberSchema: &mcp.NumberSchema{Type: "integer"}},
					},
					Required: []string{"size"},
				},
			})
			if err != nil {
				return nil, err // server.ErrInputRequired on the first round
			}
			if ans.Action != mcp.ElicitResultActionAccept {
				return server.TextResult("No table booked."), nil
			}
			return server.TextResult(fmt.Sprintf("Table for %v booked.", ans.Content["size"].Number.Value)), nil
		})
	if err != nil {
		panic(err)
	}
	return s
}

// ---- JSON helpers ----

type obj = map[string]any

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// path walks decoded JSON through object keys; ok is false when a step is
// missing or not an object.
func path(v any, keys ...string) (any, bool) {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// msg is one JSON-RPC message as the client wrote it.
type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  obj             `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`

	raw    string
	header http.Header // HTTP only
}

func parseMsg(t testing.TB, raw string) msg {
	t.Helper()
	var m msg
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("the client sent something that is not a JSON object: %v\n%s", err, raw)
	}
	m.raw = raw
	return m
}

func (m msg) meta(key string) (any, bool) { return path(m.Params, "_meta", key) }

func (m msg) param(keys ...string) (any, bool) { return path(any(m.Params), keys...) }

// idKey is the id as JSON text, so 1 and "1" stay distinct (ID-5).
func (m msg) idKey() string { return string(m.ID) }

func result(id json.RawMessage, result any) string {
	return mustJSON(obj{"jsonrpc": "2.0", "id": id, "result": result})
}

func rpcError(id json.RawMessage, code int, message string, data any) string {
	e := obj{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	m := obj{"jsonrpc": "2.0", "error": e}
	if id != nil {
		m["id"] = id
	}
	return mustJSON(m)
}

func notification(method string, params any) string {
	m := obj{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	return mustJSON(m)
}

func subMeta(id json.RawMessage) obj {
	return obj{"io.modelcontextprotocol/subscriptionId": id}
}

func discoverResult(ttl int) obj {
	return obj{
		"resultType":        "complete",
		"supportedVersions": []string{mcp.ProtocolVersion},
		"capabilities":      obj{"tools": obj{"listChanged": true}, "resources": obj{"subscribe": true, "listChanged": true}, "prompts": obj{}},
		"ttlMs":             ttl,
		"cacheScope":        "public",
	}
}

func toolDef(name string, props obj) obj {
	if props == nil {
		props = obj{}
	}
	return obj{"name": name, "inputSchema": obj{"type": "object", "properties": props}}
}

func toolsResult(tools []obj, next *string, ttl int, scope string) obj {
	if tools == nil {
		tools = []obj{}
	}
	r := obj{"resultType": "complete", "tools": tools, "ttlMs": ttl, "cacheScope": scope}
	if next != nil {
		r["nextCursor"] = *next
	}
	return r
}

func textResult(text string) obj {
	return obj{"resultType": "complete", "content": []obj{{"type": "text", "text": text}}}
}

func readResult(uri, text string, ttl int, scope string) obj {
	return obj{"resultType": "complete", "ttlMs": ttl, "cacheScope": scope,
		"contents": []obj{{"uri": uri, "text": text}}}
}

func textOf(t testing.TB, r *mcp.CallToolResult) string {
	t.Helper()
	if r == nil || len(r.Content) != 1 || r.Content[0].TextContent == nil {
		t.Fatalf("want one text block, got %+v", r)
	}
	return r.Content[0].TextContent.Text
}

func ptr[T any](v T) *T { return &v }

// ---- HTTP fake ----

// httpFake is a Streamable HTTP endpoint with a scripted handler per
// JSON-RPC method. It records every POST.
type httpFake struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	reqs     []msg
	handlers map[string]func(w http.ResponseWriter, r *http.Request, m msg)
	tools    []obj
}

func newHTTPFake(t testing.TB) *httpFake {
	f := &httpFake{t: t, handlers: map[string]func(http.ResponseWriter, *http.Request, msg){}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// on scripts the answer to method.
func (f *httpFake) on(method string, h func(w http.ResponseWriter, r *http.Request, m msg)) {
	f.mu.Lock()
	f.handlers[method] = h
	f.mu.Unlock()
}

// setTools sets what the default tools/list handler returns.
func (f *httpFake) setTools(tools ...obj) {
	f.mu.Lock()
	f.tools = tools
	f.mu.Unlock()
}

func (f *httpFake) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	m := parseMsg(f.t, string(body))
	m.header = r.Header.Clone()
	f.mu.Lock()
	f.reqs = append(f.reqs, m)
	h := f.handlers[m.Method]
	tools := f.tools
	f.mu.Unlock()
	switch {
	case h != nil:
		h(w, r, m)
	case m.Method == mcp.MethodListTools:
		writeJSON(w, 200, result(m.ID, toolsResult(tools, nil, 0, "public")))
	case m.Method == mcp.MethodDiscover:
		writeJSON(w, 200, result(m.ID, discoverResult(0)))
	case m.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	default:
		writeJSON(w, 404, rpcError(m.ID, -32601, "Method not found", nil))
	}
}

// requests returns what was posted for method ("" for all).
func (f *httpFake) requests(method string) []msg {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []msg
	for _, m := range f.reqs {
		if method == "" || m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// connect connects a client to the fake. The fake speaks 2026-07-28 only
// and the tests count what the client posts: unless a test names its
// versions, the client is modern-only, so no era probe precedes the
// requests (legacy_*_test.go cover dual-era clients).
func (f *httpFake) connect(t testing.TB, opts *client.Options) *client.Client {
	t.Helper()
	return connectURL(t, f.srv.URL, modernOnly(opts))
}

// modernOnly returns opts for a modern-only client unless they name
// versions.
func modernOnly(opts *client.Options) *client.Options {
	var o client.Options
	if opts != nil {
		o = *opts
	}
	if o.Versions == nil {
		o.Versions = []string{mcp.ProtocolVersion}
	}
	return &o
}

func connectURL(t testing.TB, url string, opts *client.Options) *client.Client {
	t.Helper()
	c, err := client.ConnectURL(context.Background(), url, clientInfo, opts)
	if err != nil {
		t.Fatalf("ConnectURL: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// sse is an SSE response being written.
type sse struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	return &sse{w: w}
}

func (s *sse) event(data string) {
	_, _ = io.WriteString(s.w, "data: "+data+"\n\n")
	s.w.(http.Flusher).Flush()
}

func (s *sse) comment(text string) {
	_, _ = io.WriteString(s.w, ": "+text+"\n\n")
	s.w.(http.Flusher).Flush()
}

// realHTTP serves s over httptest.
func realHTTP(t testing.TB, s *server.Server) string {
	srv := httptest.NewServer(s.Handler(nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// ---- stdio fake ----

// stdioFake is the server end of a stdio connection: what the client
// writes to the server's stdin arrives on recv, and send writes to the
// server's stdout.
type stdioFake struct {
	t    testing.TB
	conn net.Conn
	in   chan msg
	eof  chan struct{}
	// ready is closed once conn is set (or the relay never connected).
	ready chan struct{}

	mu  sync.Mutex
	all []msg
	wmu sync.Mutex
}

// startStdio launches the relay helper and accepts its connection. Nothing
// has been read yet: the client's first message is its probe.
func startStdio(t testing.TB) (*stdioFake, *exec.Cmd) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	cmd := helperCommand("relay", relayAddrEv+"="+ln.Addr().String())
	accepted := make(chan net.Conn, 1)
	go func() {
		conn, err := ln.Accept()
		if err == nil {
			accepted <- conn
		}
	}()
	f := &stdioFake{t: t, in: make(chan msg, 256), eof: make(chan struct{}), ready: make(chan struct{})}
	go func() {
		defer close(f.ready)
		select {
		case f.conn = <-accepted:
		case <-time.After(waitFor):
			close(f.in)
			close(f.eof)
			return
		}
		go f.read()
	}()
	return f, cmd
}

func (f *stdioFake) read() {
	defer close(f.eof)
	defer close(f.in)
	br := bufio.NewReaderSize(f.conn, 1<<20)
	for {
		line, err := br.ReadString('\n')
		if line = strings.TrimSuffix(line, "\n"); line != "" {
			var m msg
			dec := json.NewDecoder(strings.NewReader(line))
			dec.UseNumber()
			if dec.Decode(&m) != nil {
				m = msg{Method: "<invalid JSON>"}
			}
			m.raw = line
			f.mu.Lock()
			f.all = append(f.all, m)
			f.mu.Unlock()
			f.in <- m
		}
		if err != nil {
			return
		}
	}
}

// connect runs ConnectCommand against the fake, answering the
// server/discover probe with a DiscoverResult.
func connectStdio(t testing.TB, opts *client.Options) (*client.Client, *stdioFake) {
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
	probe := f.recv()
	if probe.Method != mcp.MethodDiscover {
		t.Fatalf("first message %s, want the server/discover probe", probe.raw)
	}
	f.send(result(probe.ID, discoverResult(0)))
	var r res
	select {
	case r = <-done:
	case <-time.After(waitFor):
		t.Fatal("ConnectCommand did not return")
	}
	if r.err != nil {
		t.Fatalf("ConnectCommand: %v", r.err)
	}
	t.Cleanup(func() { f.close(); _ = r.c.Close() })
	return r.c, f
}

// recv returns the next message the client wrote.
func (f *stdioFake) recv() msg {
	f.t.Helper()
	select {
	case m, ok := <-f.in:
		if !ok {
			f.t.Fatal("the client closed the server's stdin")
		}
		return m
	case <-time.After(waitFor):
		f.t.Fatal("the client sent nothing")
	}
	return msg{}
}

// recvMethod skips to the next message with method.
func (f *stdioFake) recvMethod(method string) msg {
	f.t.Helper()
	for {
		if m := f.recv(); m.Method == method {
			return m
		}
	}
}

func (f *stdioFake) send(lines ...string) {
	<-f.ready
	if f.conn == nil {
		f.t.Error("the server process never connected")
		return
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	for _, l := range lines {
		if _, err := io.WriteString(f.conn, l+"\n"); err != nil {
			f.t.Errorf("write to the client: %v", err)
		}
	}
}

// close makes the server process exit (its stdout ends).
func (f *stdioFake) close() {
	<-f.ready
	if f.conn != nil {
		_ = f.conn.Close()
	}
}

func (f *stdioFake) received() []msg {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]msg(nil), f.all...)
}

// ---- logs ----

// logRecorder is a slog.Handler keeping every record.
type logRecorder struct {
	mu   sync.Mutex
	recs []logRecord
}

type logRecord struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	h.recs = append(h.recs, rec)
	h.mu.Unlock()
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) records() []logRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]logRecord(nil), h.recs...)
}

// ---- misc ----

// eventually polls cond until it holds or waitFor passes.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// within runs f and fails the test when it does not return in waitFor.
func within[T any](t testing.TB, what string, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitFor):
		t.Fatalf("%s did not return", what)
	}
	var zero T
	return zero
}

func isRPCError(err error, code int64) bool {
	var rpc *wire.Error
	return errors.As(err, &rpc) && rpc.Code == code
}

// ---- listen ----

type note struct {
	n   *mcp.ServerNotification
	err error
}

// listenChan runs a Listen iteration in a goroutine; the channel is closed
// when the iteration ends.
func listenChan(seq iter.Seq2[*mcp.ServerNotification, error]) <-chan note {
	ch := make(chan note, 64)
	go func() {
		defer close(ch)
		for n, err := range seq {
			ch <- note{n, err}
		}
	}()
	return ch
}

// nextNote returns the next notification; an error or the end fails the
// test.
func nextNote(t testing.TB, ch <-chan note) *mcp.ServerNotification {
	t.Helper()
	select {
	case it, ok := <-ch:
		if !ok {
			t.Fatal("the listen iteration ended")
		}
		if it.err != nil {
			t.Fatalf("listen: %v", it.err)
		}
		return it.n
	case <-time.After(waitFor):
		t.Fatal("no notification")
	}
	return nil
}

// listenEnd waits for the iteration to end and returns the error it
// yielded last, if any; notifications still pending are returned too.
func listenEnd(t testing.TB, ch <-chan note) (rest []*mcp.ServerNotification, err error) {
	t.Helper()
	for {
		select {
		case it, ok := <-ch:
			if !ok {
				return rest, err
			}
			if it.err != nil {
				err = it.err
			} else {
				rest = append(rest, it.n)
			}
		case <-time.After(waitFor):
			t.Fatal("the listen iteration did not end")
		}
	}
}
