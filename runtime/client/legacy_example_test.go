package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// oldServer is a minimal 2025-06-18 Streamable HTTP server, written the way
// servers of that era were: it knows initialize, not server/discover, keeps
// a session, and asks the client for input with a request of its own.
func oldServer() http.Handler {
	answers := make(chan json.RawMessage, 1)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no GET stream", http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &m)
		reply := func(result string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
		}
		switch {
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "s-1")
			reply(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"old-server","version":"0.9"}}`)
		case r.Header.Get("Mcp-Session-Id") != "s-1":
			http.Error(w, "Bad Request: Server not initialized", http.StatusBadRequest)
		case m.Method == "" && m.ID != nil: // the client's answer to our request
			answers <- m.Result
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "tools/list":
			reply(`{"tools":[{"name":"book","description":"Books a table","inputSchema":{"type":"object"}}]}`)
		case m.Method == "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"jsonrpc":"2.0","id":"q1","method":"elicitation/create","params":{"message":"How many people?","requestedSchema":{"type":"object","properties":{"size":{"type":"integer","default":2}}}}}`+"\n\n")
			w.(http.Flusher).Flush()
			var a struct {
				Content struct{ Size int } `json:"content"`
			}
			_ = json.Unmarshal(<-answers, &a)
			fmt.Fprintf(w, `data: {"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"Table for %d booked."}]}}`+"\n\n", m.ID, a.Content.Size)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
}

// ConnectURL finds out that the server predates 2026-07-28 and speaks its
// revision: same methods, same types, same callbacks. Here the user accepts
// the form without changing anything, so the field's default is sent.
func ExampleConnectURL_legacyServer() {
	srv := httptest.NewServer(oldServer())
	defer srv.Close()

	ctx := context.Background()
	c, err := client.ConnectURL(ctx, srv.URL, mcp.Implementation{Name: "example-client", Version: "1.0.0"}, &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			fmt.Println("asked:", p.ElicitRequestFormParams.Message)
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept}, nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	fmt.Println("speaking", c.ProtocolVersion())

	for tool, err := range c.ListTools(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", tool.Name, tool.Description.Value)
	}
	res, err := c.CallTool(ctx, "book", wire.Raw(`{}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].TextContent.Text)
	// Output:
	// speaking 2025-06-18
	// book: Books a table
	// asked: How many people?
	// Table for 2 booked.
}
