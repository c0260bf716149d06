package oauth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/client/oauth"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// An MCP client that authorizes itself: the first request draws a 401,
// the Authorizer discovers the authorization server, registers, has the
// user approve (HandleAuthorization) and retries with the token, which
// the store keeps.
func ExampleNew() {
	mcpURL, issuer, stop := demoServers()
	defer stop()

	store := new(oauth.MemoryStore) // or a persistent TokenStore
	a, err := oauth.New(&oauth.Config{
		RedirectURL: "http://127.0.0.1:8765/callback",
		HandleAuthorization: func(ctx context.Context, authURL string) (url.Values, error) {
			// A real client opens authURL in the user's browser, serves
			// RedirectURL and returns the query of the request that
			// arrives there. The demo server approves at once:
			return oauth.Headless(nil)(ctx, authURL)
		},
		Store: store,
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := client.ConnectURL(ctx, mcpURL, mcp.Implementation{Name: "example", Version: "1.0.0"},
		&client.Options{Authorizer: a})
	if err != nil {
		log.Fatal(err)
	}
	for tool, err := range c.ListTools(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("tool:", tool.Name)
	}
	tok, _ := store.Load(ctx, oauth.TokenKey{Issuer: issuer, Resource: mcpURL})
	fmt.Println("token stored:", tok != nil)
	// Output:
	// tool: greet
	// token stored: true
}

// A service authorizing itself with the client credentials extension.
func ExampleClientCredentials() {
	mcpURL, _, stop := demoServers()
	defer stop()

	a, err := oauth.New(&oauth.Config{
		ClientCredentials: &oauth.ClientCredentials{ClientID: "service", ClientSecret: "service-secret"},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := client.ConnectURL(ctx, mcpURL, mcp.Implementation{Name: "service", Version: "1.0.0"},
		&client.Options{Authorizer: a})
	if err != nil {
		log.Fatal(err)
	}
	for tool, err := range c.ListTools(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("tool:", tool.Name)
	}
	// Output:
	// tool: greet
}

// demoServers starts an MCP server that requires a token and the
// authorization server that issues it (it approves every request and
// takes the client credentials service/service-secret).
func demoServers() (mcpURL, issuer string, stop func()) {
	const token = "demo-token"
	reply := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	var as *httptest.Server
	as = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			reply(w, map[string]any{
				"issuer":                           as.URL,
				"authorization_endpoint":           as.URL + "/authorize",
				"token_endpoint":                   as.URL + "/token",
				"registration_endpoint":            as.URL + "/register",
				"code_challenge_methods_supported": []string{"S256"},
				"grant_types_supported":            []string{"authorization_code", "client_credentials"},
			})
		case "/register":
			w.WriteHeader(http.StatusCreated)
			reply(w, map[string]any{"client_id": "demo-client"})
		case "/authorize": // approved: back to the client with a code
			q := r.URL.Query()
			back := q.Get("redirect_uri") + "?" + url.Values{"code": {"demo-code"}, "state": {q.Get("state")}}.Encode()
			http.Redirect(w, r, back, http.StatusFound)
		case "/token":
			reply(w, map[string]any{"access_token": token, "token_type": "Bearer", "expires_in": 3600})
		default:
			http.NotFound(w, r)
		}
	}))
	s := server.New(mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	_ = server.AddTypedTool(s, mcp.Tool{Name: "greet"}, func(ctx context.Context, req *server.ToolRequest, _ struct{}) (*mcp.CallToolResult, error) {
		return server.TextResult("hello"), nil
	})
	h := s.Handler(nil)
	var rs *httptest.Server
	rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/.well-known/oauth-protected-resource/mcp":
			reply(w, map[string]any{"resource": rs.URL + "/mcp", "authorization_servers": []string{as.URL}})
		case r.Header.Get("Authorization") != "Bearer "+token:
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+rs.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
		default:
			h.ServeHTTP(w, r)
		}
	}))
	return rs.URL + "/mcp", as.URL, func() { rs.Close(); as.Close() }
}
