package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"

	"github.com/mcpgen/mcpgen/runtime/client/oauth"
)

// ccEnv is an environment whose authorization server offers only the
// client_credentials grant, answering with check's verdict.
func ccEnv(t *testing.T, methods []string, check func(form url.Values, r *http.Request) string) *env {
	e := newEnv(t)
	e.meta = map[string]any{
		"grant_types_supported":                 []string{"client_credentials"},
		"token_endpoint_auth_methods_supported": methods,
		"registration_endpoint":                 nil,
	}
	e.grant = func(form url.Values, r *http.Request) (int, map[string]any) {
		if form.Get("grant_type") != "client_credentials" {
			return 400, map[string]any{"error": "unsupported_grant_type"}
		}
		if msg := check(form, r); msg != "" {
			return 401, map[string]any{"error": "invalid_client", "error_description": msg}
		}
		return 200, map[string]any{"access_token": "cc-token", "token_type": "Bearer"}
	}
	return e
}

func TestClientCredentialsSecret(t *testing.T) {
	for _, method := range []string{"client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			e := ccEnv(t, []string{method}, func(form url.Values, r *http.Request) string {
				id, secret, basic := r.BasicAuth()
				if method == "client_secret_post" {
					id, secret = form.Get("client_id"), form.Get("client_secret")
					if basic {
						return "Basic header with client_secret_post"
					}
				} else if form.Has("client_secret") {
					return "secret in the body with client_secret_basic"
				}
				if id != "svc" || secret != "s3cret" {
					return "bad credentials " + id
				}
				return ""
			})
			e.scope = "mcp:read"
			c, _ := e.connect(&oauth.Config{ClientCredentials: &oauth.ClientCredentials{ClientID: "svc", ClientSecret: "s3cret"}})
			if err := list(c); err != nil {
				t.Fatal(err)
			}
			e.lock(func() {
				f := e.tokenReq[0].form
				if f.Get("resource") != e.endpoint() || f.Get("scope") != "mcp:read" {
					t.Errorf("token request %v", f)
				}
				if len(e.authz) != 0 {
					t.Error("the authorization endpoint was used")
				}
			})
		})
	}
}

func TestClientCredentialsPrivateKeyJWT(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var e *env
	e = ccEnv(t, []string{"private_key_jwt"}, func(form url.Values, r *http.Request) string {
		if form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
			return "client_assertion_type " + form.Get("client_assertion_type")
		}
		tok, err := jwt.ParseSigned(form.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			return err.Error()
		}
		var c jwt.Claims
		if err := tok.Claims(&key.PublicKey, &c); err != nil {
			return err.Error()
		}
		if err := c.Validate(jwt.Expected{Issuer: "svc", Subject: "svc", AnyAudience: jwt.Audience{e.as.URL}, Time: time.Now()}); err != nil {
			return err.Error()
		}
		if c.ID == "" || c.Expiry == nil || c.IssuedAt == nil {
			return "jti, exp or iat missing"
		}
		if _, _, basic := r.BasicAuth(); basic || form.Has("client_secret") {
			return "a secret was sent too"
		}
		return ""
	})
	c, _ := e.connect(&oauth.Config{ClientCredentials: &oauth.ClientCredentials{ClientID: "svc", PrivateKey: key}})
	if err := list(c); err != nil {
		t.Fatal(err)
	}
	if err := call(c); err != nil {
		t.Fatal(err)
	}
}

func TestClientCredentialsUnsupportedGrant(t *testing.T) {
	e := newEnv(t) // lists no grant types: the default authorization_code only... unless absent
	e.meta = map[string]any{"grant_types_supported": []string{"authorization_code"}}
	c, _ := e.connect(&oauth.Config{ClientCredentials: &oauth.ClientCredentials{ClientID: "svc", ClientSecret: "x"}})
	if err := list(c); !errors.Is(err, oauth.ErrUnsupportedGrant) {
		t.Fatalf("err = %v, want ErrUnsupportedGrant", err)
	}
	if e.requested("AS /token") {
		t.Error("token request for an unsupported grant")
	}
}

func TestEnterpriseManaged(t *testing.T) {
	var idpForms []url.Values
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		idpForms = append(idpForms, r.PostForm)
		writeJSON(w, 200, map[string]any{"access_token": "id-jag", "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"})
	}))
	defer idp.Close()
	e := newEnv(t)
	e.meta = map[string]any{
		"grant_types_supported":                 []string{"urn:ietf:params:oauth:grant-type:jwt-bearer"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic"},
	}
	e.grant = func(form url.Values, r *http.Request) (int, map[string]any) {
		id, secret, _ := r.BasicAuth()
		if form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || form.Get("assertion") != "id-jag" || id != "mcp-client" || secret != "mcp-secret" {
			return 400, map[string]any{"error": "invalid_grant"}
		}
		return 200, map[string]any{"access_token": "ema-token", "token_type": "Bearer"}
	}
	c, _ := e.connect(&oauth.Config{EnterpriseManaged: &oauth.EnterpriseManaged{
		IDPTokenEndpoint: idp.URL + "/token",
		IDPClientID:      "idp-client",
		IDToken:          func(context.Context) (string, error) { return "user-id-token", nil },
		ClientID:         "mcp-client",
		ClientSecret:     "mcp-secret",
	}})
	if err := list(c); err != nil {
		t.Fatal(err)
	}
	if len(idpForms) != 1 {
		t.Fatalf("%d token exchanges", len(idpForms))
	}
	f := idpForms[0]
	want := map[string]string{
		"grant_type":           "urn:ietf:params:oauth:grant-type:token-exchange",
		"requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
		"subject_token_type":   "urn:ietf:params:oauth:token-type:id_token",
		"subject_token":        "user-id-token",
		"audience":             e.as.URL,
		"resource":             e.endpoint(),
		"client_id":            "idp-client",
	}
	for k, v := range want {
		if f.Get(k) != v {
			t.Errorf("token exchange %s = %q, want %q", k, f.Get(k), v)
		}
	}
	e.lock(func() {
		if last := e.mcpAuth[len(e.mcpAuth)-1]; last != "Bearer ema-token" {
			t.Errorf("Authorization %q", last)
		}
	})
}

func TestJWTBearerNoRetry(t *testing.T) {
	e := newEnv(t)
	e.meta = map[string]any{"grant_types_supported": []string{"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "registration_endpoint": nil}
	accept := false
	e.grant = func(form url.Values, r *http.Request) (int, map[string]any) {
		if form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || form.Get("client_id") != "workload" || !accept {
			return 400, map[string]any{"error": "invalid_grant", "error_description": "assertion expired"}
		}
		return 200, map[string]any{"access_token": "wif-" + form.Get("assertion"), "token_type": "Bearer"}
	}
	assertion := "jwt-1"
	c, _ := e.connect(&oauth.Config{JWTBearer: &oauth.JWTBearer{ClientID: "workload",
		Assertion: func(context.Context) (string, error) { return assertion, nil }}})
	var re *oauth2.RetrieveError
	if err := list(c); !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("err = %v, want the token endpoint's invalid_grant", err)
	}
	if err := list(c); !errors.As(err, &re) {
		t.Fatalf("second call: %v", err)
	}
	if got := e.grantTypes(); len(got) != 1 {
		t.Fatalf("token requests %q: the refused assertion was sent again (or another grant tried)", got)
	}
	e.lock(func() { accept, assertion = true, "jwt-2" })
	if err := list(c); err != nil {
		t.Fatalf("with a new assertion: %v", err)
	}
}

func dpopEnv(t *testing.T) *env {
	e := newEnv(t)
	e.tokenScheme, e.tokenType = "DPoP", "DPoP"
	e.meta = map[string]any{"dpop_signing_alg_values_supported": []string{"ES256"}}
	return e
}

func TestDPoP(t *testing.T) {
	e := dpopEnv(t)
	c, _ := e.connect(func() *oauth.Config { cfg := e.config(); cfg.DPoP = &oauth.DPoP{}; return cfg }())
	for range 2 {
		if err := list(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := call(c); err != nil {
		t.Fatal(err)
	}
	e.lock(func() {
		if len(e.proofs) != 4 { // token request, three MCP requests
			t.Fatalf("%d proofs, want 4", len(e.proofs))
		}
		for i, p := range e.proofs {
			if p.err != "" {
				t.Errorf("proof %d: %s", i, p.err)
			}
		}
		if e.proofs[0].HTU != e.as.URL+"/token" || e.proofs[1].HTU != e.endpoint() {
			t.Errorf("htu %q, %q", e.proofs[0].HTU, e.proofs[1].HTU)
		}
		for _, a := range e.mcpAuth[1:] {
			if !strings.HasPrefix(a, "DPoP access-") {
				t.Errorf("Authorization %q, want the DPoP scheme", a)
			}
		}
	})
}

func TestDPoPNonces(t *testing.T) {
	e := dpopEnv(t)
	e.asNonce, e.rsNonce, e.nextNonce = "as-nonce", "rs-nonce", ""
	c, _ := e.connect(func() *oauth.Config { cfg := e.config(); cfg.DPoP = &oauth.DPoP{}; return cfg }())
	if err := list(c); err != nil {
		t.Fatal(err)
	}
	e.lock(func() { e.nextNonce = "rs-nonce-2" }) // handed out on the next success
	for range 2 {
		if err := list(c); err != nil {
			t.Fatal(err)
		}
	}
	e.lock(func() {
		var nonces []string
		for _, p := range e.proofs {
			if p.err != "" {
				t.Errorf("proof: %s", p.err)
			}
			nonces = append(nonces, p.Nonce)
		}
		// token: none, then the server's; MCP: none, then the server's,
		// then the one it handed out on a success, without a challenge.
		want := []string{"", "as-nonce", "", "rs-nonce", "rs-nonce", "rs-nonce-2"}
		if !slices.Equal(nonces, want) {
			t.Errorf("proof nonces %q, want %q", nonces, want)
		}
		if e.nonceChallenges != 2 {
			t.Errorf("%d use_dpop_nonce answers, want 2", e.nonceChallenges)
		}
	})
}

// An authorization server without DPoP support gets no proofs: the token
// is a Bearer token.
func TestDPoPUnsupportedByServer(t *testing.T) {
	e := newEnv(t)
	cfg := e.config()
	cfg.DPoP = &oauth.DPoP{}
	c, _ := e.connect(cfg)
	if err := list(c); err != nil {
		t.Fatal(err)
	}
	e.lock(func() {
		if h := e.tokenReq[0].header.Get("DPoP"); h != "" {
			t.Error("a DPoP proof went to a server that does not support DPoP")
		}
		if !strings.HasPrefix(e.mcpAuth[1], "Bearer ") {
			t.Errorf("Authorization %q", e.mcpAuth[1])
		}
	})
}

func TestOneExtensionGrant(t *testing.T) {
	_, err := oauth.New(&oauth.Config{
		ClientCredentials: &oauth.ClientCredentials{ClientID: "a"},
		JWTBearer:         &oauth.JWTBearer{ClientID: "b"},
	})
	if err == nil {
		t.Error("two extension grants accepted")
	}
}
