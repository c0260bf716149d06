package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpgen/mcpgen/runtime/auth"
)

// exampleAS is a stand-in authorization server: RFC 8414 metadata and a
// JWKS on httptest, and a way to mint tokens with its key.
type exampleAS struct {
	URL  string
	mint func(claims map[string]any) string
}

func newExampleAS() (*exampleAS, func()) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	a := &exampleAS{}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": a.URL, "jwks_uri": a.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	srv := httptest.NewServer(mux)
	a.URL = srv.URL
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k1").WithType("at+jwt"))
	a.mint = func(claims map[string]any) string {
		payload, _ := json.Marshal(claims)
		jws, _ := signer.Sign(payload)
		s, _ := jws.CompactSerialize()
		return s
	}
	return a, srv.Close
}

// A protected MCP endpoint: tokens must come from the authorization
// server, be for https://mcp.example.com/mcp and carry mcp:read; the
// metadata is served at both well-known paths.
func ExampleResourceServer_Protect() {
	as, stop := newExampleAS()
	defer stop()

	const resource = "https://mcp.example.com/mcp"
	tokens, err := auth.NewJWTValidator(auth.JWTConfig{Issuer: as.URL, Resource: resource})
	if err != nil {
		panic(err)
	}
	rs, err := auth.New(auth.Config{
		Metadata: auth.ProtectedResourceMetadata{
			Resource:             resource,
			AuthorizationServers: []string{as.URL},
			ScopesSupported:      []string{"mcp:read"},
		},
		Tokens: tokens,
	})
	if err != nil {
		panic(err)
	}

	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := auth.PrincipalFromContext(r.Context())
		fmt.Fprintf(w, "hello %s", p.Subject)
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", rs.Protect(mcp, "mcp:read"))
	for _, path := range rs.WellKnownPaths() {
		mux.Handle(path, rs.MetadataHandler())
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()

	call := func(token string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			fmt.Println(resp.StatusCode, string(body))
			return
		}
		fmt.Println(resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	now := time.Now()
	claims := func(aud, scope string) map[string]any {
		return map[string]any{"iss": as.URL, "sub": "alice", "aud": aud, "scope": scope, "exp": now.Add(time.Hour).Unix()}
	}
	call("")
	call(as.mint(claims("https://other.example.com", "mcp:read")))
	call(as.mint(claims(resource, "mcp:write")))
	call(as.mint(claims(resource, "mcp:read")))

	resp, err := http.Get(srv.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		panic(err)
	}
	var md auth.ProtectedResourceMetadata
	_ = json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	fmt.Println(md.Resource, md.ScopesSupported, md.BearerMethodsSupported)
	// Output:
	// 401 Bearer scope="mcp:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// 401 Bearer error="invalid_token", error_description="the token was not issued for this resource", scope="mcp:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// 403 Bearer error="insufficient_scope", error_description="the operation needs scope mcp:read", scope="mcp:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// 200 hello alice
	// https://mcp.example.com/mcp [mcp:read] [header]
}

// Per-operation scopes: the transport verifies the token before reading
// the body, then the operation's scopes decide between running it and a
// 403 naming all of them.
func ExampleResourceServer_RequireScopes() {
	as, stop := newExampleAS()
	defer stop()
	const resource = "https://mcp.example.com/mcp"
	tokens, _ := auth.NewJWTValidator(auth.JWTConfig{Issuer: as.URL, Resource: resource})
	rs, _ := auth.New(auth.Config{
		Metadata: auth.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{as.URL}},
		Tokens:   tokens,
	})
	token := as.mint(map[string]any{"iss": as.URL, "sub": "bob", "aud": resource, "scope": "files:read", "exp": time.Now().Add(time.Hour).Unix()})
	r := httptest.NewRequest(http.MethodPost, resource, nil)
	r.Header.Set("Authorization", "Bearer "+token)

	p, err := rs.Verify(context.Background(), r)
	if err != nil {
		panic(err)
	}
	fmt.Println(rs.RequireScopes(p, "files:read"))
	err = rs.RequireScopes(p, "files:read", "files:write")
	fmt.Println(errors.Is(err, auth.ErrInsufficientScope))
	w := httptest.NewRecorder()
	rs.WriteError(w, err)
	fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"))
	// Output:
	// <nil>
	// true
	// 403 Bearer error="insufficient_scope", error_description="the operation needs scope files:read files:write", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
}

func ExampleChallenge() {
	c := auth.Challenge{
		Scheme:           auth.SchemeBearer,
		Error:            auth.CodeInvalidToken,
		ErrorDescription: "the token has expired",
		Scope:            []string{"files:read"},
		ResourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource",
	}
	fmt.Println(c)
	// Output:
	// Bearer error="invalid_token", error_description="the token has expired", scope="files:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"
}

func ExampleScopeImplications() {
	covers := auth.ScopeImplications(map[string][]string{
		"admin": {"files"},
		"files": {"files:read", "files:write"},
	})
	fmt.Println(covers("admin", "files:write"), covers("files:read", "files"))
	// Output:
	// true false
}
