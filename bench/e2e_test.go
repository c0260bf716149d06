package bench

// End-to-end tools/call over Streamable HTTP: client and server of one
// implementation in this process, talking over a real TCP connection on
// 127.0.0.1 (httptest.Server, i.e. a net/http.Server on 127.0.0.1:0), one
// call at a time. See README.md, "End to end", for each peer's setup.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// addArgs are the arguments of the benchmark tool on every implementation;
// each library derives the tool's inputSchema from this struct itself.
type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

const (
	e2eTool     = "add"
	e2eToolDesc = "Adds two integers"
	e2eArgs     = `{"a":1,"b":2}`
	e2eWant     = "3"
	e2ePath     = "/mcp"
	e2eVersion  = "2026-07-28"
)

// e2eHTTPClient is the HTTP client every implementation's MCP client is
// given: same transport settings for all, so that connection handling is
// not what is compared. HTTP/1.1, keep-alive, no compression, no proxy.
func e2eHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:   false,
		MaxIdleConns:        8,
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}}
}

// e2eServer serves h at e2ePath on 127.0.0.1:0 (http.ServeMux in front of
// every implementation, default http.Server settings) and counts accepted
// connections, so that a benchmark can prove keep-alive held.
type e2eServer struct {
	*httptest.Server
	conns atomic.Int64
}

func newE2EServer(h http.Handler) *e2eServer {
	mux := http.NewServeMux()
	mux.Handle(e2ePath, h)
	s := &e2eServer{Server: httptest.NewUnstartedServer(mux)}
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	return s
}

func (s *e2eServer) url() string { return s.URL + e2ePath }

// An e2eSetup is one implementation, connected and warmed up: call makes
// one tools/call and returns the text of the result's first content block
// ("" when there is none). check, when set, is used instead of call for
// the checked call before the timed loop (the floor's call cannot tell the
// text without decoding, which the timed loop must not do).
type e2eSetup struct {
	srv   *e2eServer
	call  func(ctx context.Context) (string, error)
	check func(ctx context.Context) (string, error)
	close func()
}

type e2eImpl struct {
	name  string
	setup func(tb testing.TB) *e2eSetup
}

var e2eImpls = []e2eImpl{
	{"mcpgen", setupMcpgen},
	{"gosdk", setupGosdk},
	{"mcpgo", setupMcpgo},
	{"floor", setupFloor},
}

// ---- mcpgen ----

func newMcpgenServer(tb testing.TB) *server.Server {
	s := server.New(mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	err := server.AddTypedTool(s, mcp.Tool{Name: e2eTool, Description: wire.Some(e2eToolDesc)},
		func(ctx context.Context, req *server.ToolRequest, a addArgs) (*mcp.CallToolResult, error) {
			return server.TextResult(strconv.Itoa(a.A + a.B)), nil
		})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func mcpgenText(r *mcp.CallToolResult) string {
	if r == nil || len(r.Content) == 0 || r.Content[0].TextContent == nil || r.IsError.Value {
		return ""
	}
	return r.Content[0].TextContent.Text
}

func setupMcpgen(tb testing.TB) *e2eSetup {
	srv := newE2EServer(newMcpgenServer(tb).Handler(nil))
	hc := e2eHTTPClient()
	ctx := context.Background()
	c, err := client.ConnectURL(ctx, srv.url(), mcp.Implementation{Name: "bench-client", Version: "1.0.0"},
		&client.Options{HTTPClient: hc})
	if err != nil {
		tb.Fatal(err)
	}
	// The client learns x-mcp-header parameters from tools/list.
	n := 0
	for _, err := range c.ListTools(ctx) {
		if err != nil {
			tb.Fatal(err)
		}
		n++
	}
	if n != 1 {
		tb.Fatalf("mcpgen: tools/list: %d tools, want 1", n)
	}
	if v := c.ProtocolVersion(); v != e2eVersion {
		tb.Fatalf("mcpgen: protocol version %q, want %q", v, e2eVersion)
	}
	args := wire.Raw(e2eArgs)
	return &e2eSetup{
		srv: srv,
		call: func(ctx context.Context) (string, error) {
			r, err := c.CallTool(ctx, e2eTool, args)
			return mcpgenText(r), err
		},
		close: func() { _ = c.Close(); hc.CloseIdleConnections(); srv.Close() },
	}
}

// ---- go-sdk ----

func setupGosdk(tb testing.TB) *e2eSetup {
	s := gosdk.NewServer(&gosdk.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	gosdk.AddTool(s, &gosdk.Tool{Name: e2eTool, Description: e2eToolDesc},
		func(ctx context.Context, req *gosdk.CallToolRequest, a addArgs) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: strconv.Itoa(a.A + a.B)}}}, nil, nil
		})
	// Stateless: no Mcp-Session-Id, a temporary session per request.
	// JSONResponse: answer application/json as mcpgen and mcp-go do for a
	// call without notifications (go-sdk's default is a text/event-stream).
	h := gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s },
		&gosdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := newE2EServer(h)
	hc := e2eHTTPClient()
	ctx := context.Background()
	c := gosdk.NewClient(&gosdk.Implementation{Name: "bench-client", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: srv.url(), HTTPClient: hc, DisableStandaloneSSE: true},
		&gosdk.ClientSessionOptions{ProtocolVersion: e2eVersion})
	if err != nil {
		tb.Fatal(err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != e2eVersion {
		tb.Fatalf("gosdk: negotiated %q, want %q", v, e2eVersion)
	}
	lr, err := cs.ListTools(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if len(lr.Tools) != 1 {
		tb.Fatalf("gosdk: tools/list: %d tools, want 1", len(lr.Tools))
	}
	return &e2eSetup{
		srv: srv,
		call: func(ctx context.Context) (string, error) {
			r, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: e2eTool, Arguments: json.RawMessage(e2eArgs)})
			if err != nil || r.IsError || len(r.Content) == 0 {
				return "", err
			}
			if t, ok := r.Content[0].(*gosdk.TextContent); ok {
				return t.Text, nil
			}
			return "", nil
		},
		close: func() { _ = cs.Close(); hc.CloseIdleConnections(); srv.Close() },
	}
}

// ---- mcp-go ----

func setupMcpgo(tb testing.TB) *e2eSetup {
	s := mcpgoserver.NewMCPServer("bench", "1.0.0", mcpgoserver.WithToolCapabilities(false))
	s.AddTool(mcpgo.NewTool(e2eTool, mcpgo.WithDescription(e2eToolDesc), mcpgo.WithInputSchema[addArgs]()),
		mcpgo.NewTypedToolHandler(func(ctx context.Context, req mcpgo.CallToolRequest, a addArgs) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(strconv.Itoa(a.A + a.B)), nil
		}))
	// Stateless session-id manager; a 2026-07-28 request is served by its
	// own ephemeral session whatever the setting.
	h := mcpgoserver.NewStreamableHTTPServer(s, mcpgoserver.WithStateLess(true), mcpgoserver.WithEndpointPath(e2ePath))
	srv := newE2EServer(h)
	hc := e2eHTTPClient()
	ctx := context.Background()
	c, err := mcpgoclient.NewStreamableHttpClient(srv.url(), mcpgotransport.WithHTTPBasicClient(hc))
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	// Initialize probes server/discover first and stays on 2026-07-28
	// when the server answers it.
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = e2eVersion
	init.Params.ClientInfo = mcpgo.Implementation{Name: "bench-client", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		tb.Fatal(err)
	}
	if v := c.ProtocolVersion(); v != e2eVersion {
		tb.Fatalf("mcpgo: negotiated %q, want %q", v, e2eVersion)
	}
	lr, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	if len(lr.Tools) != 1 {
		tb.Fatalf("mcpgo: tools/list: %d tools, want 1", len(lr.Tools))
	}
	return &e2eSetup{
		srv: srv,
		call: func(ctx context.Context) (string, error) {
			req := mcpgo.CallToolRequest{}
			req.Params.Name = e2eTool
			req.Params.Arguments = json.RawMessage(e2eArgs)
			r, err := c.CallTool(ctx, req)
			if err != nil || r.IsError || len(r.Content) == 0 {
				return "", err
			}
			if t, ok := r.Content[0].(mcpgo.TextContent); ok {
				return t.Text, nil
			}
			return "", nil
		},
		close: func() { _ = c.Close(); hc.CloseIdleConnections(); srv.Close() },
	}
}

// ---- floor ----

// An e2eExchange is one tools/call on the wire: the request mcpgen's client
// sends (body and headers) and the response mcpgen's server answers.
type e2eExchange struct {
	reqHeader http.Header
	reqBody   []byte
	respType  string
	respBody  []byte
}

// recorder is an http.RoundTripper keeping the last exchange.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	last e2eExchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	rb, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(rb))
	r.mu.Lock()
	r.last = e2eExchange{reqHeader: req.Header.Clone(), reqBody: body, respType: resp.Header.Get("Content-Type"), respBody: rb}
	r.mu.Unlock()
	return resp, nil
}

// recordMcpgenCall makes one mcpgen tools/call and returns its exchange.
func recordMcpgenCall(tb testing.TB) e2eExchange {
	srv := newE2EServer(newMcpgenServer(tb).Handler(nil))
	defer srv.Close()
	hc := e2eHTTPClient()
	defer hc.CloseIdleConnections()
	rec := &recorder{next: hc.Transport}
	ctx := context.Background()
	c, err := client.ConnectURL(ctx, srv.url(), mcp.Implementation{Name: "bench-client", Version: "1.0.0"},
		&client.Options{HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	for _, err := range c.ListTools(ctx) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	r, err := c.CallTool(ctx, e2eTool, wire.Raw(e2eArgs))
	if err != nil {
		tb.Fatal(err)
	}
	if got := mcpgenText(r); got != e2eWant {
		tb.Fatalf("mcpgen (recording): result text %q, want %q", got, e2eWant)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.last
}

// setupFloor replays mcpgen's exchange with no MCP at all: the server reads
// the body and writes the pre-encoded response, the client POSTs the
// pre-encoded request with the same headers and reads the whole body.
func setupFloor(tb testing.TB) *e2eSetup {
	x := recordMcpgenCall(tb)
	srv := newE2EServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		w.Header().Set("Content-Type", x.respType)
		_, _ = w.Write(x.respBody)
	}))
	hc := e2eHTTPClient()
	url := srv.url()
	var last []byte
	call := func(ctx context.Context) (string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(x.reqBody))
		if err != nil {
			return "", err
		}
		req.Header = x.reqHeader // read-only, shared across calls
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return "", err
		}
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("floor: HTTP %d", resp.StatusCode)
		}
		last = body
		return "", nil
	}
	return &e2eSetup{
		srv:  srv,
		call: call,
		// The check decodes the replayed response with mcpgen's types; the
		// timed loop only reads it.
		check: func(ctx context.Context) (string, error) {
			if _, err := call(ctx); err != nil {
				return "", err
			}
			if !bytes.Equal(last, x.respBody) {
				return "", errors.New("floor: response differs from the recorded one")
			}
			var m struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(last, &m); err != nil {
				return "", err
			}
			var r mcp.CallToolResult
			if err := wireimpl.Decode(m.Result, &r); err != nil {
				return "", err
			}
			return mcpgenText(&r), nil
		},
		close: func() { hc.CloseIdleConnections(); srv.Close() },
	}
}

// checkE2E makes one call and checks its result, so that a broken setup
// cannot produce a fast number.
func checkE2E(tb testing.TB, name string, s *e2eSetup) {
	tb.Helper()
	call := s.call
	if s.check != nil {
		call = s.check
	}
	got, err := call(context.Background())
	if err != nil {
		tb.Fatalf("%s: tools/call: %v", name, err)
	}
	if got != e2eWant {
		tb.Fatalf("%s: tools/call result text %q, want %q", name, got, e2eWant)
	}
}

// TestE2E runs every implementation's setup and checks a few calls.
func TestE2E(t *testing.T) {
	for _, m := range e2eImpls {
		t.Run("impl="+m.name, func(t *testing.T) {
			s := m.setup(t)
			defer s.close()
			for range 3 {
				checkE2E(t, m.name, s)
			}
			if n := s.srv.conns.Load(); n > 2 {
				t.Errorf("%s: %d connections for a few sequential calls: keep-alive is not working", m.name, n)
			}
		})
	}
}

func BenchmarkE2E(b *testing.B) {
	for _, m := range e2eImpls {
		b.Run("toolsCall/impl="+m.name, func(b *testing.B) {
			s := m.setup(b)
			defer s.close()
			checkE2E(b, m.name, s)
			call := s.call
			ctx := context.Background()
			conns := s.srv.conns.Load()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := call(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			if n := s.srv.conns.Load() - conns; n > 1 {
				b.Errorf("%s: %d new connections during %d sequential calls: keep-alive is not working", m.name, n, b.N)
			}
		})
	}
}
