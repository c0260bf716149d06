package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A tool typed both ways: the inputSchema comes from the input type, the
// outputSchema from the output type, and the handler returns a Go value,
// which the server sends as structuredContent and as the same JSON in a
// text block. A false without omitempty stays in the output (and is
// required by the schema); a nil slice is null (and allowed to be).
func ExampleAddTypedTool_output() {
	type In struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	type Out struct {
		Sum      float64  `json:"sum" description:"a + b"`
		Negative bool     `json:"negative"`
		Warnings []string `json:"warnings"`
	}
	s := server.New(mcp.Implementation{Name: "calc", Version: "1.0.0"}, &server.Options{OmitServerInfo: true})
	err := server.AddTypedTool(s, mcp.Tool{Name: "add"}, func(ctx context.Context, req *server.ToolRequest, in In) (Out, error) {
		return Out{Sum: in.A + in.B, Negative: in.A+in.B < 0}, nil
	})
	if err != nil {
		panic(err)
	}
	schema, _ := server.OutputSchemaFor[Out]()
	fmt.Println(string(schema))
	serveLine(s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"add","arguments":{"a":2,"b":3}}}`)
	// Output:
	// {"properties":{"negative":{"type":"boolean"},"sum":{"description":"a + b","type":"number"},"warnings":{"items":{"type":"string"},"type":["array","null"]}},"required":["sum","negative","warnings"],"type":"object"}
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"{\"sum\":5,\"negative\":false,\"warnings\":null}","type":"text"}],"resultType":"complete","structuredContent":{"sum":5,"negative":false,"warnings":null}}}
}

// A recursive type is described once under $defs; the root type refers
// to itself as "#".
func ExampleOutputSchemaFor() {
	type Node struct {
		Name     string `json:"name"`
		Children []Node `json:"children,omitempty"`
	}
	type Tree struct {
		Root *Node `json:"root,omitempty"`
	}
	schema, err := server.OutputSchemaFor[Tree]()
	if err != nil {
		panic(err)
	}
	fmt.Println(string(schema))
	// Output:
	// {"$defs":{"Node":{"properties":{"children":{"items":{"$ref":"#/$defs/Node"},"type":"array"},"name":{"type":"string"}},"required":["name"],"type":"object"}},"properties":{"root":{"$ref":"#/$defs/Node"}},"type":"object"}
}

// A failure of the tool itself (here: a business rule) is returned with
// ToolError: the client and its model get an isError result explaining it,
// not a JSON-RPC error.
func ExampleToolError() {
	type In struct {
		Amount int `json:"amount"`
	}
	type Out struct {
		Balance int `json:"balance"`
	}
	s := server.New(mcp.Implementation{Name: "bank", Version: "1.0.0"}, &server.Options{OmitServerInfo: true})
	balance := 100
	err := server.AddTypedTool(s, mcp.Tool{Name: "withdraw"}, func(ctx context.Context, req *server.ToolRequest, in In) (Out, error) {
		if in.Amount > balance {
			return Out{}, server.ToolErrorf("insufficient funds: the balance is %d", balance)
		}
		balance -= in.Amount
		return Out{Balance: balance}, nil
	})
	if err != nil {
		panic(err)
	}
	serveLine(s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"withdraw","arguments":{"amount":500}}}`)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"insufficient funds: the balance is 100","type":"text"}],"isError":true,"resultType":"complete"}}
}

// Mistakes are errors at registration: a name that breaks the spec's rule
// (the error names it) and a second registration under a name that is
// taken, which Replace allows.
func ExampleReplace() {
	s := server.New(mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	h := func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return server.TextResult("v1"), nil
	}
	var ne *server.NameError
	err := s.AddTool(mcp.Tool{Name: "get weather"}, h)
	fmt.Println(errors.As(err, &ne), ne.Rule)
	fmt.Println(err)

	fmt.Println(s.AddTool(mcp.Tool{Name: "get_weather"}, h))
	fmt.Println(s.AddTool(mcp.Tool{Name: "get_weather"}, h))
	fmt.Println(s.AddTool(mcp.Tool{Name: "get_weather"}, h, server.Replace()))
	// Output:
	// true TOOL-4
	// server: tool name "get weather" breaks TOOL-4: a tool name is 1 to 128 characters of A-Z, a-z, 0-9, underscore, hyphen and dot; ' ' at byte 3 is not (server.AllowAnyName() accepts other names)
	// <nil>
	// server: tool "get_weather" is registered already; pass server.Replace() to replace it
	// <nil>
}

// A result that breaks its schema never leaves: here the handler's
// structuredContent does not match the tool's outputSchema. The client
// gets -32603; the log says where the result went wrong.
func ExampleServer_AddTool_invalidResult() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // stable output for this example
			}
			return a
		},
	}))
	s := server.New(mcp.Implementation{Name: "demo", Version: "1.0.0"}, &server.Options{Logger: logger})
	err := s.AddTool(mcp.Tool{
		Name:         "count",
		OutputSchema: wire.Raw(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return server.StructuredResult(map[string]any{"n": "three"})
	})
	if err != nil {
		panic(err)
	}
	serveLine(s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"count"}}`)
	// Output:
	// level=ERROR msg="invalid result not sent; answered with -32603" method=tools/call name=count violations="result.structuredContent.n: got string, want integer"
	// {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: the server produced an invalid result"}}
}

// Middleware learns what the transport knows of a request with
// RequestInfoFrom: its JSON-RPC id, the transport, a 2025-11-25 session,
// the client's address.
func ExampleRequestInfoFrom() {
	describe := func(next jsonrpc.Handler) jsonrpc.Handler {
		return func(ctx context.Context, method string, params wire.Value) (wire.Value, error) {
			if info, ok := server.RequestInfoFrom(ctx); ok {
				fmt.Println(method, "id", info.ID, "over", info.Transport)
			}
			return next(ctx, method, params)
		}
	}
	s := server.New(mcp.Implementation{Name: "demo", Version: "1.0.0"}, &server.Options{Middleware: []jsonrpc.Middleware{describe}})
	in := `{"jsonrpc":"2.0","id":"req-7","method":"server/discover","params":{` + meta + `}}` + "\n"
	_ = s.ServeStdio(context.Background(), strings.NewReader(in), io.Discard)
	// Output: server/discover id "req-7" over stdio
}
