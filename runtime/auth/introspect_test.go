package auth

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func (a *testAS) setActive(token string, resp map[string]any) {
	a.mu.Lock()
	a.active[token] = resp
	a.mu.Unlock()
}

func (a *testAS) introspectionValidator(t *testing.T, mod func(*IntrospectionConfig)) *IntrospectionValidator {
	t.Helper()
	cfg := IntrospectionConfig{Endpoint: a.issuer + "/introspect", Resource: testResource, Issuer: a.issuer, ClientID: "rs", ClientSecret: "rs-secret"}
	if mod != nil {
		mod(&cfg)
	}
	v, err := NewIntrospectionValidator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func activeResponse(a *testAS) map[string]any {
	now := time.Now()
	return map[string]any{
		"active": true, "iss": a.issuer, "sub": "user-9", "aud": []string{testResource},
		"client_id": "client-9", "scope": "mcp:read", "exp": now.Add(time.Hour).Unix(), "iat": now.Unix(),
		"token_type": "Bearer",
	}
}

func TestAUTHS7_IntrospectionActive(t *testing.T) {
	a := newTestAS(t)
	a.setActive("opaque-1", activeResponse(a))
	v := a.introspectionValidator(t, nil)
	p, err := validate(v, "opaque-1")
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != "user-9" || p.ClientID != "client-9" || !slices.Equal(p.Scopes, []string{"mcp:read"}) || p.Issuer != a.issuer {
		t.Errorf("principal %+v", p)
	}
	if got, _ := a.intAuth.Load().(string); !strings.HasPrefix(got, "Basic ") {
		t.Errorf("introspection sent Authorization %q, want client_secret_basic", got)
	}
	if _, err := validate(v, "opaque-1"); err != nil {
		t.Fatal(err)
	}
	if n := a.intHits.Load(); n != 1 {
		t.Errorf("%d introspection calls, want 1 (cached)", n)
	}
}

func TestAUTHS7_IntrospectionInactive(t *testing.T) {
	a := newTestAS(t)
	v := a.introspectionValidator(t, nil)
	for range 2 {
		_, err := validate(v, "revoked")
		if e := wantCause(t, err, ErrInactive); e.StatusCode() != 401 || e.Code != CodeInvalidToken {
			t.Errorf("%+v", e)
		}
	}
	if n := a.intHits.Load(); n != 2 {
		t.Errorf("%d introspection calls, want 2 (inactive answers are not cached)", n)
	}
}

func TestAUTHS8_IntrospectionWrongAudience(t *testing.T) {
	a := newTestAS(t)
	r := activeResponse(a)
	r["aud"] = "https://mcp.example.com/other"
	a.setActive("other", r)
	r = activeResponse(a)
	delete(r, "aud")
	a.setActive("none", r)
	v := a.introspectionValidator(t, nil)
	_, err := validate(v, "other")
	wantCause(t, err, ErrAudience)
	_, err = validate(v, "none")
	wantCause(t, err, ErrAudience)
}

func TestAUTHS7_IntrospectionWrongIssuerOrExpired(t *testing.T) {
	a := newTestAS(t)
	r := activeResponse(a)
	r["iss"] = "https://evil.example.com"
	a.setActive("evil", r)
	r = activeResponse(a)
	r["exp"] = time.Now().Add(-time.Hour).Unix()
	a.setActive("old", r)
	v := a.introspectionValidator(t, nil)
	_, err := validate(v, "evil")
	wantCause(t, err, ErrIssuer)
	_, err = validate(v, "old")
	wantCause(t, err, ErrExpired)
}

func TestAUTHS7_IntrospectionCacheHonoursExp(t *testing.T) {
	a := newTestAS(t)
	now := time.Now()
	r := activeResponse(a)
	r["exp"] = now.Add(20 * time.Second).Unix()
	a.setActive("short", r)
	v := a.introspectionValidator(t, func(c *IntrospectionConfig) {
		c.Now = func() time.Time { return now }
		c.CacheTTL = time.Hour
	})
	if _, err := validate(v, "short"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(10 * time.Second)
	if _, err := validate(v, "short"); err != nil {
		t.Fatal(err)
	}
	if n := a.intHits.Load(); n != 1 {
		t.Fatalf("%d calls, want 1", n)
	}
	// Past exp the cached answer is not used: the endpoint is asked again
	// (and then says inactive).
	now = now.Add(15 * time.Second)
	a.setActive("short", map[string]any{"active": false})
	_, err := validate(v, "short")
	wantCause(t, err, ErrInactive)
	if n := a.intHits.Load(); n != 2 {
		t.Errorf("%d calls, want 2", n)
	}
}

func TestAUTHS7_IntrospectionEndpointFailure(t *testing.T) {
	a := newTestAS(t)
	a.setActive("t", activeResponse(a))
	v := a.introspectionValidator(t, func(c *IntrospectionConfig) { c.ClientSecret = "wrong" })
	_, err := validate(v, "t")
	wantCause(t, err, ErrUnavailable)
}

func TestAUTHS9_IntrospectionNoRedirect(t *testing.T) {
	var leaked atomic.Bool
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(true)
		writeJSON(w, map[string]any{"active": true, "aud": testResource})
	}))
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	v, err := NewIntrospectionValidator(IntrospectionConfig{Endpoint: redirector.URL, Resource: testResource, HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = validate(v, "secret-token")
	wantCause(t, err, ErrUnavailable)
	if leaked.Load() {
		t.Error("the token followed a redirect to another server")
	}
}

func TestAUTHS3_IntrospectionDPoPBound(t *testing.T) {
	a := newTestAS(t)
	key := newDPoPKey(t)
	r := activeResponse(a)
	r["cnf"] = map[string]any{"jkt": key.jkt}
	r["token_type"] = "DPoP"
	a.setActive("bound", r)
	d, err := NewDPoPVerifier(DPoPConfig{})
	if err != nil {
		t.Fatal(err)
	}
	rs := resourceServer(t, a.issuer, a.introspectionValidator(t, nil), d)
	p, err := rs.Verify(t.Context(), dpopRequest("bound", key.proof(t, http.MethodPost, testResource, "bound", nil)))
	if err != nil || p.Confirmation != key.jkt {
		t.Fatal(p, err)
	}
	_, err = rs.Verify(t.Context(), mcpRequest(SchemeBearer, "bound"))
	wantCause(t, err, ErrTokenBinding)
}
