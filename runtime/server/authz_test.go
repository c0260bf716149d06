package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/auth"
)

// An authorization server of the tests: its metadata and key set on
// httptest, and tokens signed with its key.
type testIssuer struct {
	t   *testing.T
	url string
	key *ecdsa.PrivateKey
}

func newTestIssuer(t *testing.T) *testIssuer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is := &testIssuer{t: t, key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": is.url, "jwks_uri": is.url + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	is.url = srv.URL
	return is
}

// token signs claims (iss, exp and iat are added unless given).
func (is *testIssuer) token(claims map[string]any) string {
	is.t.Helper()
	full := map[string]any{"iss": is.url, "exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()}
	for k, v := range claims {
		if v == nil {
			delete(full, k)
			continue
		}
		full[k] = v
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: is.key}, (&jose.SignerOptions{}).WithHeader("kid", "k1").WithType("at+jwt"))
	if err != nil {
		is.t.Fatal(err)
	}
	payload, _ := json.Marshal(full)
	obj, err := s.Sign(payload)
	if err != nil {
		is.t.Fatal(err)
	}
	tok, _ := obj.CompactSerialize()
	return tok
}

// protectedServer serves s behind a resource server trusting is, at
// resource URL srv.URL+"/mcp".
func protectedServer(t *testing.T, s *Server, is *testIssuer) (*httpClient, string) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	resource := ts.URL + "/mcp"
	v, err := auth.NewJWTValidator(auth.JWTConfig{Issuer: is.url, Resource: resource})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := auth.New(auth.Config{Tokens: v, Metadata: auth.ProtectedResourceMetadata{
		Resource: resource, AuthorizationServers: []string{is.url}, ScopesSupported: []string{"mcp"}}})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = s.Mux("/mcp", &HTTPOptions{Auth: rs})
	tr := &http.Transport{}
	h := &httpClient{t: t, ts: ts, tr: tr, c: &http.Client{Transport: tr}}
	t.Cleanup(func() { tr.CloseIdleConnections(); ts.CloseClientConnections(); ts.Close() })
	return h, resource
}

func bearer(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

// post sends body to the endpoint at path /mcp.
func (h *httpClient) postMCP(body string, hdr map[string]string) (*http.Response, []msg) {
	h.t.Helper()
	req := mustRequest(h.t, context.Background(), h.ts.URL+"/mcp", body)
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := h.c.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return resp, nil // an OAuth error body (RFC 6750), not JSON-RPC
	}
	return resp, readAnswer(h.t, resp, true)
}

// TestAUTHS_Protected: with HTTPOptions.Auth every request, of either
// era, needs a valid token for this resource: without one, or with a
// hostile one (wrong, missing or other audience, expired, not yet valid,
// wrong issuer, alg none, an unknown key, HS256 keyed with the issuer's
// public key, a token in the query string), it gets 401 with a challenge
// naming the metadata and the handler does not run; the metadata is
// served; a valid token, made by the same signing code as the forgeries,
// reaches the handler as Request.Principal.
func TestAUTHS_Protected(t *testing.T) {
	is := newTestIssuer(t)
	s := newServer(t, nil)
	var ran atomic.Int32
	var who atomic.Value
	toolFunc(t, s, "whoami", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		ran.Add(1)
		who.Store(req.Principal().Subject)
		return TextResult("ok"), nil
	})
	h, resource := protectedServer(t, s, is)
	call := request(1, "tools/call", params(obj{"name": "whoami"}))
	good := is.tokenWith(is.key, jose.ES256, "k1", map[string]any{"sub": "alice", "aud": resource, "scope": "mcp"})

	hostile := map[string]map[string]string{
		"no token":         nil,
		"wrong audience":   bearer(is.token(map[string]any{"sub": "alice", "aud": "https://other.example/mcp"})),
		"missing audience": bearer(is.token(map[string]any{"sub": "alice"})),
		"expired":          bearer(is.token(map[string]any{"sub": "alice", "aud": resource, "exp": time.Now().Add(-time.Hour).Unix()})),
		"not yet valid":    bearer(is.token(map[string]any{"sub": "alice", "aud": resource, "nbf": time.Now().Add(time.Hour).Unix()})),
		"wrong issuer":     bearer(is.token(map[string]any{"sub": "alice", "aud": resource, "iss": "https://evil.example"})),
		"alg none":         bearer(unsignedToken(map[string]any{"iss": is.url, "sub": "alice", "aud": resource, "exp": time.Now().Add(time.Hour).Unix()})),
		"garbage":          bearer("not.a.token"),
		"another resource": bearer(is.token(map[string]any{"sub": "alice", "aud": resource + "/other"})),
		"unknown key":      bearer(is.tokenWith(otherKey(t), jose.ES256, "k2", map[string]any{"sub": "alice", "aud": resource})),
		"HS256 keyed with the public key": bearer(is.tokenWith(publicKeyBytes(t, is.key), jose.HS256, "k1",
			map[string]any{"sub": "alice", "aud": resource})),
	}
	for name, hdr := range hostile {
		for _, body := range []string{call, legacyInit(1, legacyVersion, nil)} {
			resp, _ := h.postMCP(body, hdr)
			ch := resp.Header.Get("WWW-Authenticate")
			if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(ch, "resource_metadata=") {
				t.Errorf("%s: %d %q, want 401 with resource_metadata", name, resp.StatusCode, ch)
			}
		}
	}
	// A token in the query string is refused too.
	req := mustRequest(t, context.Background(), h.ts.URL+"/mcp?access_token="+good, call)
	if resp, err := h.c.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("token in the query: %v %v, want 401 with resource_metadata", resp, err)
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the handler ran %d times for refused requests", n)
	}
	resp, msgs := h.postMCP(call, bearer(good))
	if resp.StatusCode != http.StatusOK || len(msgs) != 1 || msgs[0].text() != "ok" || who.Load() != "alice" {
		t.Fatalf("valid token: %d %v (principal %v)", resp.StatusCode, msgs, who.Load())
	}
	// The metadata document at the path-inserted well-known URL.
	mresp, err := h.c.Get(h.ts.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil || mresp.StatusCode != http.StatusOK {
		t.Fatalf("metadata: %v %v", mresp, err)
	}
	var md map[string]any
	_ = json.NewDecoder(mresp.Body).Decode(&md)
	mresp.Body.Close()
	if md["resource"] != resource {
		t.Errorf("metadata %v", md)
	}
}

// tokenWith signs the issuer's usual claims, with claims over them, with
// key and alg under kid: what a forger holding some other key can make.
func (is *testIssuer) tokenWith(key any, alg jose.SignatureAlgorithm, kid string, claims map[string]any) string {
	is.t.Helper()
	full := map[string]any{"iss": is.url, "exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()}
	for k, v := range claims {
		full[k] = v
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", kid).WithType("at+jwt"))
	if err != nil {
		is.t.Fatal(err)
	}
	payload, _ := json.Marshal(full)
	obj, err := sig.Sign(payload)
	if err != nil {
		is.t.Fatal(err)
	}
	out, err := obj.CompactSerialize()
	if err != nil {
		is.t.Fatal(err)
	}
	return out
}

// otherKey is a signing key the issuer never published.
func otherKey(t *testing.T) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// publicKeyBytes is the issuer's public key as an HMAC secret (the
// classic key-confusion forgery).
func publicKeyBytes(t *testing.T, key *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// unsignedToken is a JWT with "alg": "none".
func unsignedToken(claims map[string]any) string {
	b64 := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return b64(map[string]string{"alg": "none", "typ": "at+jwt"}) + "." + b64(claims) + "."
}

// TestAUTHS5_Scopes: an item registered with RequireScopes answers a
// token without them with 403 insufficient_scope naming them, in both
// eras (also before a session's stream opens), and runs for a token with
// them.
func TestAUTHS5_Scopes(t *testing.T) {
	is := newTestIssuer(t)
	s := newServer(t, nil)
	var ran atomic.Int32
	must(t, s.AddTool(mcp.Tool{Name: "write"}, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		ran.Add(1)
		return TextResult("written"), nil
	}, RequireScopes("files:write")))
	h, resource := protectedServer(t, s, is)
	reader := bearer(is.token(map[string]any{"sub": "alice", "aud": resource, "scope": "mcp files:read"}))
	writer := bearer(is.token(map[string]any{"sub": "alice", "aud": resource, "scope": "mcp files:write"}))
	check403 := func(what string, resp *http.Response) {
		t.Helper()
		ch := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(ch, "insufficient_scope") || !strings.Contains(ch, "files:write") {
			t.Errorf("%s: %d %q, want 403 insufficient_scope naming files:write", what, resp.StatusCode, ch)
		}
	}
	call := request(1, "tools/call", params(obj{"name": "write"}))
	resp, _ := h.postMCP(call, reader)
	check403("modern", resp)

	// A 2025-11-25 session of the same principal.
	init, msgs := h.postMCP(legacyInit(1, legacyVersion, nil), reader)
	if init.StatusCode != http.StatusOK || len(msgs) != 1 {
		t.Fatalf("initialize: %d %v", init.StatusCode, msgs)
	}
	sid := init.Header.Get("Mcp-Session-Id")
	session := func(tok map[string]string) map[string]string {
		return map[string]string{"Authorization": tok["Authorization"], "Mcp-Session-Id": sid, "MCP-Protocol-Version": legacyVersion, "Mcp-Method": "", "Mcp-Name": ""}
	}
	resp, _ = h.postMCP(request(2, "tools/call", obj{"name": "write"}), session(reader))
	check403("session", resp)
	resp, _ = h.postMCP(request(3, "resources/subscribe", obj{"uri": "file:///readme.txt"}), session(reader))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("subscribe to an unscoped resource: %d", resp.StatusCode)
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the handler ran %d times without the scope", n)
	}
	if resp, msgs := h.postMCP(call, writer); resp.StatusCode != http.StatusOK || msgs[len(msgs)-1].text() != "written" {
		t.Errorf("with the scope: %d %v", resp.StatusCode, msgs)
	}
	// The session belongs to alice, whatever token of hers is sent.
	if resp, msgs := h.postMCP(request(4, "tools/call", obj{"name": "write"}), session(writer)); resp.StatusCode != http.StatusOK || msgs[len(msgs)-1].text() != "written" {
		t.Errorf("session with the scope: %d %v", resp.StatusCode, msgs)
	}
	bob := bearer(is.token(map[string]any{"sub": "bob", "aud": resource, "scope": "mcp files:write"}))
	if resp, _ := h.postMCP(request(5, "ping", nil), session(bob)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("alice's session with bob's token: %d, want 404", resp.StatusCode)
	}
}

// TestMRTR17_StateBoundToPrincipal: a requestState minted for one subject
// is refused for another.
func TestMRTR17_StateBoundToVerifiedSubject(t *testing.T) {
	is := newTestIssuer(t)
	s := newServer(t, nil)
	askTool(t, s)
	h, resource := protectedServer(t, s, is)
	alice := bearer(is.token(map[string]any{"sub": "alice", "aud": resource}))
	bob := bearer(is.token(map[string]any{"sub": "bob", "aud": resource}))
	caps := obj{"elicitation": obj{}}
	_, msgs := h.postMCP(request(1, "tools/call", paramsCaps(caps, obj{"name": "ask"})), alice)
	state, _ := wantResult(t, msgs[len(msgs)-1])["requestState"].(string)
	if state == "" {
		t.Fatalf("no requestState: %v", msgs)
	}
	retry := request(2, "tools/call", paramsCaps(caps, obj{"name": "ask", "requestState": state, "inputResponses": obj{"who": accept("name", "Ann")}}))
	_, msgs = h.postMCP(retry, bob)
	wantError(t, msgs[len(msgs)-1], -32602)
	_, msgs = h.postMCP(retry, alice)
	if msgs[len(msgs)-1].text() != "hello Ann" {
		t.Errorf("alice's retry: %v", msgs)
	}
}
