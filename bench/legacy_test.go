package bench

// The legacy session benchmark: sequential tools/call over Streamable HTTP
// in a 2025-11-25 session (initialize, Mcp-Session-Id), client and server
// of one implementation in this process. mcp-go is at its fastest in this
// mode; go-sdk runs stateful (sessions), its default.

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const legacyBenchVersion = "2025-11-25"

var legacyImpls = []e2eImpl{
	{"mcpgen", setupMcpgenLegacy},
	{"gosdk", setupGosdkLegacy},
	{"mcpgo", setupMcpgoLegacy},
}

func setupMcpgenLegacy(tb testing.TB) *e2eSetup {
	srv := newE2EServer(newMcpgenServer(tb).Handler(nil))
	hc := e2eHTTPClient()
	ctx := context.Background()
	// A client of 2025-11-25 only: initialize and a session, as the hosts
	// in the field.
	c, err := client.ConnectURL(ctx, srv.url(), mcp.Implementation{Name: "bench-client", Version: "1.0.0"},
		&client.Options{HTTPClient: hc, Versions: []string{legacyBenchVersion}})
	if err != nil {
		tb.Fatal(err)
	}
	if v := c.ProtocolVersion(); v != legacyBenchVersion {
		tb.Fatalf("mcpgen: protocol version %q, want %q", v, legacyBenchVersion)
	}
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

func setupGosdkLegacy(tb testing.TB) *e2eSetup {
	s := gosdk.NewServer(&gosdk.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	gosdk.AddTool(s, &gosdk.Tool{Name: e2eTool, Description: e2eToolDesc},
		func(ctx context.Context, req *gosdk.CallToolRequest, a addArgs) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: strconv.Itoa(a.A + a.B)}}}, nil, nil
		})
	// Stateful (the default): a session per client, Mcp-Session-Id.
	h := gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s }, nil)
	srv := newE2EServer(h)
	hc := e2eHTTPClient()
	ctx := context.Background()
	c := gosdk.NewClient(&gosdk.Implementation{Name: "bench-client", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: srv.url(), HTTPClient: hc},
		&gosdk.ClientSessionOptions{ProtocolVersion: legacyBenchVersion})
	if err != nil {
		tb.Fatal(err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != legacyBenchVersion {
		tb.Fatalf("gosdk: negotiated %q, want %q", v, legacyBenchVersion)
	}
	if cs.ID() == "" {
		tb.Fatal("gosdk: no session id")
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

func setupMcpgoLegacy(tb testing.TB) *e2eSetup {
	s := mcpgoserver.NewMCPServer("bench", "1.0.0", mcpgoserver.WithToolCapabilities(false))
	s.AddTool(mcpgo.NewTool(e2eTool, mcpgo.WithDescription(e2eToolDesc), mcpgo.WithInputSchema[addArgs]()),
		mcpgo.NewTypedToolHandler(func(ctx context.Context, req mcpgo.CallToolRequest, a addArgs) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(strconv.Itoa(a.A + a.B)), nil
		}))
	// Sessions (the default session-id manager).
	h := mcpgoserver.NewStreamableHTTPServer(s, mcpgoserver.WithEndpointPath(e2ePath))
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
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = legacyBenchVersion
	init.Params.ClientInfo = mcpgo.Implementation{Name: "bench-client", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		tb.Fatal(err)
	}
	if v := c.ProtocolVersion(); v != legacyBenchVersion {
		tb.Fatalf("mcpgo: negotiated %q, want %q", v, legacyBenchVersion)
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

// TestLegacySession runs every implementation's legacy setup and checks a
// few calls.
func TestLegacySession(t *testing.T) {
	for _, m := range legacyImpls {
		t.Run("impl="+m.name, func(t *testing.T) {
			s := m.setup(t)
			defer s.close()
			for range 3 {
				checkE2E(t, m.name, s)
			}
		})
	}
}

func BenchmarkLegacySession(b *testing.B) {
	for _, m := range legacyImpls {
		b.Run("toolsCall/impl="+m.name, func(b *testing.B) {
			s := m.setup(b)
			defer s.close()
			checkE2E(b, m.name, s)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := s.call(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
