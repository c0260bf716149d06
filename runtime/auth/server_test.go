package auth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

func TestAUTHS3_TokenInQueryString(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	rs := resourceServer(t, a.issuer, a.jwtValidator(t, nil), nil)
	tok := a.token("k1", a.claims())
	if _, err := rs.Verify(context.Background(), mcpRequest(SchemeBearer, tok)); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{
		testResource + "?access_token=" + tok,
		testResource + "?x=1&access_token=" + tok,
	} {
		for _, withHeader := range []bool{false, true} {
			r := httptest.NewRequest(http.MethodPost, target, nil)
			if withHeader {
				r.Header.Set("Authorization", "Bearer "+tok)
			}
			_, err := rs.Verify(context.Background(), r)
			e := wantCause(t, err, ErrTokenInQuery)
			if e.StatusCode() != http.StatusUnauthorized || e.Code != CodeInvalidRequest {
				t.Errorf("%+v", e)
			}
			w := httptest.NewRecorder()
			rs.WriteError(w, err)
			ch := w.Header().Get("WWW-Authenticate")
			if w.Code != 401 || !strings.Contains(ch, `error="invalid_request"`) || !strings.Contains(ch, "resource_metadata=") {
				t.Errorf("%d %v", w.Code, w.Header())
			}
		}
	}
	// A parameter that merely contains the name is not a token.
	r := httptest.NewRequest(http.MethodPost, testResource+"?no_access_token_here=1", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	if _, err := rs.Verify(context.Background(), r); err != nil {
		t.Error(err)
	}
}

func TestAUTHS6_MalformedAuthorization(t *testing.T) {
	for _, tc := range []struct {
		headers []string
		cause   error
		status  int
	}{
		{nil, ErrNoCredentials, 401},
		{[]string{"Basic dXNlcjpwYXNz"}, ErrNoCredentials, 401},
		{[]string{"Bearer"}, ErrNoCredentials, 401},
		{[]string{"Bearer a", "Bearer b"}, ErrMalformedRequest, 400},
		{[]string{"Bearer tok en"}, ErrMalformedRequest, 400},
		{[]string{"Bearer tok\"en"}, ErrMalformedRequest, 400},
		{[]string{"Bearer ="}, ErrMalformedRequest, 400},
	} {
		r := httptest.NewRequest(http.MethodPost, testResource, nil)
		for _, h := range tc.headers {
			r.Header.Add("Authorization", h)
		}
		_, err := ReadCredential(r)
		if e := wantCause(t, err, tc.cause); e.StatusCode() != tc.status {
			t.Errorf("%q: status %d, want %d", tc.headers, e.StatusCode(), tc.status)
		}
	}
	for _, h := range []string{"Bearer abc", "bearer abc", "BEARER  abc", "Bearer a-b.c_d~e+f/g==="} {
		r := httptest.NewRequest(http.MethodPost, testResource, nil)
		r.Header.Set("Authorization", h)
		if c, err := ReadCredential(r); err != nil || c.Scheme != SchemeBearer {
			t.Errorf("%q: %+v %v", h, c, err)
		}
	}
}

func TestAUTHS4_ChallengeWithoutToken(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	rs := resourceServer(t, a.issuer, a.jwtValidator(t, nil), nil)
	_, err := rs.Verify(context.Background(), mcpRequest("", ""))
	w := httptest.NewRecorder()
	rs.WriteError(w, err)
	want := `Bearer scope="mcp:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") != want {
		t.Errorf("%d %q\nwant %q", w.Code, w.Header().Get("WWW-Authenticate"), want)
	}
	if w.Body.Len() != 0 {
		t.Errorf("body %q", w.Body)
	}
}

func TestAUTHS4_ChallengeInvalidToken(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	rs := resourceServer(t, a.issuer, a.jwtValidator(t, nil), nil)
	c := a.claims()
	c["aud"] = "https://other.example.com"
	_, err := rs.Verify(context.Background(), mcpRequest(SchemeBearer, a.token("k1", c)))
	wantCause(t, err, ErrAudience)
	w := httptest.NewRecorder()
	rs.WriteError(w, err)
	want := `Bearer error="invalid_token", error_description="the token was not issued for this resource", scope="mcp:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") != want {
		t.Errorf("%d %q\nwant %q", w.Code, w.Header().Get("WWW-Authenticate"), want)
	}
	var body map[string]string
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body["error"] != "invalid_token" {
		t.Errorf("body %q", w.Body)
	}
	if w.Header().Get("Cache-Control") != "no-store" {
		t.Error("no Cache-Control: no-store")
	}
}

func TestAUTHS4_DPoPChallenges(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Algorithms: []string{"ES256"}})
	_, err := f.verify(mcpRequest("", ""))
	w := httptest.NewRecorder()
	f.rs.WriteError(w, err)
	got := w.Header().Values("WWW-Authenticate")
	want := []string{
		`Bearer scope="mcp:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`,
		`DPoP scope="mcp:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", algs="ES256"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// The error goes on the challenge of the scheme the client used.
	_, err = f.verify(dpopRequest(f.token, ""))
	w = httptest.NewRecorder()
	f.rs.WriteError(w, err)
	got = w.Header().Values("WWW-Authenticate")
	if len(got) != 2 || strings.Contains(got[0], "error=") || !strings.HasPrefix(got[1], `DPoP error="invalid_dpop_proof"`) {
		t.Errorf("%q", got)
	}
}

func TestAUTHS5_InsufficientScope(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	rs := resourceServer(t, a.issuer, a.jwtValidator(t, nil), nil)
	c := a.claims()
	c["scope"] = "mcp:read files:read"
	p, err := rs.Verify(context.Background(), mcpRequest(SchemeBearer, a.token("k1", c)))
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.RequireScopes(p, "mcp:read"); err != nil {
		t.Fatal(err)
	}
	err = rs.RequireScopes(p, "files:read", "files:write", "mcp:admin")
	e := wantCause(t, err, ErrInsufficientScope)
	if e.StatusCode() != 403 || !slices.Equal(e.Scopes, []string{"files:read", "files:write", "mcp:admin"}) {
		t.Errorf("%+v", e)
	}
	w := httptest.NewRecorder()
	rs.WriteError(w, err)
	want := `Bearer error="insufficient_scope", error_description="the operation needs scope files:read files:write mcp:admin", scope="files:read files:write mcp:admin", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`
	if w.Code != 403 || w.Header().Get("WWW-Authenticate") != want || len(w.Header().Values("WWW-Authenticate")) != 1 {
		t.Errorf("%d %q\nwant %q", w.Code, w.Header().Values("WWW-Authenticate"), want)
	}
	if err := rs.RequireScopes(nil, "mcp:read"); !errors.Is(err, ErrNoCredentials) {
		t.Errorf("nil principal: %v", err)
	}
}

func TestAUTHS10_ScopeHierarchy(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	rs, err := New(Config{
		Metadata:    ProtectedResourceMetadata{Resource: testResource, AuthorizationServers: []string{a.issuer}},
		Tokens:      a.jwtValidator(t, nil),
		ScopeCovers: ScopeImplications(map[string][]string{"admin": {"files"}, "files": {"files:read", "files:write"}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		granted  []string
		required []string
		ok       bool
	}{
		{[]string{"admin"}, []string{"files:read", "files:write"}, true},
		{[]string{"files"}, []string{"files:read"}, true},
		{[]string{"files:read"}, []string{"files"}, false},
		{[]string{"files"}, []string{"admin"}, false},
		{[]string{"files:read"}, []string{"files:read", "files:write"}, false},
	} {
		err := rs.RequireScopes(&Principal{Scopes: tc.granted}, tc.required...)
		if (err == nil) != tc.ok {
			t.Errorf("granted %v, required %v: %v", tc.granted, tc.required, err)
		}
	}
}

func TestAUTHS1_MetadataDocument(t *testing.T) {
	a := newTestAS(t)
	rs, err := New(Config{
		Metadata: ProtectedResourceMetadata{
			Resource:             testResource,
			AuthorizationServers: []string{a.issuer},
			ScopesSupported:      []string{"mcp:read"},
			ResourceName:         "Example MCP",
		},
		Tokens: a.jwtValidator(t, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rs.MetadataHandler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"resource":                 testResource,
		"authorization_servers":    []any{a.issuer},
		"scopes_supported":         []any{"mcp:read"},
		"bearer_methods_supported": []any{"header"},
		"resource_name":            "Example MCP",
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || !jsonEqual(doc, want) {
		t.Errorf("%d %s\n%s", resp.StatusCode, resp.Header, body)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestAUTHS2_WellKnownPaths(t *testing.T) {
	a := newTestAS(t)
	rs := resourceServer(t, a.issuer, a.jwtValidator(t, nil), nil)
	if got := rs.WellKnownPaths(); !slices.Equal(got, []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"}) {
		t.Errorf("paths %q", got)
	}
	if rs.MetadataURL() != "https://mcp.example.com/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("metadata URL %q", rs.MetadataURL())
	}
	h := rs.MetadataHandler()
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/.well-known/oauth-protected-resource", 200},
		{"GET", "/.well-known/oauth-protected-resource/mcp", 200},
		{"HEAD", "/.well-known/oauth-protected-resource/mcp", 200},
		{"OPTIONS", "/.well-known/oauth-protected-resource/mcp", 204},
		{"POST", "/.well-known/oauth-protected-resource/mcp", 405},
		{"GET", "/.well-known/oauth-protected-resource/other", 404},
		{"GET", "/.well-known/oauth-authorization-server", 404},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(tc.method, "https://mcp.example.com"+tc.path, nil))
		if w.Code != tc.status {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, w.Code, tc.status)
		}
		if tc.status == 200 && w.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s %s: no CORS header", tc.method, tc.path)
		}
	}
	root, err := New(Config{
		Metadata: ProtectedResourceMetadata{Resource: "https://mcp.example.com", AuthorizationServers: []string{a.issuer}},
		Tokens:   a.jwtValidator(t, func(c *JWTConfig) { c.Resource = "https://mcp.example.com" }),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := root.WellKnownPaths(); !slices.Equal(got, []string{"/.well-known/oauth-protected-resource"}) {
		t.Errorf("origin resource paths %q", got)
	}
}

func TestAUTHS1_MetadataValidate(t *testing.T) {
	good := ProtectedResourceMetadata{Resource: testResource, AuthorizationServers: []string{"https://as.example.com"}}
	if err := good.Validate(false); err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(*ProtectedResourceMetadata){
		"no authorization server": func(m *ProtectedResourceMetadata) { m.AuthorizationServers = nil },
		"offline_access":          func(m *ProtectedResourceMetadata) { m.ScopesSupported = []string{"mcp:read", "offline_access"} },
		"fragment":                func(m *ProtectedResourceMetadata) { m.Resource += "#x" },
		"relative":                func(m *ProtectedResourceMetadata) { m.Resource = "/mcp" },
		"http resource":           func(m *ProtectedResourceMetadata) { m.Resource = "http://mcp.example.com/mcp" },
		"http issuer":             func(m *ProtectedResourceMetadata) { m.AuthorizationServers = []string{"http://as.example.com"} },
		"bad scope":               func(m *ProtectedResourceMetadata) { m.ScopesSupported = []string{"a b"} },
		"query bearer method":     func(m *ProtectedResourceMetadata) { m.BearerMethodsSupported = []string{"query"} },
	} {
		m := good
		mod(&m)
		if err := m.Validate(false); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestAUTHS7_IssuerMustBeListed(t *testing.T) {
	a := newTestAS(t)
	_, err := New(Config{
		Metadata: ProtectedResourceMetadata{Resource: testResource, AuthorizationServers: []string{"https://other-as.example.com"}},
		Tokens:   a.jwtValidator(t, nil),
	})
	if err == nil {
		t.Error("a validator for an unlisted issuer was accepted")
	}
}

func TestAUTHS11_TokenNeverInPrincipalErrorsOrAnswers(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	rs := resourceServer(t, a.issuer, v, nil)
	good := a.token("k1", a.claims())
	c := a.claims()
	c["aud"] = "https://other.example.com"
	bad := a.token("k1", c)
	p, err := rs.Verify(context.Background(), mcpRequest(SchemeBearer, good))
	if err != nil {
		t.Fatal(err)
	}
	if dump, _ := json.Marshal(p); strings.Contains(string(dump), good) {
		t.Error("the Principal holds the token")
	}
	for _, r := range []*http.Request{
		mcpRequest(SchemeBearer, bad),
		httptest.NewRequest(http.MethodPost, testResource+"?access_token="+bad, nil),
	} {
		_, err := rs.Verify(context.Background(), r)
		w := httptest.NewRecorder()
		rs.WriteError(w, err)
		for _, s := range []string{err.Error(), w.Body.String(), strings.Join(w.Header().Values("WWW-Authenticate"), " ")} {
			if strings.Contains(s, bad) || strings.Contains(s, splitJWS(bad)[2]) {
				t.Errorf("the token appears in %q", s)
			}
		}
	}
	// The cache is keyed by digest.
	v.cache.mu.RLock()
	defer v.cache.mu.RUnlock()
	if len(v.cache.m) != 1 {
		t.Fatalf("%d cached tokens", len(v.cache.m))
	}
	for k := range v.cache.m {
		if k != tokenDigest(good) {
			t.Error("cache key is not the token digest")
		}
	}
}

func TestAUTHS3_Protect(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	rs := resourceServer(t, a.issuer, a.jwtValidator(t, nil), nil)
	h := rs.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := PrincipalFromContext(r.Context())
		if !ok {
			t.Error("no principal in the context")
			return
		}
		_, _ = io.WriteString(w, p.Subject)
	}), "mcp:read")
	for _, tc := range []struct {
		token  string
		status int
	}{
		{"", 401},
		{a.token("k1", a.claims()), 200},
		{a.token("k1", map[string]any{"iss": a.issuer, "sub": "alice", "aud": testResource, "exp": 1 << 33, "scope": "other"}), 403},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, mcpRequest(SchemeBearer, tc.token))
		if w.Code != tc.status {
			t.Errorf("status %d, want %d (%s)", w.Code, tc.status, w.Header())
		}
	}
}

func TestAUTHS4_ForeignValidatorError(t *testing.T) {
	rs, err := New(Config{
		Metadata: ProtectedResourceMetadata{Resource: testResource, AuthorizationServers: []string{"https://as.example.com"}},
		Tokens:   validatorFunc(func(context.Context, string) (*Principal, error) { return nil, errors.New("db says no: secret-detail") }),
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rs.Verify(context.Background(), mcpRequest(SchemeBearer, "tok"))
	w := httptest.NewRecorder()
	rs.WriteError(w, err)
	if w.Code != 401 || !strings.Contains(w.Header().Get("WWW-Authenticate"), `error="invalid_token"`) || strings.Contains(w.Body.String(), "secret-detail") {
		t.Errorf("%d %v %q", w.Code, w.Header(), w.Body)
	}
}

type validatorFunc func(context.Context, string) (*Principal, error)

func (f validatorFunc) ValidateToken(ctx context.Context, tok string) (*Principal, error) {
	return f(ctx, tok)
}

func TestChallengeString(t *testing.T) {
	c := Challenge{Scheme: "Bearer", Error: "invalid_token", ErrorDescription: "bad \"quote\"\n and \\", Scope: []string{"a", "b"}, ResourceMetadata: `https://x/"y`}
	want := `Bearer error="invalid_token", error_description="bad  quote   and  ", scope="a b", resource_metadata="https://x/\"y"`
	if got := c.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := (Challenge{Scheme: "Bearer"}).String(); got != "Bearer" {
		t.Errorf("bare challenge %q", got)
	}
}

func TestMetadataURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://mcp.example.com/mcp":         "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		"https://mcp.example.com":             "https://mcp.example.com/.well-known/oauth-protected-resource",
		"https://mcp.example.com/":            "https://mcp.example.com/.well-known/oauth-protected-resource",
		"https://mcp.example.com:8443/a/b/":   "https://mcp.example.com:8443/.well-known/oauth-protected-resource/a/b",
		"http://localhost:3000/public/mcp":    "http://localhost:3000/.well-known/oauth-protected-resource/public/mcp",
		"https://mcp.example.com/x%20y/mcp":   "https://mcp.example.com/.well-known/oauth-protected-resource/x%20y/mcp",
		"https://mcp.example.com/mcp?tenant=": "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
	} {
		if got, err := MetadataURL(in); err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", in, got, err, want)
		}
	}
	if _, err := MetadataURL("mcp.example.com"); err == nil {
		t.Error("a URL without scheme accepted")
	}
}
