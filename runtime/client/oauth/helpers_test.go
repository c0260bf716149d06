package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/client/oauth"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// env is an MCP server protected by an authorization server, both on
// httptest listeners, recording what the client does. Tests adjust the
// fields (under mu once the client runs) to shape the servers' answers.
type env struct {
	t  *testing.T
	as *httptest.Server // the authorization server
	rs *httptest.Server // the MCP server and its resource metadata

	mu sync.Mutex
	// Authorization server.
	issuer    string                                                       // issuer in the metadata (default: as.URL)
	metaPath  string                                                       // where the metadata is served
	meta      map[string]any                                               // extra or replaced metadata members (nil value: removed)
	issMode   string                                                       // iss in the redirect: "" correct, "omit", or a literal value
	errMode   string                                                       // an error code the authorization endpoint answers with
	deny      []string                                                     // scopes the authorization server never grants
	refresh   bool                                                         // issue refresh tokens
	expires   int                                                          // expires_in of issued tokens (0: 3600)
	clientID  string                                                       // client_id DCR hands out
	regAuth   string                                                       // token_endpoint_auth_method DCR answers with
	secret    string                                                       // client_secret DCR hands out
	regError  string                                                       // an error code DCR answers with (once)
	grant     func(form url.Values, r *http.Request) (int, map[string]any) // other grants
	tokenType string                                                       // token_type of issued tokens (default Bearer)
	asNonce   string                                                       // DPoP nonce the token endpoint requires
	// MCP server.
	prmPath     string                                            // where the resource metadata is served
	prm         map[string]any                                    // extra or replaced members
	inHeader    bool                                              // resource_metadata in the challenge
	scope       string                                            // scope in the 401 challenge
	needs       map[string][]string                               // scopes per MCP method
	rsHook      func(w http.ResponseWriter, r *http.Request) bool // answers instead, when true
	tokenScheme string                                            // scheme the MCP server expects ("Bearer")
	trust       *env                                              // another environment whose tokens the MCP server accepts
	rsNonce     string                                            // DPoP nonce the MCP server requires
	nextNonce   string                                            // DPoP nonce the MCP server hands out on its next success

	// Records.
	paths           []string            // every path requested at either server, "AS " or "RS " first
	authz           []url.Values        // authorization requests
	tokenReq        []tokenCall         // token requests
	regs            []map[string]any    // registration requests
	tokens          map[string][]string // valid access tokens and their scopes
	refreshT        map[string][]string // valid refresh tokens and their scopes
	codes           map[string]codeGrant
	mcpAuth         []string    // Authorization of every MCP POST
	proofs          []dpopProof // DPoP proofs, in order, token endpoint and MCP server
	nonceChallenges int         // use_dpop_nonce answers
	n               int
}

type tokenCall struct {
	form   url.Values
	header http.Header
}

type codeGrant struct {
	challenge, scope, resource, clientID string
}

func newEnv(t *testing.T) *env {
	e := &env{t: t, metaPath: "/.well-known/oauth-authorization-server", prmPath: "/.well-known/oauth-protected-resource/mcp",
		inHeader: true, clientID: "dcr-client", tokenScheme: "Bearer",
		tokens: map[string][]string{}, refreshT: map[string][]string{}, codes: map[string]codeGrant{}}
	e.as = httptest.NewServer(http.HandlerFunc(e.serveAS))
	t.Cleanup(e.as.Close)
	s := server.New(mcp.Implementation{Name: "protected", Version: "1"}, nil)
	if err := server.AddTypedTool(s, mcp.Tool{Name: "write"}, func(ctx context.Context, req *server.ToolRequest, _ struct{}) (*mcp.CallToolResult, error) {
		return server.TextResult("written"), nil
	}); err != nil {
		t.Fatal(err)
	}
	mcpHandler := s.Handler(nil)
	e.rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { e.serveRS(w, r, mcpHandler) }))
	t.Cleanup(e.rs.Close)
	return e
}

func (e *env) endpoint() string { return e.rs.URL + "/mcp" }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// metadata is the authorization server's document.
func (e *env) metadata() map[string]any {
	iss := e.issuer
	if iss == "" {
		iss = e.as.URL
	}
	m := map[string]any{
		"issuer":                                         iss,
		"authorization_endpoint":                         e.as.URL + "/authorize",
		"token_endpoint":                                 e.as.URL + "/token",
		"registration_endpoint":                          e.as.URL + "/register",
		"response_types_supported":                       []string{"code"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"authorization_response_iss_parameter_supported": true,
	}
	for k, v := range e.meta {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

func (e *env) serveAS(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.paths = append(e.paths, "AS "+r.URL.Path)
	switch {
	case r.Method == http.MethodGet && r.URL.Path == e.metaPath:
		writeJSON(w, 200, e.metadata())
	case r.URL.Path == "/authorize":
		q := r.URL.Query()
		e.authz = append(e.authz, q)
		ru, err := url.Parse(q.Get("redirect_uri"))
		if err != nil {
			http.Error(w, "bad redirect_uri", 400)
			return
		}
		v := ru.Query()
		if e.errMode != "" {
			v.Set("error", e.errMode)
		} else {
			e.n++
			code := fmt.Sprintf("code-%d", e.n)
			e.codes[code] = codeGrant{q.Get("code_challenge"), q.Get("scope"), q.Get("resource"), q.Get("client_id")}
			v.Set("code", code)
		}
		if s := q.Get("state"); s != "" {
			v.Set("state", s)
		}
		switch e.issMode {
		case "":
			v.Set("iss", e.metadata()["issuer"].(string))
		case "omit":
		default:
			v.Set("iss", e.issMode)
		}
		ru.RawQuery = v.Encode()
		http.Redirect(w, r, ru.String(), http.StatusFound)
	case r.Method == http.MethodPost && r.URL.Path == "/register":
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		e.regs = append(e.regs, body)
		if e.regError != "" {
			code := e.regError
			e.regError = ""
			writeJSON(w, 400, map[string]any{"error": code, "error_description": "not like this"})
			return
		}
		resp := map[string]any{"client_id": e.clientID, "redirect_uris": body["redirect_uris"]}
		if e.secret != "" {
			resp["client_secret"] = e.secret
		}
		if e.regAuth != "" {
			resp["token_endpoint_auth_method"] = e.regAuth
		}
		writeJSON(w, 201, resp)
	case r.Method == http.MethodPost && r.URL.Path == "/token":
		_ = r.ParseForm()
		e.tokenReq = append(e.tokenReq, tokenCall{form: r.PostForm, header: r.Header.Clone()})
		e.serveToken(w, r)
	default:
		http.NotFound(w, r)
	}
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// serveToken answers a token request (e.mu held).
func (e *env) serveToken(w http.ResponseWriter, r *http.Request) {
	form := r.PostForm
	if e.tokenType == "DPoP" {
		p := e.checkProof(r, e.as.URL+"/token", "")
		if p.err != "" {
			writeJSON(w, 400, map[string]any{"error": "invalid_dpop_proof", "error_description": p.err})
			return
		}
		if e.asNonce != "" && p.Nonce != e.asNonce {
			e.nonceChallenges++
			w.Header().Set("DPoP-Nonce", e.asNonce)
			writeJSON(w, 400, map[string]any{"error": "use_dpop_nonce"})
			return
		}
	}
	var scopes []string
	switch form.Get("grant_type") {
	case "authorization_code":
		g, ok := e.codes[form.Get("code")]
		delete(e.codes, form.Get("code"))
		if !ok || s256(form.Get("code_verifier")) != g.challenge {
			writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "bad code or verifier"})
			return
		}
		scopes = strings.Fields(g.scope)
	case "refresh_token":
		s, ok := e.refreshT[form.Get("refresh_token")]
		if !ok {
			writeJSON(w, 400, map[string]any{"error": "invalid_grant"})
			return
		}
		delete(e.refreshT, form.Get("refresh_token")) // rotated
		scopes = s
	default:
		if e.grant == nil {
			writeJSON(w, 400, map[string]any{"error": "unsupported_grant_type"})
			return
		}
		status, body := e.grant(form, r)
		if tok, ok := body["access_token"].(string); ok && status == 200 {
			e.tokens[tok] = strings.Fields(form.Get("scope"))
		}
		writeJSON(w, status, body)
		return
	}
	scopes = slices.DeleteFunc(scopes, func(s string) bool { return slices.Contains(e.deny, s) })
	e.n++
	tok := fmt.Sprintf("access-%d", e.n)
	e.tokens[tok] = scopes
	expires := e.expires
	if expires == 0 {
		expires = 3600
	}
	tokType := e.tokenType
	if tokType == "" {
		tokType = "Bearer"
	}
	resp := map[string]any{"access_token": tok, "token_type": tokType, "expires_in": expires, "scope": strings.Join(scopes, " ")}
	if e.refresh {
		rt := fmt.Sprintf("refresh-%d", e.n)
		e.refreshT[rt] = scopes
		resp["refresh_token"] = rt
	}
	writeJSON(w, 200, resp)
}

// prmDoc is the protected resource metadata.
func (e *env) prmDoc() map[string]any {
	res := e.endpoint()
	if e.prmPath == "/.well-known/oauth-protected-resource" {
		res = e.rs.URL
	}
	m := map[string]any{"resource": res, "authorization_servers": []string{e.as.URL}}
	for k, v := range e.prm {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

func (e *env) serveRS(w http.ResponseWriter, r *http.Request, mcpHandler http.Handler) {
	e.mu.Lock()
	e.paths = append(e.paths, "RS "+r.URL.Path)
	if r.Method == http.MethodGet && r.URL.Path == e.prmPath {
		writeJSON(w, 200, e.prmDoc())
		e.mu.Unlock()
		return
	}
	if r.URL.Path != "/mcp" {
		e.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	e.mcpAuth = append(e.mcpAuth, r.Header.Get("Authorization"))
	if e.rsHook != nil && e.rsHook(w, r) {
		e.mu.Unlock()
		return
	}
	challenge := func(status int, extra string) {
		var params []string
		if e.inHeader {
			params = append(params, fmt.Sprintf("resource_metadata=%q", e.rs.URL+e.prmPath))
		}
		if e.scope != "" {
			params = append(params, fmt.Sprintf("scope=%q", e.scope))
		}
		if extra != "" {
			params = append(params, extra)
		}
		w.Header().Set("WWW-Authenticate", strings.TrimSpace(e.tokenScheme+" "+strings.Join(params, ", ")))
		writeJSON(w, status, map[string]any{"error": "unauthorized"})
	}
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	granted, ok := e.tokens[tok]
	if !ok && e.trust != nil {
		e.trust.lock(func() { granted, ok = e.trust.tokens[tok] })
	}
	if !ok || !strings.EqualFold(scheme, e.tokenScheme) {
		extra := ""
		if tok != "" {
			extra = `error="invalid_token"`
		}
		challenge(http.StatusUnauthorized, extra)
		e.mu.Unlock()
		return
	}
	if e.tokenScheme == "DPoP" {
		p := e.checkProof(r, e.endpoint(), tok)
		if p.err != "" {
			challenge(http.StatusUnauthorized, `error="invalid_dpop_proof"`)
			e.mu.Unlock()
			return
		}
		if e.rsNonce != "" && p.Nonce != e.rsNonce {
			e.nonceChallenges++
			w.Header().Set("DPoP-Nonce", e.rsNonce)
			challenge(http.StatusUnauthorized, `error="use_dpop_nonce"`)
			e.mu.Unlock()
			return
		}
		if e.nextNonce != "" {
			e.rsNonce, e.nextNonce = e.nextNonce, ""
			w.Header().Set("DPoP-Nonce", e.rsNonce)
		}
	}
	need := e.needs[r.Header.Get("Mcp-Method")]
	for _, s := range need {
		if !slices.Contains(granted, s) {
			e.scope = strings.Join(need, " ")
			challenge(http.StatusForbidden, `error="insufficient_scope"`)
			e.mu.Unlock()
			return
		}
	}
	e.mu.Unlock()
	mcpHandler.ServeHTTP(w, r)
}

// config is a Config for the authorization code grant, with a headless
// user step and a redirect URI on loopback.
func (e *env) config() *oauth.Config {
	return &oauth.Config{HandleAuthorization: oauth.Headless(nil), RedirectURL: "http://127.0.0.1:9999/callback"}
}

// connect returns a client of the MCP server authorized by cfg.
func (e *env) connect(cfg *oauth.Config) (*client.Client, *oauth.Authorizer) {
	e.t.Helper()
	a, err := oauth.New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	c, err := client.ConnectURL(context.Background(), e.endpoint(), mcp.Implementation{Name: "t", Version: "1"},
		// A modern-only client connects without a probe, so that each test
		// sees the authorization flow on its first request.
		&client.Options{Authorizer: a, DisableCache: true, Timeout: 20 * time.Second, Versions: []string{mcp.ProtocolVersion}})
	if err != nil {
		e.t.Fatal(err)
	}
	return c, a
}

// list lists the tools.
func list(c *client.Client) error {
	for _, err := range c.ListTools(context.Background()) {
		if err != nil {
			return err
		}
	}
	return nil
}

// call calls the write tool.
func call(c *client.Client) error {
	_, err := c.CallTool(context.Background(), "write", wire.Raw(`{}`))
	return err
}

// lock runs f under e.mu, for reading records or changing behaviour while
// a client runs.
func (e *env) lock(f func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f()
}

// grantTypes lists the grant_type of every token request.
func (e *env) grantTypes() []string {
	var out []string
	e.lock(func() {
		for _, r := range e.tokenReq {
			out = append(out, r.form.Get("grant_type"))
		}
	})
	return out
}

func (e *env) requested(path string) bool {
	found := false
	e.lock(func() { found = slices.Contains(e.paths, path) })
	return found
}

// dpopProof is a DPoP proof as the servers saw it; err says what is wrong
// with it.
type dpopProof struct {
	ID    string `json:"jti"`
	HTM   string `json:"htm"`
	HTU   string `json:"htu"`
	IAT   int64  `json:"iat"`
	ATH   string `json:"ath"`
	Nonce string `json:"nonce"`
	err   string
}

// checkProof verifies r's DPoP proof (RFC 9449 §4.3): one header, typ
// dpop+jwt, an embedded public key that verifies the signature, htm, htu,
// a recent iat, a fresh jti and, with a token, its ath. e.mu is held.
func (e *env) checkProof(r *http.Request, htu, accessToken string) dpopProof {
	var p dpopProof
	vals := r.Header.Values("DPoP")
	switch {
	case len(vals) != 1:
		p.err = fmt.Sprintf("%d DPoP headers", len(vals))
	default:
		jws, err := jose.ParseSigned(vals[0], []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			p.err = err.Error()
			break
		}
		h := jws.Signatures[0].Protected
		if h.ExtraHeaders["typ"] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
			p.err = fmt.Sprintf("header typ %v, jwk %v", h.ExtraHeaders["typ"], h.JSONWebKey)
			break
		}
		payload, err := jws.Verify(h.JSONWebKey)
		if err != nil {
			p.err = err.Error()
			break
		}
		_ = json.Unmarshal(payload, &p)
		ath := ""
		if accessToken != "" {
			ath = s256(accessToken)
		}
		switch {
		case p.HTM != r.Method || p.HTU != htu:
			p.err = fmt.Sprintf("htm %q htu %q", p.HTM, p.HTU)
		case p.ATH != ath:
			p.err = fmt.Sprintf("ath %q, want %q", p.ATH, ath)
		case time.Since(time.Unix(p.IAT, 0)).Abs() > time.Minute:
			p.err = "iat"
		case p.ID == "" || slices.ContainsFunc(e.proofs, func(q dpopProof) bool { return q.ID == p.ID }):
			p.err = "jti reused"
		}
	}
	e.proofs = append(e.proofs, p)
	return p
}
