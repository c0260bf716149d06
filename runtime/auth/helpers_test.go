package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// testResource is the canonical URI of the MCP server under test.
const testResource = "https://mcp.example.com/mcp"

// testAS is an authorization server on httptest: RFC 8414 metadata, a
// JWKS whose keys tests add and remove, and an introspection endpoint.
type testAS struct {
	t      testing.TB
	srv    *httptest.Server
	issuer string

	mu       sync.Mutex
	keys     map[string]testKey // kid → key, all served unless hidden
	order    []string
	served   map[string]bool
	metaIss  string // issuer named in the metadata; default the real one
	noOAuth  bool   // serve only openid-configuration
	active   map[string]map[string]any
	jwksHits atomic.Int32
	intHits  atomic.Int32
	intAuth  atomic.Value // last introspection Authorization header
	down     atomic.Bool  // answer everything with 503
}

func (a *testAS) setMetaIssuer(iss string) { a.mu.Lock(); a.metaIss = iss; a.mu.Unlock() }
func (a *testAS) setNoOAuth()              { a.mu.Lock(); a.noOAuth = true; a.mu.Unlock() }

type testKey struct {
	kid   string
	alg   jose.SignatureAlgorithm
	priv  crypto.Signer
	noAlg bool // the JWK has no alg member
}

func newTestAS(t testing.TB) *testAS {
	a := &testAS{t: t, keys: map[string]testKey{}, served: map[string]bool{}, active: map[string]map[string]any{}}
	mux := http.NewServeMux()
	meta := func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		iss := a.metaIss
		a.mu.Unlock()
		if iss == "" {
			iss = a.issuer
		}
		writeJSON(w, map[string]any{"issuer": iss, "jwks_uri": a.issuer + "/jwks", "introspection_endpoint": a.issuer + "/introspect"})
	}
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		no := a.noOAuth
		a.mu.Unlock()
		if no {
			http.NotFound(w, r)
			return
		}
		meta(w, r)
	})
	mux.HandleFunc("/.well-known/openid-configuration", meta)
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		a.jwksHits.Add(1)
		a.mu.Lock()
		var set jose.JSONWebKeySet
		for _, kid := range a.order {
			if k := a.keys[kid]; a.served[kid] {
				jwk := jose.JSONWebKey{Key: k.priv.Public(), KeyID: kid, Algorithm: string(k.alg), Use: "sig"}
				if k.noAlg {
					jwk.Algorithm = ""
				}
				set.Keys = append(set.Keys, jwk)
			}
		}
		a.mu.Unlock()
		writeJSON(w, set)
	})
	mux.HandleFunc("/introspect", func(w http.ResponseWriter, r *http.Request) {
		a.intHits.Add(1)
		a.intAuth.Store(r.Header.Get("Authorization"))
		if r.Method != http.MethodPost || r.ParseForm() != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if id, secret, ok := r.BasicAuth(); !ok || id != "rs" || secret != "rs-secret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		a.mu.Lock()
		resp, ok := a.active[r.PostForm.Get("token")]
		a.mu.Unlock()
		if !ok {
			resp = map[string]any{"active": false}
		}
		writeJSON(w, resp)
	})
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	a.issuer = a.srv.URL
	t.Cleanup(a.srv.Close)
	return a
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

var (
	rsaOnce sync.Once
	rsaKey  *rsa.PrivateKey
)

// testRSAKey is one 2048-bit RSA key for the whole run: generating one
// per test would cost seconds on a shared machine.
func testRSAKey(t testing.TB) *rsa.PrivateKey {
	rsaOnce.Do(func() {
		var err error
		if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	return rsaKey
}

func newECKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// addKey generates (for ES256) or reuses (RS256) a key, serves it under
// kid and returns it.
func (a *testAS) addKey(kid string, alg jose.SignatureAlgorithm) testKey {
	var priv crypto.Signer
	switch alg {
	case jose.ES256:
		priv = newECKey(a.t)
	case jose.RS256:
		priv = testRSAKey(a.t)
	default:
		a.t.Fatalf("addKey: %s", alg)
	}
	k := testKey{kid: kid, alg: alg, priv: priv}
	a.mu.Lock()
	a.keys[kid] = k
	a.order = append(a.order, kid)
	a.served[kid] = true
	a.mu.Unlock()
	return k
}

// addKeyWithoutAlg is addKey for a JWK without an alg member.
func (a *testAS) addKeyWithoutAlg(kid string, alg jose.SignatureAlgorithm) testKey {
	k := a.addKey(kid, alg)
	a.mu.Lock()
	k.noAlg = true
	a.keys[kid] = k
	a.mu.Unlock()
	return k
}

// removeKey stops serving kid (tokens can still be signed with it).
func (a *testAS) removeKey(kid string) {
	a.mu.Lock()
	a.served[kid] = false
	a.mu.Unlock()
}

func (a *testAS) key(kid string) testKey {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.keys[kid]
}

// claims returns a valid claim set for testResource.
func (a *testAS) claims() map[string]any {
	now := time.Now()
	return map[string]any{
		"iss":       a.issuer,
		"sub":       "user-1",
		"aud":       testResource,
		"client_id": "client-1",
		"scope":     "mcp:read mcp:write",
		"iat":       now.Unix(),
		"exp":       now.Add(time.Hour).Unix(),
		"jti":       randomID(),
	}
}

// token signs claims with the key kid, typ at+jwt.
func (a *testAS) token(kid string, claims map[string]any) string {
	k := a.key(kid)
	return signJWT(a.t, k.priv, k.alg, kid, "at+jwt", claims)
}

// signJWT signs claims with key and alg, with kid and typ headers when
// not empty.
func signJWT(t testing.TB, key any, alg jose.SignatureAlgorithm, kid, typ string, claims map[string]any) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// jwtValidator returns a validator for a's tokens and testResource.
func (a *testAS) jwtValidator(t testing.TB, mod func(*JWTConfig)) *JWTValidator {
	t.Helper()
	cfg := JWTConfig{Issuer: a.issuer, Resource: testResource}
	if mod != nil {
		mod(&cfg)
	}
	v, err := NewJWTValidator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// resourceServer returns a ResourceServer over tokens, with dpop.
func resourceServer(t testing.TB, issuer string, tokens TokenValidator, dpop *DPoPVerifier) *ResourceServer {
	t.Helper()
	s, err := New(Config{
		Metadata: ProtectedResourceMetadata{Resource: testResource, AuthorizationServers: []string{issuer}, ScopesSupported: []string{"mcp:read"}},
		Tokens:   tokens,
		DPoP:     dpop,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mcpRequest is a POST to the MCP endpoint with Authorization: scheme token.
func mcpRequest(scheme, token string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, testResource, strings.NewReader(`{}`))
	if token != "" {
		r.Header.Set("Authorization", scheme+" "+token)
	}
	return r
}

// wantCause fails unless err is an *Error wrapping cause.
func wantCause(t testing.TB, err, cause error) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want refusal with %v", cause)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *auth.Error", err, err)
	}
	if !errors.Is(err, cause) {
		t.Fatalf("error %v; want cause %v", err, cause)
	}
	return e
}

// validate runs v on token with a background context.
func validate(v TokenValidator, token string) (*Principal, error) {
	return v.ValidateToken(context.Background(), token)
}

// dpopKey is a client's DPoP key and its thumbprint.
type dpopKey struct {
	priv *ecdsa.PrivateKey
	jkt  string
}

func newDPoPKey(t testing.TB) dpopKey {
	k := newECKey(t)
	jwk := jose.JSONWebKey{Key: &k.PublicKey}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return dpopKey{priv: k, jkt: base64.RawURLEncoding.EncodeToString(tp)}
}

// proof is a DPoP proof by k for htm and htu presenting token; mod may
// change the claims.
func (k dpopKey) proof(t testing.TB, htm, htu, token string, mod func(map[string]any)) string {
	t.Helper()
	sum := sha256.Sum256([]byte(token))
	claims := map[string]any{
		"jti": randomID(),
		"htm": htm,
		"htu": htu,
		"iat": time.Now().Unix(),
		"ath": base64.RawURLEncoding.EncodeToString(sum[:]),
	}
	if mod != nil {
		mod(claims)
	}
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt")
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.priv}, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	obj, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	p, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// dpopRequest is a DPoP request to the MCP endpoint with proof.
func dpopRequest(token, proof string) *http.Request {
	r := mcpRequest(SchemeDPoP, token)
	if proof != "" {
		r.Header.Set("DPoP", proof)
	}
	return r
}
