package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// meta is the _meta every request carries: the protocol version and the
// client's capabilities for this request.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func greeter() *server.Server {
	s := server.New(mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	err := s.AddTool(mcp.Tool{
		Name:        "greet",
		InputSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Name string }
		if err := json.Unmarshal(req.Arguments, &in); err != nil {
			return nil, err
		}
		return server.TextResult("Hello, " + in.Name + "!"), nil
	})
	if err != nil {
		panic(err)
	}
	return s
}

// Serving stdio: one JSON-RPC message per line in, one per line out.
// ServeStdio returns nil when its input ends.
func ExampleServer_ServeStdio() {
	s := greeter()
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"greet","arguments":{"name":"Ada"}}}` + "\n")
	var out bytes.Buffer
	if err := s.ServeStdio(context.Background(), in, &out); err != nil {
		fmt.Println("error:", err)
	}
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"}},"content":[{"text":"Hello, Ada!","type":"text"}],"resultType":"complete"}}
}

// Serving Streamable HTTP: every request is a POST whose headers mirror
// the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name).
func ExampleServer_Handler() {
	s := greeter()
	ts := httptest.NewServer(s.Handler(nil))
	defer ts.Close()

	body := `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{` + meta + `,"name":"greet","arguments":{"name":"Grace"}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "greet")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))
	fmt.Println(string(answer))

	// The same request without Mcp-Name is refused.
	req, _ = http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	defer resp.Body.Close()
	answer, _ = io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(answer))
	// Output:
	// 200 application/json
	// {"jsonrpc":"2.0","id":"a","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"}},"content":[{"text":"Hello, Grace!","type":"text"}],"resultType":"complete"}}
	// 400 {"jsonrpc":"2.0","id":"a","error":{"code":-32020,"message":"Header mismatch: Mcp-Name header is missing"}}
}

// A typed tool: the inputSchema is derived from the struct once, at
// registration; arguments that break it become an isError result and
// never reach the handler.
func ExampleAddTypedTool() {
	type Args struct {
		City string `json:"city" description:"City to look up"`
		Days int    `json:"days,omitempty"`
	}
	s := server.New(mcp.Implementation{Name: "weather", Version: "0.1.0"}, &server.Options{OmitServerInfo: true})
	err := server.AddTypedTool(s, mcp.Tool{Name: "forecast"}, func(ctx context.Context, req *server.ToolRequest, in Args) (*mcp.CallToolResult, error) {
		return server.TextResult(fmt.Sprintf("%s: sunny for %d days", in.City, in.Days)), nil
	})
	if err != nil {
		panic(err)
	}
	schema, _ := server.SchemaFor[Args]()
	fmt.Println(string(schema))

	call := func(id int, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s,"name":"forecast","arguments":%s}}`, id, meta, args)
	}
	var out bytes.Buffer
	_ = s.ServeStdio(context.Background(), strings.NewReader(call(1, `{"city":"Oslo","days":3}`)+"\n"), &out)
	fmt.Print(out.String())

	// Without the required city: a tool execution error.
	out.Reset()
	_ = s.ServeStdio(context.Background(), strings.NewReader(call(2, `{"days":3}`)+"\n"), &out)
	var resp struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	_ = json.Unmarshal(out.Bytes(), &resp)
	fmt.Println("isError:", resp.Result.IsError, strings.Contains(resp.Result.Content[0].Text, "city"))
	// Output:
	// {"properties":{"city":{"description":"City to look up","type":"string"},"days":{"type":"integer"}},"required":["city"],"type":"object"}
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"Oslo: sunny for 3 days","type":"text"}],"resultType":"complete"}}
	// isError: true true
}

// serveLine serves one request line over stdio and prints the answer.
func serveLine(s *server.Server, line string) {
	var out bytes.Buffer
	if err := s.ServeStdio(context.Background(), strings.NewReader(line+"\n"), &out); err != nil {
		fmt.Println("error:", err)
	}
	fmt.Print(out.String())
}

// A prompt with a required argument; prompts/get without it is -32602.
func ExampleServer_AddPrompt() {
	s := server.New(mcp.Implementation{Name: "prompts", Version: "1"}, &server.Options{OmitServerInfo: true})
	err := s.AddPrompt(mcp.Prompt{
		Name:      "review",
		Arguments: []mcp.PromptArgument{{Name: "code", Required: wire.Some(true)}},
	}, func(ctx context.Context, req *server.PromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{server.UserMessage("Review: " + req.Arguments["code"])}}, nil
	})
	if err != nil {
		panic(err)
	}
	serveLine(s, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{`+meta+`,"name":"review","arguments":{"code":"x := 1"}}}`)
	serveLine(s, `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{`+meta+`,"name":"review"}}`)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"messages":[{"content":{"text":"Review: x := 1","type":"text"},"role":"user"}],"resultType":"complete"}}
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Missing required argument \"code\" for prompt review"}}
}

// A fixed resource and a resource template; reads carry the caching hints
// of Options (ttlMs, cacheScope), and an unknown URI is -32602 with the
// URI in data.
func ExampleServer_AddResourceTemplate() {
	s := server.New(mcp.Implementation{Name: "files", Version: "1"}, &server.Options{OmitServerInfo: true, CacheTTL: time.Minute})
	err := s.AddResource(mcp.Resource{URI: "file:///README", Name: "readme"},
		func(ctx context.Context, req *server.ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
			return []mcp.ReadResourceResultContentsItem{server.TextContents(req.URI, "text/plain", "hello")}, nil
		})
	if err != nil {
		panic(err)
	}
	err = s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///users/{id}", Name: "user"},
		func(ctx context.Context, req *server.ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
			return []mcp.ReadResourceResultContentsItem{server.TextContents(req.URI, "text/plain", "user "+req.Vars["id"])}, nil
		})
	if err != nil {
		panic(err)
	}
	read := func(id int, uri string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{%s,"uri":%q}}`, id, meta, uri)
	}
	serveLine(s, read(1, "file:///README"))
	serveLine(s, read(2, "file:///users/42"))
	serveLine(s, read(3, "file:///nowhere"))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"cacheScope":"public","contents":[{"mimeType":"text/plain","text":"hello","uri":"file:///README"}],"resultType":"complete","ttlMs":60000}}
	// {"jsonrpc":"2.0","id":2,"result":{"cacheScope":"public","contents":[{"mimeType":"text/plain","text":"user 42","uri":"file:///users/42"}],"resultType":"complete","ttlMs":60000}}
	// {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Resource not found: file:///nowhere","data":{"uri":"file:///nowhere"}}}
}

// Log every request the server serves with log/slog: a middleware sees
// the method, its decoded params and the result or error.
func ExampleOptions_middleware() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // stable output for this example
			}
			return a
		},
	}))
	logRequests := func(next jsonrpc.Handler) jsonrpc.Handler {
		return func(ctx context.Context, method string, params wire.Value) (wire.Value, error) {
			attrs := []any{"method", method}
			if p, ok := params.(*mcp.CallToolRequestParams); ok {
				attrs = append(attrs, "tool", p.Name)
			}
			res, err := next(ctx, method, params)
			logger.Info("served", append(attrs, "ok", err == nil)...)
			return res, err
		}
	}
	s := server.New(mcp.Implementation{Name: "demo", Version: "1.0.0"}, &server.Options{Middleware: []jsonrpc.Middleware{logRequests}})
	_ = s.AddTool(mcp.Tool{Name: "ping"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return server.TextResult("pong"), nil
	})
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"ping"}}` + "\n"
	_ = s.ServeStdio(context.Background(), strings.NewReader(in), io.Discard)
	// Output: level=INFO msg=served method=tools/call tool=ping ok=true
}

// A protected server: every request needs an access token for the
// resource https://mcp.example.com/mcp from the named authorization
// server; the write tool also needs the files:write scope. Server.Mux
// serves the endpoint and the protected resource metadata the 401
// challenge points to.
func ExampleServer_Mux() {
	tokens, err := auth.NewJWTValidator(auth.JWTConfig{
		Issuer:   "https://auth.example.com",
		Resource: "https://mcp.example.com/mcp",
		JWKSURL:  "https://auth.example.com/jwks", // fetched on the first token
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	rs, err := auth.New(auth.Config{Tokens: tokens, Metadata: auth.ProtectedResourceMetadata{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported:      []string{"files:read"},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := server.New(mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	err = s.AddTool(mcp.Tool{Name: "write"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return server.TextResult("written for " + req.Principal().Subject), nil
	}, server.RequireScopes("files:write"))
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := s.Mux("/mcp", &server.HTTPOptions{Auth: rs})

	// No token: 401 with the challenge.
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(`{}`)))
	fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"))
	// The metadata it names.
	w = httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://localhost/.well-known/oauth-protected-resource/mcp", nil))
	var md struct {
		Resource string `json:"resource"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &md)
	fmt.Println(w.Code, md.Resource)
	// Output:
	// 401 Bearer scope="files:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// 200 https://mcp.example.com/mcp
}
