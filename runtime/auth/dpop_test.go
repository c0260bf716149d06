package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// dpopFixture is an authorization server, a ResourceServer accepting
// DPoP, and a client key with a token bound to it.
type dpopFixture struct {
	as    *testAS
	rs    *ResourceServer
	key   dpopKey
	token string
}

func newDPoPFixture(t *testing.T, cfg DPoPConfig) *dpopFixture {
	t.Helper()
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	d, err := NewDPoPVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &dpopFixture{as: a, rs: resourceServer(t, a.issuer, a.jwtValidator(t, nil), d), key: newDPoPKey(t)}
	f.token = f.boundToken(f.key.jkt)
	return f
}

func (f *dpopFixture) boundToken(jkt string) string {
	c := f.as.claims()
	c["cnf"] = map[string]any{"jkt": jkt}
	return f.as.token("k1", c)
}

func (f *dpopFixture) verify(r *http.Request) (*Principal, error) {
	return f.rs.Verify(context.Background(), r)
}

func (f *dpopFixture) proof(t *testing.T, mod func(map[string]any)) string {
	return f.key.proof(t, http.MethodPost, testResource, f.token, mod)
}

func TestAUTHS3_DPoPValidProof(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	p, err := f.verify(dpopRequest(f.token, f.proof(t, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Confirmation != f.key.jkt {
		t.Errorf("confirmation %q, want %q", p.Confirmation, f.key.jkt)
	}
	// The scheme is case-insensitive, htu compares normalised.
	r := dpopRequest(f.token, f.key.proof(t, http.MethodPost, "HTTPS://MCP.example.com:443/mcp", f.token, nil))
	r.Header.Set("Authorization", "dpop "+f.token)
	if _, err := f.verify(r); err != nil {
		t.Fatal(err)
	}
}

func TestAUTHS3_DPoPReplayedProof(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	proof := f.proof(t, nil)
	if _, err := f.verify(dpopRequest(f.token, proof)); err != nil {
		t.Fatal(err)
	}
	_, err := f.verify(dpopRequest(f.token, proof))
	if e := wantCause(t, err, ErrDPoPReplay); e.Code != CodeInvalidDPoPProof || e.StatusCode() != 401 {
		t.Errorf("%+v", e)
	}
	// A fresh proof with the same jti is a replay too.
	jti := ""
	first := f.proof(t, func(c map[string]any) { jti = c["jti"].(string) })
	if _, err := f.verify(dpopRequest(f.token, first)); err != nil {
		t.Fatal(err)
	}
	_, err = f.verify(dpopRequest(f.token, f.proof(t, func(c map[string]any) { c["jti"] = jti; c["iat"] = time.Now().Unix() + 1 })))
	wantCause(t, err, ErrDPoPReplay)
}

func TestAUTHS3_DPoPProofForAnotherURL(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	for _, htu := range []string{
		"https://mcp.example.com/other",
		"https://evil.example.com/mcp",
		"http://mcp.example.com/mcp",
		"https://mcp.example.com:8443/mcp",
		"",
	} {
		proof := f.key.proof(t, http.MethodPost, htu, f.token, nil)
		_, err := f.verify(dpopRequest(f.token, proof))
		if e := wantCause(t, err, ErrDPoPProof); !strings.Contains(e.Description, "htu") {
			t.Errorf("htu %q: %v", htu, e)
		}
	}
	// The origin comes from the resource URI, not the Host header.
	r := dpopRequest(f.token, f.key.proof(t, http.MethodPost, "https://evil.example.com/mcp", f.token, nil))
	r.Host = "evil.example.com"
	_, err := f.verify(r)
	wantCause(t, err, ErrDPoPProof)
	// Used alone, the verifier takes the request's URL; TargetURL overrides.
	d, _ := NewDPoPVerifier(DPoPConfig{})
	r = dpopRequest(f.token, f.key.proof(t, http.MethodPost, "http://10.0.0.5:8080/mcp", f.token, nil))
	r.Host, r.TLS = "10.0.0.5:8080", nil
	if _, err := d.VerifyProof(t.Context(), r, r.Header.Get("DPoP"), f.token); err != nil {
		t.Error(err)
	}
	d, _ = NewDPoPVerifier(DPoPConfig{TargetURL: func(*http.Request) string { return testResource }})
	if _, err := d.VerifyProof(t.Context(), r, r.Header.Get("DPoP"), f.token); !errors.Is(err, ErrDPoPProof) {
		t.Errorf("TargetURL ignored: %v", err)
	}
	// Query and fragment are not compared (RFC 9449 §4.3).
	proof := f.key.proof(t, http.MethodPost, testResource+"?x=1#f", f.token, nil)
	if _, err := f.verify(dpopRequest(f.token, proof)); err != nil {
		t.Error(err)
	}
}

func TestAUTHS3_DPoPProofForAnotherMethod(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	for _, htm := range []string{http.MethodGet, "post", http.MethodDelete} {
		proof := f.key.proof(t, htm, testResource, f.token, nil)
		_, err := f.verify(dpopRequest(f.token, proof))
		if e := wantCause(t, err, ErrDPoPProof); !strings.Contains(e.Description, "htm") {
			t.Errorf("htm %q: %v", htm, e)
		}
	}
}

func TestAUTHS3_DPoPBoundTokenAsBearer(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	r := mcpRequest(SchemeBearer, f.token)
	r.Header.Set("DPoP", f.proof(t, nil)) // a proof does not make Bearer acceptable
	_, err := f.verify(r)
	if e := wantCause(t, err, ErrTokenBinding); e.Code != CodeInvalidToken || e.StatusCode() != 401 {
		t.Errorf("%+v", e)
	}
	// Without a DPoPVerifier, bound tokens are refused outright.
	plain := resourceServer(t, f.as.issuer, f.as.jwtValidator(t, nil), nil)
	_, err = plain.Verify(context.Background(), mcpRequest(SchemeBearer, f.token))
	wantCause(t, err, ErrTokenBinding)
}

func TestAUTHS3_DPoPProofFromAnotherKey(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	thief := newDPoPKey(t)
	proof := thief.proof(t, http.MethodPost, testResource, f.token, nil)
	_, err := f.verify(dpopRequest(f.token, proof))
	wantCause(t, err, ErrTokenBinding)
}

func TestAUTHS3_DPoPSchemeWithUnboundToken(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	unbound := f.as.token("k1", f.as.claims())
	proof := f.key.proof(t, http.MethodPost, testResource, unbound, nil)
	_, err := f.verify(dpopRequest(unbound, proof))
	wantCause(t, err, ErrTokenBinding)
	if _, err := f.verify(mcpRequest(SchemeBearer, unbound)); err != nil {
		t.Errorf("unbound bearer token: %v", err)
	}
}

func TestAUTHS3_DPoPRequiredRefusesBearer(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{Required: true})
	unbound := f.as.token("k1", f.as.claims())
	_, err := f.verify(mcpRequest(SchemeBearer, unbound))
	wantCause(t, err, ErrTokenBinding)
	if md := f.rs.Metadata(); !md.DPoPBoundAccessTokensRequired || len(md.DPoPSigningAlgValuesSupported) == 0 {
		t.Errorf("metadata %+v", md)
	}
}

func TestAUTHS3_DPoPMissingOrDuplicateProof(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	_, err := f.verify(dpopRequest(f.token, ""))
	wantCause(t, err, ErrDPoPProof)
	r := dpopRequest(f.token, f.proof(t, nil))
	r.Header.Add("DPoP", f.proof(t, nil))
	_, err = f.verify(r)
	wantCause(t, err, ErrDPoPProof)
}

func TestAUTHS3_DPoPStaleOrFutureProof(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	now := time.Now().Unix()
	for _, iat := range []int64{now - 120, now + 60} {
		_, err := f.verify(dpopRequest(f.token, f.proof(t, func(c map[string]any) { c["iat"] = iat })))
		if e := wantCause(t, err, ErrDPoPProof); !strings.Contains(e.Description, "iat") {
			t.Errorf("iat %d: %v", iat-now, e)
		}
	}
	_, err := f.verify(dpopRequest(f.token, f.proof(t, func(c map[string]any) { delete(c, "iat") })))
	wantCause(t, err, ErrDPoPProof)
	// Within MaxAge plus leeway.
	if _, err := f.verify(dpopRequest(f.token, f.proof(t, func(c map[string]any) { c["iat"] = now - 70 }))); err != nil {
		t.Error(err)
	}
}

func TestAUTHS3_DPoPWrongAth(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	other := f.boundToken(f.key.jkt)
	for _, mod := range []func(map[string]any){
		func(c map[string]any) { delete(c, "ath") },
		func(c map[string]any) { c["ath"] = "" },
	} {
		_, err := f.verify(dpopRequest(f.token, f.proof(t, mod)))
		wantCause(t, err, ErrDPoPProof)
	}
	// A proof made for another token of the same key.
	proof := f.key.proof(t, http.MethodPost, testResource, other, nil)
	_, err := f.verify(dpopRequest(f.token, proof))
	if e := wantCause(t, err, ErrDPoPProof); !strings.Contains(e.Description, "ath") {
		t.Error(e)
	}
}

func TestAUTHS3_DPoPMalformedProofs(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	claims := map[string]any{"jti": randomID(), "htm": "POST", "htu": testResource, "iat": time.Now().Unix()}
	// Wrong typ; no embedded jwk; an HMAC proof.
	for _, proof := range []string{
		signJWT(t, f.key.priv, jose.ES256, "", "JWT", claims),
		signJWT(t, f.key.priv, jose.ES256, "", "dpop+jwt", claims),
		signJWT(t, []byte("0123456789abcdef0123456789abcdef"), jose.HS256, "", "dpop+jwt", claims),
		"not-a-jwt",
	} {
		_, err := f.verify(dpopRequest(f.token, proof))
		wantCause(t, err, ErrDPoPProof)
	}
	_, err := f.verify(dpopRequest(f.token, f.proof(t, func(c map[string]any) { delete(c, "jti") })))
	wantCause(t, err, ErrDPoPProof)
}

func TestAUTHS3_DPoPNonce(t *testing.T) {
	nonces := NewRotatingNonces(time.Minute, nil)
	f := newDPoPFixture(t, DPoPConfig{Nonces: nonces})
	_, err := f.verify(dpopRequest(f.token, f.proof(t, nil)))
	e := wantCause(t, err, ErrDPoPNonce)
	if e.Code != CodeUseDPoPNonce || e.Nonce == "" {
		t.Fatalf("%+v", e)
	}
	w := httptest.NewRecorder()
	f.rs.WriteError(w, err)
	if w.Code != 401 || w.Header().Get("DPoP-Nonce") != e.Nonce ||
		!strings.Contains(strings.Join(w.Header().Values("WWW-Authenticate"), "\n"), `DPoP error="use_dpop_nonce"`) {
		t.Errorf("%d %v", w.Code, w.Header())
	}
	_, err = f.verify(dpopRequest(f.token, f.proof(t, func(c map[string]any) { c["nonce"] = "made-up" })))
	wantCause(t, err, ErrDPoPNonce)
	if _, err := f.verify(dpopRequest(f.token, f.proof(t, func(c map[string]any) { c["nonce"] = e.Nonce }))); err != nil {
		t.Fatal(err)
	}
}

func TestAUTHS3_RotatingNonces(t *testing.T) {
	now := time.Now()
	n := NewRotatingNonces(time.Minute, func() time.Time { return now })
	ctx := context.Background()
	first, _ := n.Nonce(ctx)
	now = now.Add(61 * time.Second)
	second, _ := n.Nonce(ctx)
	if first == second {
		t.Fatal("nonce did not rotate")
	}
	if ok, _ := n.Valid(ctx, first); !ok {
		t.Error("the previous nonce is refused")
	}
	now = now.Add(61 * time.Second)
	if ok, _ := n.Valid(ctx, first); ok {
		t.Error("a nonce two periods old is accepted")
	}
	if ok, _ := n.Valid(ctx, ""); ok {
		t.Error("the empty nonce is accepted")
	}
}

func TestAUTHS3_ReplayCacheFailsClosed(t *testing.T) {
	now := time.Now()
	c := NewReplayCache(2, func() time.Time { return now })
	ctx := context.Background()
	exp := now.Add(time.Minute)
	for _, k := range []string{"a", "b"} {
		if seen, err := c.Seen(ctx, k, exp); seen || err != nil {
			t.Fatal(k, seen, err)
		}
	}
	if seen, _ := c.Seen(ctx, "a", exp); !seen {
		t.Error("replay of a not seen")
	}
	if _, err := c.Seen(ctx, "c", exp); err == nil {
		t.Error("full cache accepted a new key")
	}
	now = now.Add(2 * time.Minute)
	if seen, err := c.Seen(ctx, "c", now.Add(time.Minute)); seen || err != nil {
		t.Error("expired keys not swept", seen, err)
	}
	if seen, _ := c.Seen(ctx, "a", now.Add(time.Minute)); seen {
		t.Error("an expired key still counts")
	}
}

func TestAUTHS3_DPoPConcurrentReplay(t *testing.T) {
	f := newDPoPFixture(t, DPoPConfig{})
	proof := f.proof(t, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 8 {
		wg.Go(func() {
			if _, err := f.verify(dpopRequest(f.token, proof)); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			} else if !errors.Is(err, ErrDPoPReplay) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ok != 1 {
		t.Errorf("%d of 8 concurrent uses of one proof accepted, want 1", ok)
	}
}
