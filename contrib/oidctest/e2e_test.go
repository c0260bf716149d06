package oidctest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/client/oauth"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// The user every provider of these tests signs in.
const user = "alice"

// Scopes of the MCP server: whoami needs toolsScope, admin adminScope,
// ping none.
const (
	toolsScope = "mcp:tools"
	adminScope = "mcp:admin"
)

// mcpServer is the MCP server under test: runtime/server on 127.0.0.1 with
// HTTPOptions.Auth, a resource server whose JWT validator trusts one
// provider, found through its discovery document.
type mcpServer struct {
	t    *testing.T
	url  string // the MCP endpoint, and the resource URI
	runs atomic.Int32
	// ahead moves the validator's clock ahead of the real time.
	ahead atomic.Int64

	mu      sync.Mutex
	answers []answer // of every request to the MCP endpoint
}

// answer is the status and challenge of one answer of the MCP endpoint.
type answer struct {
	status    int
	challenge string
}

// whoamiResult is what the whoami tool answers: the caller, from
// Request.Principal.
type whoamiResult struct {
	Subject  string   `json:"sub"`
	Issuer   string   `json:"iss"`
	ClientID string   `json:"client_id"`
	Scopes   []string `json:"scopes"`
	Audience []string `json:"aud"`
}

func newMCPServer(t *testing.T, p *provider, adjust ...func(*auth.JWTConfig)) *mcpServer {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	m := &mcpServer{t: t, url: "http://" + ts.Listener.Addr().String() + "/mcp"}
	cfg := auth.JWTConfig{Issuer: p.issuer, Resource: m.url,
		Now: func() time.Time { return time.Now().Add(time.Duration(m.ahead.Load())) }}
	for _, f := range adjust {
		f(&cfg)
	}
	tokens, err := auth.NewJWTValidator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := auth.New(auth.Config{Tokens: tokens, Metadata: auth.ProtectedResourceMetadata{
		Resource: m.url, AuthorizationServers: []string{p.issuer}, ScopesSupported: []string{toolsScope}}})
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(mcp.Implementation{Name: "oidc-e2e", Version: "1.0.0"}, nil)
	add := func(name string, scopes ...string) {
		err := server.AddTypedTool(s, mcp.Tool{Name: name}, func(ctx context.Context, req *server.ToolRequest, _ struct{}) (*mcp.CallToolResult, error) {
			m.runs.Add(1)
			p := req.Principal()
			out, _ := json.Marshal(whoamiResult{p.Subject, p.Issuer, p.ClientID, p.Scopes, p.Audience})
			return server.TextResult(string(out)), nil
		}, server.RequireScopes(scopes...))
		if err != nil {
			t.Fatal(err)
		}
	}
	add("whoami", toolsScope)
	add("admin", adminScope)
	add("ping")
	mux := s.Mux("/mcp", &server.HTTPOptions{Auth: rs})
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/mcp" {
			mux.ServeHTTP(w, r)
			return
		}
		rec := &recorder{ResponseWriter: w}
		mux.ServeHTTP(rec, r)
		m.mu.Lock()
		m.answers = append(m.answers, answer{rec.status, w.Header().Get("WWW-Authenticate")})
		m.mu.Unlock()
	})
	ts.Start()
	t.Cleanup(ts.Close)
	return m
}

// setClock moves the validator's clock d ahead of the real time.
func (m *mcpServer) setClock(d time.Duration) { m.ahead.Store(int64(d)) }

// refusals returns the answers with a status of 400 or more since the
// nth answer.
func (m *mcpServer) refusals(since int) []answer {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []answer
	for _, a := range m.answers[since:] {
		if a.status >= 400 {
			out = append(out, a)
		}
	}
	return out
}

func (m *mcpServer) answered() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.answers)
}

// recorder keeps the status of an answer; it passes on flushes (the
// legacy era's SSE streams).
type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// connect connects an authorizing client (cfg) to m; versions, when given,
// are client.Options.Versions.
func (m *mcpServer) connect(t *testing.T, cfg *oauth.Config, versions ...string) *client.Client {
	t.Helper()
	a, err := oauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.ConnectURL(ctx, m.url, mcp.Implementation{Name: "oidc-e2e-client", Version: "1.0.0"},
		&client.Options{Authorizer: a, Versions: versions})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// codeFlow is the client configuration of the authorization code grant
// with the pre-registered client c of p; the user's step goes through
// p's browser.
func codeFlow(p *provider, c *oidcClient, store oauth.TokenStore) *oauth.Config {
	return &oauth.Config{
		RedirectURL:         c.redirects[0],
		HandleAuthorization: p.browser(c.redirects[0]),
		PreRegistered:       map[string]oauth.Registration{p.issuer: {ClientID: c.id, ClientSecret: c.secret}},
		OfflineAccess:       true,
		Store:               store,
	}
}

// call calls tool and returns what it answered.
func call(t *testing.T, c *client.Client, tool string) (whoamiResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := c.CallTool(ctx, tool, wire.Raw(`{}`))
	if err != nil {
		return whoamiResult{}, err
	}
	if len(r.Content) != 1 || r.Content[0].TextContent == nil {
		t.Fatalf("%s: unexpected result %+v", tool, r)
	}
	var w whoamiResult
	if err := json.Unmarshal([]byte(r.Content[0].TextContent.Text), &w); err != nil {
		t.Fatal(err)
	}
	return w, nil
}

// callWith calls tool with a fixed Authorization header (or, with query,
// the token in the query string instead), no Authorizer: what a client
// holding that token gets. It returns the server's refusal, if any.
func (m *mcpServer) callWith(t *testing.T, token, tool string, query bool) (answer, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u, hdr := m.url, http.Header{}
	if query {
		u += "?access_token=" + url.QueryEscape(token)
	} else {
		hdr.Set("Authorization", "Bearer "+token)
	}
	c, err := client.ConnectURL(ctx, u, mcp.Implementation{Name: "holder", Version: "1.0.0"},
		&client.Options{Header: hdr, Versions: []string{mcp.ProtocolVersion}}) // nothing is sent before the call
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	since := m.answered()
	_, err = c.CallTool(ctx, tool, wire.Raw(`{}`))
	ref := m.refusals(since)
	if err == nil {
		return answer{status: http.StatusOK}, nil
	}
	if len(ref) == 0 {
		t.Fatalf("%s failed without a refusal from the server: %v", tool, err)
	}
	return ref[len(ref)-1], err
}

// storedToken returns the token the client keeps for m at p.
func storedToken(t *testing.T, store *oauth.MemoryStore, p *provider, m *mcpServer) (access, id string) {
	t.Helper()
	tok, err := store.Load(context.Background(), oauth.TokenKey{Issuer: p.issuer, Resource: m.url})
	if err != nil || tok == nil {
		t.Fatalf("no token stored for %s at %s (%v)", m.url, p.issuer, err)
	}
	id, _ = tok.Extra("id_token").(string)
	return tok.AccessToken, id
}

// claims returns the payload of a JWT, unverified (the server verified it).
func claims(t *testing.T, jwt string) map[string]any {
	t.Helper()
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWS: %q", jwt)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// audienceOf is the aud claim as a list.
func audienceOf(c map[string]any) []string {
	switch a := c["aud"].(type) {
	case string:
		return []string{a}
	case []any:
		var out []string
		for _, v := range a {
			s, _ := v.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

// clientCredentials asks p's token endpoint directly for a token of the
// client credentials grant (resource empty: none named).
func (p *provider) clientCredentials(t *testing.T, id, secret, resource string, scopes ...string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}}
	if resource != "" {
		form.Set("resource", resource)
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	req, err := http.NewRequest(http.MethodPost, p.issuer+tokenPath, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.AccessToken == "" {
		t.Fatalf("client credentials for %s: %s %v %q", id, resp.Status, err, body.Error)
	}
	return body.AccessToken
}

// checkCaller checks what whoami saw against the token the client holds.
func checkCaller(t *testing.T, got whoamiResult, p *provider, m *mcpServer, subject, clientID string) {
	t.Helper()
	if got.Subject != subject || got.Issuer != p.issuer || got.ClientID != clientID {
		t.Errorf("principal = %+v, want sub %s, iss %s, client_id %s", got, subject, p.issuer, clientID)
	}
	if !slices.Contains(got.Scopes, toolsScope) {
		t.Errorf("principal scopes %v lack %s", got.Scopes, toolsScope)
	}
	if !slices.Equal(got.Audience, []string{m.url}) {
		t.Errorf("principal aud %v, want [%s]", got.Audience, m.url)
	}
}

// TestE2E_AuthorizationCode: our client completes the authorization code
// grant with PKCE S256 against the provider (discovery through the
// server's 401 and Protected Resource Metadata, then the provider's
// OpenID discovery; the user's step in the provider's browser) and calls
// a tool on our server, whose JWT validator found the provider's keys
// through the same discovery. The resource parameter went on the
// authorization and the token request, and the provider made it the
// token's only aud. Public and confidential clients, both eras.
func TestE2E_AuthorizationCode(t *testing.T) {
	cli := publicClient("mcp-cli", "http://127.0.0.1:8765/callback", toolsScope, adminScope)
	web := confidentialClient("mcp-web", "web-secret", "https://mcp-web.example/callback", toolsScope)
	p := newProvider(t, user, cli, web)
	m := newMCPServer(t, p)
	for _, tc := range []struct {
		name     string
		c        *oidcClient
		versions []string
		auth     string // the token endpoint authentication the provider saw
	}{
		{"public", cli, []string{mcp.ProtocolVersion}, "none"},
		{"confidential", web, []string{mcp.ProtocolVersion}, "basic"},
		{"public/2025-11-25", cli, []string{mcp20251125.ProtocolVersion}, "none"},
		{"public/dual-era", cli, nil, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			authorized, granted := len(p.recorded("authorize")), len(p.recorded("token"))
			store := new(oauth.MemoryStore)
			c := m.connect(t, codeFlow(p, tc.c, store), tc.versions...)
			runs := m.runs.Load()
			got, err := call(t, c, "whoami")
			if err != nil {
				t.Fatal(err)
			}
			if m.runs.Load() != runs+1 {
				t.Errorf("the handler ran %d times, want once", m.runs.Load()-runs)
			}
			checkCaller(t, got, p, m, user, tc.c.id)

			authz := p.recorded("authorize")[authorized:]
			tokens := p.recorded("token")[granted:]
			if len(authz) != 1 || len(tokens) != 1 {
				t.Fatalf("%d authorization and %d token requests, want 1 and 1", len(authz), len(tokens))
			}
			a, tk := authz[0], tokens[0]
			if a.Get("code_challenge_method") != "S256" || a.Get("code_challenge") == "" || tk.Get("code_verifier") == "" {
				t.Errorf("no PKCE S256: authorization %v, token %v", a, tk)
			}
			if a.Get("resource") != m.url || tk.Get("resource") != m.url {
				t.Errorf("resource: authorization %q, token %q, want %s on both", a.Get("resource"), tk.Get("resource"), m.url)
			}
			if !strings.Contains(" "+a.Get("scope")+" ", " "+toolsScope+" ") {
				t.Errorf("scope %q lacks %s (scopes_supported of the metadata)", a.Get("scope"), toolsScope)
			}
			if tk.Get("grant_type") != "authorization_code" {
				t.Errorf("grant_type %q", tk.Get("grant_type"))
			}
			if basic := tk.Get("client_id") == ""; basic != (tc.auth == "basic") {
				t.Errorf("token request client_id %q, want authentication %s", tk.Get("client_id"), tc.auth)
			}
			access, _ := storedToken(t, store, p, m)
			cl := claims(t, access)
			if aud := audienceOf(cl); !slices.Equal(aud, []string{m.url}) {
				t.Errorf("access token aud %v, want [%s]", aud, m.url)
			}
		})
	}
}

// TestE2E_ClientCredentials: a service authorizes itself with the client
// credentials extension (client_secret_basic) at the provider, which
// puts the resource the client names in the aud, and calls the tool.
func TestE2E_ClientCredentials(t *testing.T) {
	svc := serviceClient("svc", "svc-secret", toolsScope)
	p := newProvider(t, user, svc)
	m := newMCPServer(t, p)
	store := new(oauth.MemoryStore)
	c := m.connect(t, &oauth.Config{
		ClientCredentials: &oauth.ClientCredentials{ClientID: svc.id, ClientSecret: svc.secret},
		Store:             store,
	})
	got, err := call(t, c, "whoami")
	if err != nil {
		t.Fatal(err)
	}
	checkCaller(t, got, p, m, svc.id, svc.id)
	if n := p.grants(); n["client_credentials"] != 1 || len(n) != 1 {
		t.Errorf("token requests by grant: %v, want one client_credentials", n)
	}
	if tk := p.recorded("token")[0]; tk.Get("resource") != m.url {
		t.Errorf("resource %q, want %s", tk.Get("resource"), m.url)
	}
	access, _ := storedToken(t, store, p, m)
	if aud := audienceOf(claims(t, access)); !slices.Equal(aud, []string{m.url}) {
		t.Errorf("aud %v, want [%s]", aud, m.url)
	}
}

// TestE2E_StepUp: a tool needing a scope the token lacks gets 403
// insufficient_scope; the client authorizes again at the provider with
// the union of the scopes and the call goes through, the handler running
// once.
func TestE2E_StepUp(t *testing.T) {
	cli := publicClient("mcp-cli", "http://127.0.0.1:8765/callback", toolsScope, adminScope)
	p := newProvider(t, user, cli)
	m := newMCPServer(t, p)
	c := m.connect(t, codeFlow(p, cli, nil), mcp.ProtocolVersion)
	if _, err := call(t, c, "whoami"); err != nil {
		t.Fatal(err)
	}
	since, runs := m.answered(), m.runs.Load()
	got, err := call(t, c, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if m.runs.Load() != runs+1 {
		t.Errorf("the handler ran %d times, want once", m.runs.Load()-runs)
	}
	ref := m.refusals(since)
	if len(ref) != 1 || ref[0].status != http.StatusForbidden || !strings.Contains(ref[0].challenge, `error="insufficient_scope"`) ||
		!strings.Contains(ref[0].challenge, adminScope) {
		t.Errorf("refusals %+v, want one 403 insufficient_scope naming %s", ref, adminScope)
	}
	authz := p.recorded("authorize")
	if len(authz) != 2 {
		t.Fatalf("%d authorizations, want 2", len(authz))
	}
	scopes := strings.Fields(authz[1].Get("scope"))
	if !slices.Contains(scopes, toolsScope) || !slices.Contains(scopes, adminScope) {
		t.Errorf("step-up scope %v, want the union of %s and %s", scopes, toolsScope, adminScope)
	}
	if !slices.Contains(got.Scopes, adminScope) || !slices.Contains(got.Scopes, toolsScope) {
		t.Errorf("granted %v", got.Scopes)
	}
}

// TestE2E_RefreshAfterExpiry: a token that expired (by the clocks of the
// provider and the server, moved past its exp and the leeway, while the
// client still takes it for valid) gets 401 invalid_token; the client
// refreshes it at the provider (refresh_token grant, with the resource)
// instead of authorizing again, the call goes through with the new
// token, whose aud is the resource again, and the expired one stays
// refused.
func TestE2E_RefreshAfterExpiry(t *testing.T) {
	cli := publicClient("mcp-cli", "http://127.0.0.1:8765/callback", toolsScope)
	p := newProvider(t, user, cli)
	m := newMCPServer(t, p)
	store := new(oauth.MemoryStore)
	c := m.connect(t, codeFlow(p, cli, store), mcp.ProtocolVersion)
	if _, err := call(t, c, "whoami"); err != nil {
		t.Fatal(err)
	}
	old, _ := storedToken(t, store, p, m)

	const later = 10 * time.Minute // op's access tokens live 5 min here
	p.store.setClock(later)
	m.setClock(later)
	since, runs := m.answered(), m.runs.Load()
	got, err := call(t, c, "whoami")
	if err != nil {
		t.Fatal(err)
	}
	checkCaller(t, got, p, m, user, cli.id)
	if m.runs.Load() != runs+1 {
		t.Errorf("the handler ran %d times, want once", m.runs.Load()-runs)
	}
	ref := m.refusals(since)
	if len(ref) != 1 || ref[0].status != http.StatusUnauthorized || !strings.Contains(ref[0].challenge, `error="invalid_token"`) {
		t.Errorf("refusals %+v, want one 401 invalid_token", ref)
	}
	if n := p.grants(); n["refresh_token"] != 1 || n["authorization_code"] != 1 {
		t.Errorf("token requests by grant: %v, want one authorization_code, then one refresh_token", n)
	}
	if a := p.recorded("authorize"); len(a) != 1 {
		t.Errorf("%d authorizations, want 1 (refresh, not a new authorization)", len(a))
	}
	tokens := p.recorded("token")
	if r := tokens[len(tokens)-1]; r.Get("grant_type") != "refresh_token" || r.Get("resource") != m.url {
		t.Errorf("refresh request %v, want resource %s", r, m.url)
	}
	fresh, _ := storedToken(t, store, p, m)
	if fresh == old {
		t.Fatal("the token was not replaced")
	}
	if aud := audienceOf(claims(t, fresh)); !slices.Equal(aud, []string{m.url}) {
		t.Errorf("refreshed aud %v, want [%s]", aud, m.url)
	}

	runs = m.runs.Load()
	if a, err := m.callWith(t, old, "whoami", false); err == nil || a.status != http.StatusUnauthorized {
		t.Errorf("the expired token: %+v %v, want 401", a, err)
	}
	if m.runs.Load() != runs {
		t.Error("a handler ran for the expired token")
	}
}

// TestE2E_Hostile: tokens the provider really issues, presented where
// they do not belong: each is refused before any handler runs.
func TestE2E_Hostile(t *testing.T) {
	cli := publicClient("mcp-cli", "http://127.0.0.1:8765/callback", toolsScope)
	svc := serviceClient("svc", "svc-secret", toolsScope)
	other := serviceClient("svc-other", "other-secret", toolsScope)
	opaque := serviceClient("svc-opaque", "opaque-secret", toolsScope)
	opaque.tokenType = op.AccessTokenTypeBearer // op's opaque tokens
	p := newProvider(t, user, cli, svc, other, opaque)
	m := newMCPServer(t, p)
	elsewhere := newMCPServer(t, p) // another MCP server of the same provider
	foreign := newProvider(t, user, serviceClient("svc", "svc-secret", toolsScope))

	// The user's tokens, for m and for the other server.
	store := new(oauth.MemoryStore)
	c := m.connect(t, codeFlow(p, cli, store), mcp.ProtocolVersion)
	if _, err := call(t, c, "whoami"); err != nil {
		t.Fatal(err)
	}
	good, idToken := storedToken(t, store, p, m)
	if c := claims(t, idToken); c["sub"] != user || !slices.Contains(audienceOf(c), m.url) {
		t.Fatalf("the ID token is not the look-alike this test needs: %v", c)
	}
	storeElsewhere := new(oauth.MemoryStore)
	ce := elsewhere.connect(t, codeFlow(p, cli, storeElsewhere), mcp.ProtocolVersion)
	if _, err := call(t, ce, "whoami"); err != nil {
		t.Fatal(err)
	}
	forElsewhere, _ := storedToken(t, storeElsewhere, p, elsewhere)

	tampered := []byte(good)
	if tampered[len(tampered)-2] == 'A' {
		tampered[len(tampered)-2] = 'B'
	} else {
		tampered[len(tampered)-2] = 'A'
	}

	for _, tc := range []struct {
		name   string
		token  string
		query  bool
		status int
	}{
		{"another server's token (same user, client and provider)", forElsewhere, false, 401},
		{"another client's token for another resource", p.clientCredentials(t, other.id, other.secret, "https://api.example/other", toolsScope), false, 401},
		{"a token naming no resource (aud is the client_id)", p.clientCredentials(t, svc.id, svc.secret, "", toolsScope), false, 401},
		{"another issuer's token for this resource", foreign.clientCredentials(t, "svc", "svc-secret", m.url, toolsScope), false, 401},
		{"an opaque token of the provider", p.clientCredentials(t, opaque.id, opaque.secret, m.url, toolsScope), false, 401},
		{"a tampered signature", string(tampered), false, 401},
		{"the valid token in the query string", good, true, 401},
		// The ID token of the code flow names the resource in aud too (op
		// gives ID and access tokens the storage's audience), is signed
		// by the same key, has the same iss and sub, and neither is typed
		// at+jwt: its nonce/at_hash/c_hash claims tell it apart.
		{"the ID token of the code flow", idToken, false, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.token == "" {
				t.Fatal("no token")
			}
			for _, tool := range []string{"whoami", "ping"} {
				runs := m.runs.Load()
				a, err := m.callWith(t, tc.token, tool, tc.query)
				if err == nil || a.status != tc.status {
					t.Errorf("%s: %+v %v, want %d", tool, a, err, tc.status)
				}
				if m.runs.Load() != runs {
					t.Errorf("%s: the handler ran", tool)
				}
			}
		})
	}
	// The good token still works: nothing above spoiled it.
	if a, err := m.callWith(t, good, "whoami", false); err != nil {
		t.Errorf("the good token: %+v %v", a, err)
	}
}

// TestE2E_KeyRotation: the provider rotates its signing key; a token
// signed with the new key makes the server fetch the key set again, a
// token signed with a key still published keeps working, and once the
// provider stops publishing a key, the server refuses its tokens after
// its next fetch (the verified-token cache is cleared with it).
func TestE2E_KeyRotation(t *testing.T) {
	svc := serviceClient("svc", "svc-secret", toolsScope)
	p := newProvider(t, user, svc)
	m := newMCPServer(t, p, func(c *auth.JWTConfig) { c.MinRefreshInterval = time.Millisecond })
	ok := func(name, tok string) {
		t.Helper()
		if a, err := m.callWith(t, tok, "whoami", false); err != nil {
			t.Errorf("%s: %+v %v", name, a, err)
		}
	}
	refused := func(name, tok string) {
		t.Helper()
		if a, err := m.callWith(t, tok, "whoami", false); err == nil || a.status != http.StatusUnauthorized {
			t.Errorf("%s: %+v %v, want 401", name, a, err)
		}
	}
	first := p.clientCredentials(t, svc.id, svc.secret, m.url, toolsScope)
	ok("first key", first)
	p.store.rotate(true)
	time.Sleep(5 * time.Millisecond) // past MinRefreshInterval
	second := p.clientCredentials(t, svc.id, svc.secret, m.url, toolsScope)
	if kid(t, first) == kid(t, second) {
		t.Fatal("the provider did not rotate")
	}
	ok("second key", second)
	ok("first key, still published", first)
	p.store.rotate(false)
	time.Sleep(5 * time.Millisecond)
	third := p.clientCredentials(t, svc.id, svc.secret, m.url, toolsScope)
	ok("third key", third)
	refused("first key, retired", first)
	refused("second key, retired", second)
}

// kid is the key id of a JWS header.
func kid(t *testing.T, jwt string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(jwt, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Kid string `json:"kid"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	return h.Kid
}
