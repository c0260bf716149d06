package auth

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

func TestAUTHS7_ValidToken(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	c := a.claims()
	c["cnf"] = map[string]any{"x5t#S256": "ignored"}
	p, err := validate(v, a.token("k1", c))
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != "user-1" || p.Issuer != a.issuer || p.ClientID != "client-1" || p.TokenID != c["jti"] ||
		!slices.Equal(p.Scopes, []string{"mcp:read", "mcp:write"}) || !slices.Equal(p.Audience, []string{testResource}) ||
		p.Expiry.Unix() != c["exp"] || p.IssuedAt.Unix() != c["iat"] || p.Confirmation != "" {
		t.Errorf("principal %+v", p)
	}
	var sub string
	if ok, err := p.Claim("sub", &sub); !ok || err != nil || sub != "user-1" {
		t.Errorf("Claim(sub) = %v, %v, %q", ok, err, sub)
	}
	if ok, _ := p.Claim("missing", &sub); ok {
		t.Error("Claim(missing) found")
	}
}

func TestAUTHS7_ScpArrayAndAzp(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	c := a.claims()
	delete(c, "scope")
	delete(c, "client_id")
	c["scp"] = []string{"a", "b"}
	c["azp"] = "client-2"
	p, err := validate(v, a.token("k1", c))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Scopes, []string{"a", "b"}) || p.ClientID != "client-2" {
		t.Errorf("principal %+v", p)
	}
}

// Each hostile case below first shows the untampered token passing, so a
// refusal can only come from the one claim or header that differs.

func TestAUTHS8_WrongAudience(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	c := a.claims()
	if _, err := validate(v, a.token("k1", c)); err != nil {
		t.Fatal(err)
	}
	c["aud"] = "https://api.example.com"
	_, err := validate(v, a.token("k1", c))
	wantCause(t, err, ErrAudience)
	c["aud"] = []string{"https://api.example.com", "client-1"}
	_, err = validate(v, a.token("k1", c))
	wantCause(t, err, ErrAudience)
}

func TestAUTHS8_MissingAudience(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	for _, aud := range []any{nil, "", []string{}} {
		c := a.claims()
		if aud == nil {
			delete(c, "aud")
		} else {
			c["aud"] = aud
		}
		_, err := validate(v, a.token("k1", c))
		if e := wantCause(t, err, ErrAudience); e.Code != CodeInvalidToken || e.StatusCode() != 401 {
			t.Errorf("aud %v: %+v", aud, e)
		}
	}
}

func TestAUTHS8_AudienceCanonicalForms(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	for _, aud := range []any{
		"HTTPS://MCP.EXAMPLE.COM/mcp",
		"https://mcp.example.com:443/mcp",
		[]string{"https://other.example.com", testResource},
	} {
		c := a.claims()
		c["aud"] = aud
		if _, err := validate(v, a.token("k1", c)); err != nil {
			t.Errorf("aud %v: %v", aud, err)
		}
	}
}

func TestAUTHS9_TokenForAnotherResource(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	// Same authorization server, other resources: an origin is not each
	// of its paths, a sibling or a sub-path is not this endpoint, and the
	// path is case-sensitive.
	for _, aud := range []string{
		"https://mcp.example.com",
		"https://mcp.example.com/",
		"https://mcp.example.com/mcp2",
		"https://mcp.example.com/mcp/admin",
		"https://mcp.example.com/MCP",
		"http://mcp.example.com/mcp",
		"https://mcp.example.com:8443/mcp",
		"https://mcp.example.com/mcp#frag",
	} {
		c := a.claims()
		c["aud"] = aud
		_, err := validate(v, a.token("k1", c))
		wantCause(t, err, ErrAudience)
	}
}

func TestAUTHS4_ExpiredToken(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	c := a.claims()
	c["exp"] = time.Now().Add(-DefaultLeeway / 2).Unix() // within the leeway
	if _, err := validate(v, a.token("k1", c)); err != nil {
		t.Fatal(err)
	}
	c["exp"] = time.Now().Add(-DefaultLeeway - 2*time.Second).Unix()
	_, err := validate(v, a.token("k1", c))
	if e := wantCause(t, err, ErrExpired); e.StatusCode() != 401 || e.Code != CodeInvalidToken {
		t.Errorf("%+v", e)
	}
}

func TestAUTHS4_TokenWithoutExpiry(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	c := a.claims()
	delete(c, "exp")
	_, err := validate(v, a.token("k1", c))
	wantCause(t, err, ErrExpired)
}

func TestAUTHS4_NotYetValid(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	c := a.claims()
	c["nbf"] = time.Now().Add(DefaultLeeway / 2).Unix()
	if _, err := validate(v, a.token("k1", c)); err != nil {
		t.Fatal(err)
	}
	c["nbf"] = time.Now().Add(DefaultLeeway + 5*time.Second).Unix()
	_, err := validate(v, a.token("k1", c))
	wantCause(t, err, ErrNotYetValid)
	c = a.claims()
	c["iat"] = time.Now().Add(time.Hour).Unix()
	_, err = validate(v, a.token("k1", c))
	wantCause(t, err, ErrNotYetValid)
}

func TestAUTHS4_CachedTokenExpires(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	now := time.Now()
	v := a.jwtValidator(t, func(c *JWTConfig) { c.Now = func() time.Time { return now } })
	c := a.claims()
	c["exp"] = now.Add(time.Minute).Unix()
	tok := a.token("k1", c)
	if _, err := validate(v, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := validate(v, tok); err != nil { // from the cache
		t.Fatal(err)
	}
	now = now.Add(time.Minute + DefaultLeeway + 2*time.Second)
	_, err := validate(v, tok)
	wantCause(t, err, ErrExpired)
}

func TestAUTHS7_WrongIssuer(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	for _, iss := range []string{"https://evil.example.com", a.issuer + "/", ""} {
		c := a.claims()
		c["iss"] = iss
		_, err := validate(v, a.token("k1", c))
		wantCause(t, err, ErrIssuer)
	}
}

func TestAUTHS7_UnknownKey(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	if _, err := validate(v, a.token("k1", a.claims())); err != nil {
		t.Fatal(err)
	}
	rogue := newECKey(t)
	tok := signJWT(t, rogue, jose.ES256, "rogue", "at+jwt", a.claims())
	_, err := validate(v, tok)
	if e := wantCause(t, err, ErrUnknownKey); e.StatusCode() != 401 {
		t.Errorf("%+v", e)
	}
}

func TestAUTHS7_ForgedSignature(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	// A known kid, another key.
	tok := signJWT(t, newECKey(t), jose.ES256, "k1", "at+jwt", a.claims())
	_, err := validate(v, tok)
	wantCause(t, err, ErrSignature)
	// A valid token with its payload swapped.
	good := a.token("k1", a.claims())
	c := a.claims()
	c["sub"] = "admin"
	other := a.token("k1", c)
	_, err = validate(v, splice(good, other))
	wantCause(t, err, ErrSignature)
}

// splice returns header and signature of a with the payload of b.
func splice(a, b string) string {
	pa, pb := splitJWS(a), splitJWS(b)
	return pa[0] + "." + pb[1] + "." + pa[2]
}

func splitJWS(s string) [3]string {
	var out [3]string
	i := 0
	for j := range len(s) {
		if s[j] == '.' {
			i++
			continue
		}
		out[i] += string(s[j])
	}
	return out
}

func TestAUTHS7_AlgNone(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	payload, _ := json.Marshal(a.claims())
	enc := base64.RawURLEncoding.EncodeToString
	for _, hdr := range []string{`{"alg":"none"}`, `{"alg":"none","kid":"k1","typ":"at+jwt"}`, `{"alg":"NONE","kid":"k1"}`} {
		tok := enc([]byte(hdr)) + "." + enc(payload) + "."
		_, err := validate(v, tok)
		wantCause(t, err, ErrAlgorithm)
	}
}

func TestAUTHS7_HMACWithPublicKeyAsSecret(t *testing.T) {
	a := newTestAS(t)
	k := a.addKey("k1", jose.RS256)
	v := a.jwtValidator(t, nil)
	if _, err := validate(v, a.token("k1", a.claims())); err != nil {
		t.Fatal(err)
	}
	// The classic key-confusion attack: HMAC keyed with the public key
	// bytes an attacker can download from the JWKS.
	der, err := x509.MarshalPKIXPublicKey(k.priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	pemKey := "-----BEGIN PUBLIC KEY-----\n" + base64.StdEncoding.EncodeToString(der) + "\n-----END PUBLIC KEY-----\n"
	for _, secret := range [][]byte{der, []byte(pemKey)} {
		for _, alg := range []jose.SignatureAlgorithm{jose.HS256, jose.HS384, jose.HS512} {
			tok := signJWT(t, secret, alg, "k1", "at+jwt", a.claims())
			_, err := validate(v, tok)
			wantCause(t, err, ErrAlgorithm)
		}
	}
}

func TestAUTHS7_SymmetricAlgorithmsNotConfigurable(t *testing.T) {
	for _, alg := range []string{"HS256", "none", "", "ES256K"} {
		_, err := NewJWTValidator(JWTConfig{Issuer: "https://as.example.com", Resource: testResource, Algorithms: []string{alg}})
		if err == nil {
			t.Errorf("algorithm %q accepted", alg)
		}
	}
	if _, err := NewDPoPVerifier(DPoPConfig{Algorithms: []string{"HS256"}}); err == nil {
		t.Error("DPoP algorithm HS256 accepted")
	}
}

func TestAUTHS7_AlgorithmAllowList(t *testing.T) {
	a := newTestAS(t)
	a.addKey("rsa", jose.RS256)
	a.addKey("ec", jose.ES256)
	v := a.jwtValidator(t, func(c *JWTConfig) { c.Algorithms = []string{"ES256"} })
	if _, err := validate(v, a.token("ec", a.claims())); err != nil {
		t.Fatal(err)
	}
	_, err := validate(v, a.token("rsa", a.claims()))
	wantCause(t, err, ErrAlgorithm)
}

func TestAUTHS7_KeyOfWrongType(t *testing.T) {
	a := newTestAS(t)
	// JWKs without alg members: only the key type says what they are for.
	rk := a.addKeyWithoutAlg("rsa", jose.RS256)
	ek := a.addKeyWithoutAlg("ec", jose.ES256)
	v := a.jwtValidator(t, nil)
	for _, tok := range []string{signJWT(t, rk.priv, jose.RS256, "rsa", "", a.claims()), signJWT(t, ek.priv, jose.ES256, "ec", "", a.claims())} {
		if _, err := validate(v, tok); err != nil {
			t.Fatal(err)
		}
	}
	// An ES256 header naming the RSA key, an RS256 header naming the EC key.
	tok := signJWT(t, ek.priv, jose.ES256, "rsa", "at+jwt", a.claims())
	_, err := validate(v, tok)
	wantCause(t, err, ErrUnknownKey)
	tok = signJWT(t, rk.priv, jose.RS256, "ec", "at+jwt", a.claims())
	_, err = validate(v, tok)
	wantCause(t, err, ErrUnknownKey)
	// An ES384 header naming a key on another curve.
	tok = signJWT(t, ek.priv, jose.ES256, "ec", "at+jwt", a.claims())
	hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"ES384","kid":"ec"}`))
	_, err = validate(v, hdr+tok[strings.IndexByte(tok, '.'):])
	wantCause(t, err, ErrUnknownKey)
}

func TestAUTHS7_KeyAlgMember(t *testing.T) {
	a := newTestAS(t)
	rk := a.addKey("rsa", jose.RS256)
	v := a.jwtValidator(t, nil)
	if _, err := validate(v, a.token("rsa", a.claims())); err != nil {
		t.Fatal(err)
	}
	// The JWK's alg says RS256: not usable for PS256.
	tok := signJWT(t, rk.priv, jose.PS256, "rsa", "at+jwt", a.claims())
	_, err := validate(v, tok)
	wantCause(t, err, ErrUnknownKey)
}

func TestAUTHS7_TokenWithoutKid(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k0", jose.ES256)
	k := a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	if _, err := validate(v, signJWT(t, k.priv, jose.ES256, "", "", a.claims())); err != nil {
		t.Fatal(err)
	}
	_, err := validate(v, signJWT(t, newECKey(t), jose.ES256, "", "", a.claims()))
	wantCause(t, err, ErrSignature)
}

func TestAUTHS7_DPoPProofAsAccessToken(t *testing.T) {
	a := newTestAS(t)
	k := a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	_, err := validate(v, signJWT(t, k.priv, jose.ES256, "k1", "dpop+jwt", a.claims()))
	wantCause(t, err, ErrTokenType)
	strict := a.jwtValidator(t, func(c *JWTConfig) { c.RequireTyp = true })
	_, err = validate(strict, signJWT(t, k.priv, jose.ES256, "k1", "JWT", a.claims()))
	wantCause(t, err, ErrTokenType)
	if _, err := validate(strict, a.token("k1", a.claims())); err != nil {
		t.Fatal(err)
	}
}

// An OpenID Connect ID token signed by the same key, with this resource
// in its aud (as providers that take both audiences from one place
// issue it), is no access token: nonce, at_hash and c_hash give it away.
// A token without sub is refused too (RFC 9068 §2.2).
func TestAUTHS7_IDTokenAndMissingSubject(t *testing.T) {
	a := newTestAS(t)
	k := a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	for _, claim := range []string{"nonce", "at_hash", "c_hash"} {
		c := a.claims()
		c[claim] = "x"
		_, err := validate(v, signJWT(t, k.priv, jose.ES256, "k1", "JWT", c))
		if e := wantCause(t, err, ErrTokenType); e.StatusCode() != 401 {
			t.Errorf("%s: status %d", claim, e.StatusCode())
		}
	}
	c := a.claims()
	delete(c, "sub")
	_, err := validate(v, a.token("k1", c))
	wantCause(t, err, ErrMalformedToken)
	c["sub"] = ""
	_, err = validate(v, a.token("k1", c))
	wantCause(t, err, ErrMalformedToken)
}

func TestAUTHS7_MalformedTokens(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	v := a.jwtValidator(t, nil)
	good := a.token("k1", a.claims())
	for _, tok := range []string{"opaque-token", "a.b", "a.b.c.d", good + "x", "e30.e30.e30"} {
		_, err := validate(v, tok)
		if err == nil {
			t.Errorf("%q accepted", tok)
		}
	}
	// Claims of the wrong type are refused, not ignored.
	c := a.claims()
	c["aud"] = 42
	_, err := validate(v, a.token("k1", c))
	wantCause(t, err, ErrMalformedToken)
	c = a.claims()
	c["exp"] = "tomorrow"
	_, err = validate(v, a.token("k1", c))
	wantCause(t, err, ErrMalformedToken)
}

func TestAUTHS7_KeyRotation(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	v := a.jwtValidator(t, func(c *JWTConfig) { c.Now = clock; c.MinRefreshInterval = time.Minute })
	old := a.token("k1", a.claims())
	if _, err := validate(v, old); err != nil {
		t.Fatal(err)
	}
	if n := a.jwksHits.Load(); n != 1 {
		t.Fatalf("%d key set fetches, want 1", n)
	}
	// The authorization server rotates: k2 in, k1 out.
	a.addKey("k2", jose.ES256)
	a.removeKey("k1")
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	fresh := a.token("k2", a.claims())
	if _, err := validate(v, fresh); err != nil {
		t.Fatalf("token signed with the new key: %v", err)
	}
	if n := a.jwksHits.Load(); n != 2 {
		t.Fatalf("%d key set fetches, want 2 (refetch on unknown kid)", n)
	}
	// The retired key's token is refused: the refetch dropped its verdict
	// from the cache, and its kid is gone.
	_, err := validate(v, old)
	wantCause(t, err, ErrUnknownKey)
	if _, err := validate(v, fresh); err != nil {
		t.Fatal(err)
	}
	if n := a.jwksHits.Load(); n != 2 {
		t.Errorf("%d key set fetches, want still 2 (rate limit)", n)
	}
}

func TestAUTHS7_RefetchRateLimited(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	v := a.jwtValidator(t, func(c *JWTConfig) { c.Now = clock; c.MinRefreshInterval = 30 * time.Second })
	if _, err := validate(v, a.token("k1", a.claims())); err != nil {
		t.Fatal(err)
	}
	rogue := newECKey(t)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			tok := signJWT(t, rogue, jose.ES256, fmt.Sprintf("kid-%d", i), "", a.claims())
			if _, err := validate(v, tok); !errors.Is(err, ErrUnknownKey) {
				t.Errorf("unknown kid: %v", err)
			}
		})
	}
	wg.Wait()
	if n := a.jwksHits.Load(); n != 1 {
		t.Errorf("%d key set fetches within the interval, want 1", n)
	}
	mu.Lock()
	now = now.Add(31 * time.Second)
	mu.Unlock()
	_, _ = validate(v, signJWT(t, rogue, jose.ES256, "kid-x", "", a.claims()))
	_, _ = validate(v, signJWT(t, rogue, jose.ES256, "kid-y", "", a.claims()))
	if n := a.jwksHits.Load(); n != 2 {
		t.Errorf("%d key set fetches after the interval, want 2", n)
	}
}

func TestAUTHS7_KeySetMaxAge(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	now := time.Now()
	v := a.jwtValidator(t, func(c *JWTConfig) {
		c.Now = func() time.Time { return now }
		c.MaxKeySetAge = time.Hour
		c.CacheSize = -1
	})
	tok := a.token("k1", a.claims())
	if _, err := validate(v, tok); err != nil {
		t.Fatal(err)
	}
	now = now.Add(30 * time.Minute)
	_, _ = validate(v, tok)
	if n := a.jwksHits.Load(); n != 1 {
		t.Fatalf("%d fetches, want 1", n)
	}
	// Stale: refetched; the authorization server being down keeps the old
	// keys in use.
	now = now.Add(31 * time.Minute)
	a.down.Store(true)
	c := a.claims()
	c["exp"] = now.Add(time.Hour).Unix()
	c["iat"] = now.Unix()
	if _, err := validate(v, a.token("k1", c)); err != nil {
		t.Fatalf("stale keys not used while the key set is unreachable: %v", err)
	}
}

func TestAUTHS7_KeySetUnavailable(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	tok := a.token("k1", a.claims())
	a.down.Store(true)
	v := a.jwtValidator(t, nil)
	_, err := validate(v, tok)
	if e := wantCause(t, err, ErrUnavailable); e.StatusCode() != 503 {
		t.Errorf("status %d", e.StatusCode())
	}
}

func TestAUTHS7_DiscoveryIssuerMismatch(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	a.setMetaIssuer("https://attacker.example.com")
	v := a.jwtValidator(t, nil)
	_, err := validate(v, a.token("k1", a.claims()))
	wantCause(t, err, ErrUnavailable)
	if n := a.jwksHits.Load(); n != 0 {
		t.Errorf("the key set of mismatched metadata was fetched %d times", n)
	}
}

func TestAUTHS7_DiscoveryOpenIDConfiguration(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	a.setNoOAuth()
	v := a.jwtValidator(t, nil)
	if err := v.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := validate(v, a.token("k1", a.claims())); err != nil {
		t.Fatal(err)
	}
}

func TestAUTHS7_ConfiguredJWKSURL(t *testing.T) {
	a := newTestAS(t)
	a.addKey("k1", jose.ES256)
	a.setMetaIssuer("https://ignored.example.com") // metadata is not read
	v := a.jwtValidator(t, func(c *JWTConfig) { c.JWKSURL = a.issuer + "/jwks" })
	if _, err := validate(v, a.token("k1", a.claims())); err != nil {
		t.Fatal(err)
	}
}

func TestAUTHS12_InsecureURLsRefused(t *testing.T) {
	for _, cfg := range []JWTConfig{
		{Issuer: "http://as.example.com", Resource: testResource},
		{Issuer: "https://as.example.com", Resource: "http://mcp.example.com/mcp"},
		{Issuer: "https://as.example.com", Resource: testResource, JWKSURL: "http://as.example.com/jwks"},
		{Issuer: "https://as.example.com", Resource: "https://mcp.example.com/mcp#x"},
		{Issuer: "https://as.example.com", Resource: "/mcp"},
		{Issuer: "https://as.example.com", Resource: testResource, Leeway: time.Hour},
	} {
		if _, err := NewJWTValidator(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	cfg := JWTConfig{Issuer: "http://as.example.com", Resource: "http://mcp.example.com/mcp", AllowInsecureHTTP: true}
	if _, err := NewJWTValidator(cfg); err != nil {
		t.Errorf("AllowInsecureHTTP: %v", err)
	}
	if _, err := NewJWTValidator(JWTConfig{Issuer: "http://localhost:9000", Resource: "http://127.0.0.1:8080/mcp"}); err != nil {
		t.Errorf("loopback: %v", err)
	}
}
