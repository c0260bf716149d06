package client_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"os"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Connect to a Streamable HTTP server, list its tools and call one.
func ExampleConnectURL() {
	// A server to talk to, on a local test listener.
	s := server.New(mcp.Implementation{Name: "hello-server", Version: "1.0.0"}, nil)
	type args struct {
		Name string `json:"name"`
	}
	err := server.AddTypedTool(s, mcp.Tool{Name: "greet", Description: wire.Some("Greets someone")},
		func(ctx context.Context, req *server.ToolRequest, a args) (*mcp.CallToolResult, error) {
			return server.TextResult("Hello, " + a.Name + "!"), nil
		})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(nil))
	defer srv.Close()

	ctx := context.Background()
	c, err := client.ConnectURL(ctx, srv.URL, mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	for tool, err := range c.ListTools(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", tool.Name, tool.Description.Value)
	}
	res, err := c.CallTool(ctx, "greet", wire.Raw(`{"name":"Ada"}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].TextContent.Text)
	// Output:
	// greet: Greets someone
	// Hello, Ada!
}

// Launch a stdio server and talk to it over its stdin and stdout.
func ExampleConnectCommand() {
	// The server is this test binary re-executed as a stdio MCP server
	// (see TestMain). In a program: exec.Command("/path/to/mcp-server").
	cmd := helperCommand("server")

	ctx := context.Background()
	c, err := client.ConnectCommand(ctx, cmd, mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	if err != nil {
		log.Fatal(err) // e.g. the command failed to start, or no MCP server answered
	}
	defer c.Close() // closes the server's stdin and waits for it to exit

	d, err := c.Discover(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Meta.ServerInfo.Name, "says:", d.Instructions.Value)
	res, err := c.CallTool(ctx, "greet", wire.Raw(`{"name":"Grace"}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].TextContent.Text)
	// Output:
	// example-server says: Greets people.
	// Hello, Grace!
}

// Follow a server's changes with subscriptions/listen.
func ExampleClient_Listen() {
	s := server.New(mcp.Implementation{Name: "changing-server", Version: "1.0.0"}, nil)
	noop := func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
		return server.TextResult(""), nil
	}
	if err := s.AddTool(mcp.Tool{Name: "first"}, noop); err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(nil))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := client.ConnectURL(ctx, srv.URL, mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	filter := mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true)}
	for n, err := range c.Listen(ctx, filter) {
		if err != nil {
			log.Fatal(err) // the stream broke: listen again to resubscribe
		}
		switch {
		case n.SubscriptionsAcknowledgedNotification != nil:
			honoured := n.SubscriptionsAcknowledgedNotification.Params.Notifications
			fmt.Println("subscribed to tool list changes:", honoured.ToolsListChanged.Value)
			// The server changes its tools while we listen.
			if err := s.AddTool(mcp.Tool{Name: "second"}, noop); err != nil {
				log.Fatal(err)
			}
		case n.ToolListChangedNotification != nil:
			fmt.Println("the tool list changed")
			for tool, err := range c.ListTools(ctx) {
				if err != nil {
					log.Fatal(err)
				}
				fmt.Println("-", tool.Name)
			}
			cancel() // ends the iteration (and closes the stream)
		}
	}
	// Output:
	// subscribed to tool list changes: true
	// the tool list changed
	// - first
	// - second
}

// A tool that asks the user for input: the server answers the first call
// with an input request, the client's Elicit callback answers it, and the
// client retries the call with the answer (multi round-trip requests).
func ExampleOptions_elicit() {
	s := server.New(mcp.Implementation{Name: "booking-server", Version: "1.0.0"}, nil)
	err := s.AddTool(mcp.Tool{Name: "book_table"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
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
			return nil, err // server.ErrInputRequired: the client is asked
		}
		return server.TextResult(fmt.Sprintf("Table for %v booked.", ans.Content["size"].Number.Value)), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(nil))
	defer srv.Close()

	ctx := context.Background()
	c, err := client.ConnectURL(ctx, srv.URL, mcp.Implementation{Name: "example-client", Version: "1.0.0"}, &client.Options{
		// Setting Elicit declares the elicitation capability on every request.
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			fmt.Println("server asks:", p.ElicitRequestFormParams.Message)
			return &mcp.ElicitResult{
				Action:  mcp.ElicitResultActionAccept,
				Content: map[string]mcp.ElicitResultContentValue{"size": {Number: wire.Some(4.0)}},
			}, nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "book_table", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].TextContent.Text)
	// Output:
	// server asks: How many people?
	// Table for 4 booked.
}

// Connect to a server in the same process, e.g. in a test: InMemory runs
// the server's stdio loop on a pair of pipes.
func ExampleInMemory() {
	s := server.New(mcp.Implementation{Name: "in-process", Version: "1.0.0"}, nil)
	err := s.AddTool(mcp.Tool{Name: "ping", InputSchema: wire.Raw(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return server.TextResult("pong"), nil
		})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InMemory(s.ServeStdio), mcp.Implementation{Name: "test", Version: "1"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "ping", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].TextContent.Text)
	// Output: pong
}

// Log every request the client sends with log/slog: a middleware sees the
// method, the params and the result or error.
func ExampleOptions_middleware() {
	s := server.New(mcp.Implementation{Name: "logged", Version: "1.0.0"}, nil)
	_ = s.AddTool(mcp.Tool{Name: "ping"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return server.TextResult("pong"), nil
	})
	// A handler without timestamps, so the output below is stable.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	logRequests := func(next jsonrpc.Handler) jsonrpc.Handler {
		return func(ctx context.Context, method string, params wire.Value) (wire.Value, error) {
			res, err := next(ctx, method, params)
			logger.Info("mcp request", "method", method, "ok", err == nil)
			return res, err
		}
	}
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InMemory(s.ServeStdio), mcp.Implementation{Name: "test", Version: "1"},
		&client.Options{Middleware: []jsonrpc.Middleware{logRequests}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(ctx, "ping", nil); err != nil {
		log.Fatal(err)
	}
	// Output:
	// level=INFO msg="mcp request" method=server/discover ok=true
	// level=INFO msg="mcp request" method=tools/call ok=true
}
