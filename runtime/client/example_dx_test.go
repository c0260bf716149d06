package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A middleware that needs the JSON-RPC id of the requests it passes on
// (tracing records it) asks for it with OnRequestID: the id is chosen
// after the middleware runs.
func ExampleOnRequestID() {
	s := server.New(mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	type sum struct {
		Sum int `json:"sum"`
	}
	err := server.AddTypedTool(s, mcp.Tool{Name: "add"}, func(ctx context.Context, req *server.ToolRequest, in struct{ A, B int }) (sum, error) {
		return sum{Sum: in.A + in.B}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	ids := func(next jsonrpc.Handler) jsonrpc.Handler {
		return func(ctx context.Context, method string, params wire.Value) (wire.Value, error) {
			ctx = client.OnRequestID(ctx, func(id wire.ID) { fmt.Println(method, "sent as id", id) })
			return next(ctx, method, params)
		}
	}
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InMemory(s.ServeStdio), mcp.Implementation{Name: "app", Version: "1.0.0"},
		&client.Options{Versions: []string{mcp.ProtocolVersion}, Middleware: []jsonrpc.Middleware{ids}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	for _, err := range c.ListTools(ctx) { // the client checks results against the listed outputSchemas
		if err != nil {
			log.Fatal(err)
		}
	}
	res, err := c.CallTool(ctx, "add", wire.Raw(`{"A":2,"B":3}`))
	if err != nil {
		log.Fatal(err) // a *client.OutputError if the result broke the tool's outputSchema
	}
	fmt.Println(string(res.StructuredContent))
	// Output:
	// server/discover sent as id 1
	// tools/list sent as id 2
	// tools/call sent as id 3
	// {"sum":5}
}
