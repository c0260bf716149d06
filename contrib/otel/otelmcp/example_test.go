package otelmcp_test

import (
	"context"
	"fmt"
	"log"
	"slices"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpgen/mcpgen/contrib/otel/otelmcp"
	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Tracing both ends: the client span's context travels in the request's
// _meta (traceparent) and becomes the parent of the server span. Connect's
// probe (server/discover) is traced too.
func Example() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	traced := []jsonrpc.Middleware{otelmcp.ServerMiddleware(&otelmcp.Options{TracerProvider: tp})}

	s := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, &server.Options{Middleware: traced})
	type args struct {
		Name string `json:"name"`
	}
	type greeting struct {
		Text string `json:"text"`
	}
	err := server.AddTypedTool(s, mcp.Tool{Name: "greet"}, func(ctx context.Context, req *server.ToolRequest, a args) (greeting, error) {
		return greeting{Text: "Hello, " + a.Name + "!"}, nil
	})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	c, err := client.Connect(ctx, client.InMemory(s.ServeStdio), mcp.Implementation{Name: "app", Version: "1.0.0"}, &client.Options{
		Versions:   []string{mcp.ProtocolVersion},
		Middleware: []jsonrpc.Middleware{otelmcp.ClientMiddleware(&otelmcp.Options{TracerProvider: tp})},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(ctx, "greet", []byte(`{"name":"Ada"}`)); err != nil {
		log.Fatal(err)
	}

	spans := exp.GetSpans()
	var lines []string
	for _, sp := range spans {
		parent := "root"
		for _, p := range spans {
			if p.SpanContext.SpanID() == sp.Parent.SpanID() {
				parent = p.Name + " (" + p.SpanKind.String() + ")"
			}
		}
		lines = append(lines, fmt.Sprintf("%s (%s) <- %s", sp.Name, sp.SpanKind, parent))
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// server/discover (client) <- root
	// server/discover (server) <- server/discover (client)
	// tools/call greet (client) <- root
	// tools/call greet (server) <- tools/call greet (client)
}
