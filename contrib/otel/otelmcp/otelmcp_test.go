package otelmcp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/contrib/otel/otelmcp"
	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

var w3c = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// fixture is a traced MCP server whose tool calls a traced HTTP service,
// and the spans they all record.
type fixture struct {
	exp      *tracetest.InMemoryExporter
	tp       *sdktrace.TracerProvider
	srv      *server.Server
	upstream *httptest.Server
	baggage  chan string // the baggage member "user" as the handler saw it
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{exp: tracetest.NewInMemoryExporter(), baggage: make(chan string, 16)}
	f.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(f.exp))
	t.Cleanup(func() { _ = f.tp.Shutdown(context.Background()) })
	f.upstream = httptest.NewServer(otelhttp.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "sunny")
	}), "upstream", otelhttp.WithTracerProvider(f.tp), otelhttp.WithPropagators(w3c)))
	t.Cleanup(f.upstream.Close)
	hc := &http.Client{Transport: otelhttp.NewTransport(http.DefaultTransport, otelhttp.WithTracerProvider(f.tp), otelhttp.WithPropagators(w3c))}

	f.srv = server.New(mcp.Implementation{Name: "traced", Version: "1"}, &server.Options{
		Middleware: []jsonrpc.Middleware{otelmcp.ServerMiddleware(&otelmcp.Options{TracerProvider: f.tp})},
	})
	type in struct {
		City string `json:"city"`
	}
	type out struct {
		Forecast string `json:"forecast"`
	}
	err := server.AddTypedTool(f.srv, mcp.Tool{Name: "weather"}, func(ctx context.Context, req *server.ToolRequest, a in) (out, error) {
		f.baggage <- baggage.FromContext(ctx).Member("user").Value()
		r, err := http.NewRequestWithContext(ctx, http.MethodGet, f.upstream.URL+"/"+a.City, nil)
		if err != nil {
			return out{}, err
		}
		resp, err := hc.Do(r)
		if err != nil {
			return out{}, server.ToolError(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return out{Forecast: string(b)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := server.AddTypedTool(f.srv, mcp.Tool{Name: "broken"}, func(ctx context.Context, req *server.ToolRequest, a struct{}) (out, error) {
		return out{}, server.ToolErrorf("the forecast service is down")
	}); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) clientOptions(versions ...string) *client.Options {
	return &client.Options{
		Versions:   versions,
		Middleware: []jsonrpc.Middleware{otelmcp.ClientMiddleware(&otelmcp.Options{TracerProvider: f.tp, Attributes: []attribute.KeyValue{attribute.String("server.address", "test")}})},
	}
}

func attr(s sdktrace.ReadOnlySpan, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func wantAttr(t *testing.T, s sdktrace.ReadOnlySpan, key, want string) {
	t.Helper()
	if v, ok := attr(s, key); !ok || v.Emit() != want {
		t.Errorf("span %q: %s = %q (present %v), want %q", s.Name(), key, v.Emit(), ok, want)
	}
}

// TestOneTrace: a tool call is one trace from the caller's span through
// the client span, the server span (child of the context in _meta) and the
// handler's outgoing HTTP call to the upstream service's span, over stdio,
// Streamable HTTP (with the HTTP request's own span as a link) and a
// 2025-11-25 session; baggage reaches the handler.
func TestOneTrace(t *testing.T) {
	for _, tc := range []struct {
		name     string
		versions []string
		connect  func(t *testing.T, f *fixture, opts *client.Options) *client.Client
		http     bool
		session  bool
	}{
		{"stdio", nil, func(t *testing.T, f *fixture, opts *client.Options) *client.Client {
			c, err := client.Connect(t.Context(), client.InMemory(f.srv.ServeStdio), mcp.Implementation{Name: "app", Version: "1"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}, false, false},
		{"http", []string{mcp.ProtocolVersion}, func(t *testing.T, f *fixture, opts *client.Options) *client.Client {
			// The endpoint is traced as HTTP too: its span is the ambient
			// context of the MCP request, linked from the server span.
			h := otelhttp.NewHandler(f.srv.Handler(nil), "mcp-endpoint", otelhttp.WithTracerProvider(f.tp))
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			c, err := client.ConnectURL(t.Context(), ts.URL, mcp.Implementation{Name: "app", Version: "1"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}, true, false},
		{"http-session", []string{"2025-11-25"}, func(t *testing.T, f *fixture, opts *client.Options) *client.Client {
			ts := httptest.NewServer(f.srv.Handler(nil))
			t.Cleanup(ts.Close)
			c, err := client.ConnectURL(t.Context(), ts.URL, mcp.Implementation{Name: "app", Version: "1"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			c := tc.connect(t, f, f.clientOptions(tc.versions...))
			defer c.Close()
			f.exp.Reset()

			ctx, root := f.tp.Tracer("app").Start(t.Context(), "ask the weather")
			member, _ := baggage.NewMember("user", "ada")
			bag, _ := baggage.New(member)
			ctx = baggage.ContextWithBaggage(ctx, bag)
			res, err := c.CallTool(ctx, "weather", wire.Raw(`{"city":"oslo"}`))
			root.End()
			if err != nil {
				t.Fatal(err)
			}
			if string(res.StructuredContent) != `{"forecast":"sunny"}` {
				t.Fatalf("result: %s", res.StructuredContent)
			}
			if got := <-f.baggage; got != "ada" {
				t.Errorf("baggage user in the handler = %q, want ada", got)
			}

			spans := f.exp.GetSpans().Snapshots()
			byName := map[string]sdktrace.ReadOnlySpan{}
			for _, s := range spans {
				byName[s.Name()] = s
			}
			rootSpan, cs, ss := byName["ask the weather"], byName["tools/call weather"], sdktrace.ReadOnlySpan(nil)
			var out, up sdktrace.ReadOnlySpan
			for _, s := range spans {
				if s.Name() == "tools/call weather" && s.SpanKind() == trace.SpanKindClient {
					cs = s
				}
			}
			for _, s := range spans {
				switch {
				case s.Name() == "tools/call weather" && s.SpanKind() == trace.SpanKindServer:
					ss = s
				case s.Name() == "tools/call weather" && s.SpanKind() == trace.SpanKindClient:
					cs = s
				case s.SpanKind() == trace.SpanKindClient && strings.HasSuffix(s.Name(), "GET"):
					out = s // otelhttp's client span: "HTTP GET"
				case s.SpanKind() == trace.SpanKindServer && strings.HasSuffix(s.Name(), "GET"):
					up = s // otelhttp's server span of the upstream service
				}
			}
			if rootSpan == nil || cs == nil || ss == nil || out == nil || up == nil {
				var names []string
				for _, s := range spans {
					names = append(names, fmt.Sprintf("%s(%v)", s.Name(), s.SpanKind()))
				}
				t.Fatalf("spans: %v", names)
			}
			traceID := rootSpan.SpanContext().TraceID()
			for _, s := range []sdktrace.ReadOnlySpan{cs, ss, out, up} {
				if s.SpanContext().TraceID() != traceID {
					t.Errorf("span %q (%v) is in trace %s, want %s", s.Name(), s.SpanKind(), s.SpanContext().TraceID(), traceID)
				}
			}
			for _, link := range []struct{ child, parent sdktrace.ReadOnlySpan }{{cs, rootSpan}, {ss, cs}, {out, ss}, {up, out}} {
				if link.child.Parent().SpanID() != link.parent.SpanContext().SpanID() {
					t.Errorf("the parent of %q (%v) is %s, want %q %s", link.child.Name(), link.child.SpanKind(), link.child.Parent().SpanID(), link.parent.Name(), link.parent.SpanContext().SpanID())
				}
			}
			if !ss.Parent().IsRemote() {
				t.Errorf("the server span's parent is not remote")
			}
			for _, s := range []sdktrace.ReadOnlySpan{cs, ss} {
				wantAttr(t, s, "mcp.method.name", "tools/call")
				wantAttr(t, s, "gen_ai.tool.name", "weather")
				wantAttr(t, s, "gen_ai.operation.name", "execute_tool")
				if s.Status().Code == codes.Error {
					t.Errorf("span %q: status %v", s.Name(), s.Status())
				}
			}
			cid, _ := attr(cs, "jsonrpc.request.id")
			sid, _ := attr(ss, "jsonrpc.request.id")
			if cid.Emit() == "" || cid.Emit() != sid.Emit() {
				t.Errorf("jsonrpc.request.id: client %q, server %q", cid.Emit(), sid.Emit())
			}
			wantAttr(t, cs, "server.address", "test")
			if tc.session {
				wantAttr(t, ss, "mcp.protocol.version", "2025-11-25")
				if v, ok := attr(ss, "mcp.session.id"); !ok || v.Emit() == "" {
					t.Errorf("server span without mcp.session.id")
				}
			} else {
				wantAttr(t, ss, "mcp.protocol.version", mcp.ProtocolVersion)
				wantAttr(t, cs, "mcp.protocol.version", mcp.ProtocolVersion)
			}
			if tc.name == "stdio" {
				wantAttr(t, ss, "network.transport", "pipe")
			} else {
				wantAttr(t, ss, "network.transport", "tcp")
				wantAttr(t, ss, "network.protocol.name", "http")
				if _, ok := attr(ss, "client.address"); !ok {
					t.Errorf("server span without client.address")
				}
			}
			if tc.http {
				// The HTTP request carrying the call has a span of its own (the
				// client sends no HTTP trace headers: it is another trace),
				// which the server span links to.
				var endpoint sdktrace.ReadOnlySpan
				for _, s := range spans {
					if len(ss.Links()) == 1 && s.SpanContext().SpanID() == ss.Links()[0].SpanContext.SpanID() {
						endpoint = s
					}
				}
				if endpoint == nil || endpoint.SpanKind() != trace.SpanKindServer || !strings.HasSuffix(endpoint.Name(), "POST") {
					t.Errorf("the server span links %v, want the HTTP endpoint's span", ss.Links())
				}
			}
		})
	}
}

// TestErrorsOnSpans: a tool execution error is error.type tool_error; a
// JSON-RPC error is its code, on both sides, with the message as status.
func TestErrorsOnSpans(t *testing.T) {
	f := newFixture(t)
	c, err := client.Connect(t.Context(), client.InMemory(f.srv.ServeStdio), mcp.Implementation{Name: "app", Version: "1"}, f.clientOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f.exp.Reset()
	if res, err := c.CallTool(t.Context(), "broken", nil); err != nil || !res.IsError.Value {
		t.Fatalf("broken: %v %v", res, err)
	}
	if _, err := c.CallTool(t.Context(), "missing", nil); err == nil {
		t.Fatal("missing tool: no error")
	}
	spans := f.exp.GetSpans().Snapshots()
	seen := 0
	for _, s := range spans {
		switch s.Name() {
		case "tools/call broken":
			wantAttr(t, s, "error.type", "tool_error")
			seen++
		case "tools/call missing":
			wantAttr(t, s, "error.type", "-32602")
			wantAttr(t, s, "rpc.response.status_code", "-32602")
			if s.Status().Code != codes.Error || !strings.Contains(s.Status().Description, "missing") {
				t.Errorf("%s (%v): status %v", s.Name(), s.SpanKind(), s.Status())
			}
			seen++
		}
	}
	if seen != 4 {
		t.Errorf("%d of the 4 spans seen", seen)
	}
}
