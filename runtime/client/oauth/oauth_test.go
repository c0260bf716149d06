package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/oauth2"

	"github.com/mcpgen/mcpgen/runtime/client/oauth"
)

// The whole default flow: 401, metadata, registration, authorization code
// with PKCE (the test server checks the verifier), token, retry.
func TestAUTHC6_AUTHC7_AuthorizationCodeFlow(t *testing.T) {
	e := newEnv(t)
	c, a := e.connect(e.config())
	if err := list(c); err != nil {
		t.Fatal(err)
	}
	if err := call(c); err != nil {
		t.Fatal(err)
	}
	e.lock(func() {
		if len(e.authz) != 1 || len(e.tokenReq) != 1 || len(e.regs) != 1 {
			t.Fatalf("authorizations %d, token requests %d, registrations %d; want 1 each", len(e.authz), len(e.tokenReq), len(e.regs))
		}
		q, f := e.authz[0], e.tokenReq[0].form
		if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 {
			t.Errorf("PKCE: method %q challenge %q", q.Get("code_challenge_method"), q.Get("code_challenge"))
		}
		if v := f.Get("code_verifier"); len(v) < 43 || len(v) > 128 {
			t.Errorf("code_verifier %q", v)
		}
		if q.Get("resource") != e.endpoint() || f.Get("resource") != e.endpoint() {
			t.Errorf("resource: authorize %q, token %q; want %q on both", q.Get("resource"), f.Get("resource"), e.endpoint())
		}
		if q.Get("state") == "" || q.Get("redirect_uri") != "http://127.0.0.1:9999/callback" || q.Get("client_id") != "dcr-client" {
			t.Errorf("authorization request %v", q)
		}
		// AUTHC-14: the first request went without token, every later one with it.
		if len(e.mcpAuth) != 3 || e.mcpAuth[0] != "" || !strings.HasPrefix(e.mcpAuth[1], "Bearer access-") || e.mcpAuth[2] != e.mcpAuth[1] {
			t.Errorf("MCP Authorization headers %q", e.mcpAuth)
		}
	})
	if cr := a.Credential(); cr == "" || strings.Contains(e.mcpAuth[1], strings.TrimPrefix(cr, "oauth:")) {
		t.Errorf("Credential %q: want a digest, not the token", cr)
	}
}

func TestAUTHC1_MetadataFromChallenge(t *testing.T) {
	e := newEnv(t)
	e.prmPath = "/custom/metadata.json"
	c, _ := e.connect(e.config())
	if err := list(c); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"RS /.well-known/oauth-protected-resource/mcp", "RS /.well-known/oauth-protected-resource"} {
		if e.requested(p) {
			t.Errorf("%s requested although the challenge named the metadata", p)
		}
	}
	if !e.requested("RS /custom/metadata.json") {
		t.Error("the challenge's resource_metadata was not used")
	}
}

func TestAUTHC1_WellKnownFallback(t *testing.T) {
	for _, tc := range []struct{ prm, want string }{
		{"/.well-known/oauth-protected-resource/mcp", ""},
		{"/.well-known/oauth-protected-resource", "RS /.well-known/oauth-protected-resource/mcp"},
	} {
		t.Run(tc.prm, func(t *testing.T) {
			e := newEnv(t)
			e.inHeader, e.prmPath = false, tc.prm
			c, _ := e.connect(e.config())
			if err := list(c); err != nil {
				t.Fatal(err)
			}
			var rsPaths []string
			e.lock(func() {
				for _, p := range e.paths {
					if strings.HasPrefix(p, "RS /.well-known") {
						rsPaths = append(rsPaths, p)
					}
				}
			})
			want := []string{"RS " + tc.prm}
			if tc.want != "" {
				want = []string{tc.want, "RS " + tc.prm}
			}
			if !slices.Equal(rsPaths, want) {
				t.Errorf("metadata requests %q, want %q", rsPaths, want)
			}
		})
	}
}

func TestAUTHC3_ServerMetadataOrder(t *testing.T) {
	for _, tc := range []struct {
		name, issuerPath, metaPath string
		want                       []string
	}{
		{"no path, OpenID", "", "/.well-known/openid-configuration",
			[]string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}},
		{"path, OAuth insertion", "/tenant1", "/.well-known/oauth-authorization-server/tenant1",
			[]string{"/.well-known/oauth-authorization-server/tenant1"}},
		{"path, OpenID appending", "/tenant1", "/tenant1/.well-known/openid-configuration",
			[]string{"/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.metaPath = tc.metaPath
			e.issuer = e.as.URL + tc.issuerPath
			e.prm = map[string]any{"authorization_servers": []string{e.issuer}}
			c, _ := e.connect(e.config())
			if err := list(c); err != nil {
				t.Fatal(err)
			}
			var got []string
			e.lock(func() {
				for _, p := range e.paths {
					if strings.Contains(p, "/.well-known/") && strings.HasPrefix(p, "AS ") {
						got = append(got, strings.TrimPrefix(p, "AS "))
					}
				}
			})
			if !slices.Equal(got, tc.want) {
				t.Errorf("metadata requests %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAUTHC4_IssuerMismatch(t *testing.T) {
	e := newEnv(t)
	e.issuer = "https://attacker.example.com"
	c, _ := e.connect(e.config())
	err := list(c)
	if !errors.Is(err, oauth.ErrIssuerMismatch) {
		t.Fatalf("err = %v, want ErrIssuerMismatch", err)
	}
	e.lock(func() {
		for _, p := range e.paths {
			if p == "AS /register" || p == "AS /authorize" || p == "AS /token" || p == "AS /.well-known/openid-configuration" {
				t.Errorf("%s requested after the metadata was discarded", p)
			}
		}
	})
}

func TestAUTHC5_ResourceMismatch(t *testing.T) {
	e := newEnv(t)
	e.prm = map[string]any{"resource": "https://evil.example.com/mcp"}
	c, _ := e.connect(e.config())
	if err := list(c); !errors.Is(err, oauth.ErrResourceMismatch) {
		t.Fatalf("err = %v, want ErrResourceMismatch", err)
	}
	e.lock(func() {
		for _, p := range e.paths {
			if strings.HasPrefix(p, "AS ") {
				t.Errorf("%s: the authorization server was contacted", p)
			}
		}
	})
}

func TestAUTHC6_PKCERefused(t *testing.T) {
	for name, methods := range map[string]any{"absent": nil, "plain only": []string{"plain"}} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.meta = map[string]any{"code_challenge_methods_supported": methods}
			c, _ := e.connect(e.config())
			if err := list(c); !errors.Is(err, oauth.ErrPKCEUnsupported) {
				t.Fatalf("err = %v, want ErrPKCEUnsupported", err)
			}
			if e.requested("AS /authorize") || e.requested("AS /register") {
				t.Error("the flow went on")
			}
		})
	}
}

func TestAUTHC8_ScopeSelection(t *testing.T) {
	for _, tc := range []struct {
		name, challenge string
		prmScopes       []string
		want            string
	}{
		{"challenge wins", "mcp:basic", []string{"mcp:profile"}, "mcp:basic"},
		{"metadata scopes", "", []string{"mcp:basic", "mcp:read"}, "mcp:basic mcp:read"},
		{"none", "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.scope = tc.challenge
			e.meta = map[string]any{"scopes_supported": []string{"as:everything"}}
			if tc.prmScopes != nil {
				e.prm = map[string]any{"scopes_supported": tc.prmScopes}
			}
			c, _ := e.connect(e.config())
			if err := list(c); err != nil {
				t.Fatal(err)
			}
			e.lock(func() {
				if got, has := e.authz[0].Get("scope"), e.authz[0].Has("scope"); got != tc.want || tc.want == "" && has {
					t.Errorf("scope %q (present %v), want %q", got, has, tc.want)
				}
			})
		})
	}
}

func TestAUTHC9_ClientIdentity(t *testing.T) {
	t.Run("pre-registered", func(t *testing.T) {
		e := newEnv(t)
		e.meta = map[string]any{"client_id_metadata_document_supported": true, "token_endpoint_auth_methods_supported": []string{"client_secret_basic"}}
		cfg := e.config()
		cfg.ClientMetadataURL = "https://app.example.com/client.json"
		cfg.PreRegistered = map[string]oauth.Registration{e.as.URL: {ClientID: "pre", ClientSecret: "s3cret"}}
		c, _ := e.connect(cfg)
		if err := list(c); err != nil {
			t.Fatal(err)
		}
		e.lock(func() {
			if len(e.regs) != 0 || e.authz[0].Get("client_id") != "pre" {
				t.Errorf("registrations %d, client_id %q", len(e.regs), e.authz[0].Get("client_id"))
			}
			if id, secret, ok := (&http.Request{Header: e.tokenReq[0].header}).BasicAuth(); !ok || id != "pre" || secret != "s3cret" {
				t.Errorf("Basic %q %q %v", id, secret, ok)
			}
		})
	})
	t.Run("metadata document", func(t *testing.T) {
		e := newEnv(t)
		e.meta = map[string]any{"client_id_metadata_document_supported": true}
		cfg := e.config()
		cfg.ClientMetadataURL = "https://app.example.com/client.json"
		c, _ := e.connect(cfg)
		if err := list(c); err != nil {
			t.Fatal(err)
		}
		e.lock(func() {
			if len(e.regs) != 0 || e.authz[0].Get("client_id") != cfg.ClientMetadataURL || e.tokenReq[0].form.Get("client_id") != cfg.ClientMetadataURL {
				t.Errorf("registrations %d, client_id %q", len(e.regs), e.authz[0].Get("client_id"))
			}
		})
	})
	t.Run("metadata document unsupported: registration", func(t *testing.T) {
		e := newEnv(t)
		cfg := e.config()
		cfg.ClientMetadataURL = "https://app.example.com/client.json"
		c, _ := e.connect(cfg)
		if err := list(c); err != nil {
			t.Fatal(err)
		}
		e.lock(func() {
			if len(e.regs) != 1 || e.authz[0].Get("client_id") != "dcr-client" {
				t.Errorf("registrations %d, client_id %q", len(e.regs), e.authz[0].Get("client_id"))
			}
		})
	})
	t.Run("nothing", func(t *testing.T) {
		e := newEnv(t)
		e.meta = map[string]any{"registration_endpoint": nil}
		c, _ := e.connect(e.config())
		if err := list(c); !errors.Is(err, oauth.ErrNoClientRegistration) {
			t.Fatalf("err = %v, want ErrNoClientRegistration", err)
		}
	})
	t.Run("bad metadata URL", func(t *testing.T) {
		for _, u := range []string{"http://app.example.com/client.json", "https://app.example.com", "https://app.example.com/"} {
			if _, err := oauth.New(&oauth.Config{ClientMetadataURL: u}); err == nil {
				t.Errorf("ClientMetadataURL %q accepted", u)
			}
		}
	})
}

func TestAUTHC10_Registration(t *testing.T) {
	e := newEnv(t)
	cfg := e.config()
	cfg.ClientName = "my client"
	c, _ := e.connect(cfg)
	if err := list(c); err != nil {
		t.Fatal(err)
	}
	e.lock(func() {
		r := e.regs[0]
		if r["client_name"] != "my client" || r["application_type"] != "native" || r["token_endpoint_auth_method"] != "none" {
			t.Errorf("registration %v", r)
		}
		gt, _ := r["grant_types"].([]any)
		if !slices.Contains(gt, any("authorization_code")) || !slices.Contains(gt, any("refresh_token")) {
			t.Errorf("grant_types %v", gt)
		}
		if ru, _ := r["redirect_uris"].([]any); len(ru) != 1 || ru[0] != "http://127.0.0.1:9999/callback" {
			t.Errorf("redirect_uris %v", ru)
		}
	})

	t.Run("retried with the other application type", func(t *testing.T) {
		e := newEnv(t)
		e.regError = "invalid_redirect_uri"
		c, _ := e.connect(e.config())
		if err := list(c); err != nil {
			t.Fatal(err)
		}
		e.lock(func() {
			if len(e.regs) != 2 || e.regs[0]["application_type"] != "native" || e.regs[1]["application_type"] != "web" {
				t.Errorf("registrations %v", e.regs)
			}
		})
	})
	t.Run("error surfaced", func(t *testing.T) {
		e := newEnv(t)
		e.regError = "invalid_client_metadata"
		cfg := e.config()
		cfg.ApplicationType = "native" // fixed: no retry
		c, _ := e.connect(cfg)
		var re *oauth.RegistrationError
		if err := list(c); !errors.As(err, &re) || re.Code != "invalid_client_metadata" || re.Description != "not like this" {
			t.Fatalf("err = %v, want a *RegistrationError", err)
		}
	})
}

func TestAUTHC11_TokenEndpointAuth(t *testing.T) {
	for _, method := range []string{"client_secret_basic", "client_secret_post", "none"} {
		t.Run(method, func(t *testing.T) {
			e := newEnv(t)
			e.meta = map[string]any{"token_endpoint_auth_methods_supported": []string{method}}
			e.regAuth = method
			if method != "none" {
				e.secret = "dcr-secret"
			}
			c, _ := e.connect(e.config())
			if err := list(c); err != nil {
				t.Fatal(err)
			}
			e.lock(func() {
				if got := e.regs[0]["token_endpoint_auth_method"]; got != method {
					t.Errorf("registered with %v", got)
				}
				tr := e.tokenReq[0]
				id, secret, basic := (&http.Request{Header: tr.header}).BasicAuth()
				switch method {
				case "client_secret_basic":
					if !basic || id != "dcr-client" || secret != "dcr-secret" || tr.form.Has("client_secret") {
						t.Errorf("basic %v %q %q, form %v", basic, id, secret, tr.form)
					}
				case "client_secret_post":
					if basic || tr.form.Get("client_id") != "dcr-client" || tr.form.Get("client_secret") != "dcr-secret" {
						t.Errorf("basic %v, form %v", basic, tr.form)
					}
				default:
					if basic || tr.form.Get("client_id") != "dcr-client" || tr.form.Has("client_secret") {
						t.Errorf("basic %v, form %v", basic, tr.form)
					}
				}
			})
		})
	}
}

func TestAUTHC12_OfflineAccess(t *testing.T) {
	for _, tc := range []struct {
		name    string
		listed  bool
		wanted  bool
		present bool
	}{
		{"listed and wanted", true, true, true},
		{"not listed", false, true, false},
		{"not wanted", true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.prm = map[string]any{"scopes_supported": []string{"mcp:basic"}}
			as := []string{"mcp:basic"}
			if tc.listed {
				as = append(as, "offline_access")
			}
			e.meta = map[string]any{"scopes_supported": as}
			cfg := e.config()
			cfg.OfflineAccess = tc.wanted
			c, _ := e.connect(cfg)
			if err := list(c); err != nil {
				t.Fatal(err)
			}
			e.lock(func() {
				scopes := strings.Fields(e.authz[0].Get("scope"))
				if slices.Contains(scopes, "offline_access") != tc.present || !slices.Contains(scopes, "mcp:basic") {
					t.Errorf("scope %q", scopes)
				}
			})
		})
	}
}

func TestAUTHC13_IssValidation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		advertised bool
		iss        string // "" correct, "omit", or a value
		errCode    string
		wantErr    error
		wantAuthz  bool // an *AuthorizationError
	}{
		{"advertised, correct", true, "", "", nil, false},
		{"not advertised, absent", false, "omit", "", nil, false},
		{"advertised, absent", true, "omit", "", oauth.ErrIssuerMismatch, false},
		{"advertised, wrong", true, "https://evil.example.com", "", oauth.ErrIssuerMismatch, false},
		{"not advertised, wrong", false, "https://evil.example.com", "", oauth.ErrIssuerMismatch, false},
		{"trailing slash", true, "SLASH", "", oauth.ErrIssuerMismatch, false},
		{"error, wrong iss", true, "https://evil.example.com", "access_denied", oauth.ErrIssuerMismatch, false},
		{"error, correct iss", true, "", "access_denied", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.meta = map[string]any{"authorization_response_iss_parameter_supported": tc.advertised}
			e.issMode, e.errMode = tc.iss, tc.errCode
			if tc.iss == "SLASH" {
				e.issMode = e.as.URL + "/"
			}
			c, _ := e.connect(e.config())
			err := list(c)
			var ae *oauth.AuthorizationError
			switch {
			case tc.wantAuthz:
				if !errors.As(err, &ae) || ae.Code != "access_denied" {
					t.Fatalf("err = %v, want an *AuthorizationError", err)
				}
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) || errors.As(err, &ae) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			}
			if wantToken := tc.wantErr == nil && !tc.wantAuthz; e.requested("AS /token") != wantToken {
				t.Errorf("token request made: %v, want %v", !wantToken, wantToken)
			}
		})
	}
}

func TestAUTHC20_StateMismatch(t *testing.T) {
	e := newEnv(t)
	cfg := e.config()
	headless := cfg.HandleAuthorization
	cfg.HandleAuthorization = func(ctx context.Context, authURL string) (url.Values, error) {
		p, err := headless(ctx, authURL)
		p.Set("state", "forged")
		return p, err
	}
	c, _ := e.connect(cfg)
	if err := list(c); !errors.Is(err, oauth.ErrStateMismatch) {
		t.Fatalf("err = %v, want ErrStateMismatch", err)
	}
	if e.requested("AS /token") {
		t.Error("token request after a forged state")
	}
}

func TestAUTHC15_StepUpUnion(t *testing.T) {
	e := newEnv(t)
	e.scope = "mcp:basic"
	e.prm = map[string]any{"scopes_supported": []string{"mcp:profile"}}
	e.needs = map[string][]string{"tools/list": {"mcp:basic"}, "tools/call": {"mcp:write"}}
	c, _ := e.connect(e.config())
	if err := list(c); err != nil {
		t.Fatal(err)
	}
	if err := call(c); err != nil {
		t.Fatal(err)
	}
	if err := list(c); err != nil { // still allowed: the union kept mcp:basic
		t.Fatal(err)
	}
	e.lock(func() {
		if len(e.authz) != 2 {
			t.Fatalf("%d authorizations, want 2", len(e.authz))
		}
		if got := e.authz[0].Get("scope"); got != "mcp:basic" {
			t.Errorf("first scope %q", got)
		}
		if got := e.authz[1].Get("scope"); got != "mcp:basic mcp:write" {
			t.Errorf("step-up scope %q, want the union", got)
		}
	})
}

func TestAUTHC16_RetryLimit(t *testing.T) {
	for _, max := range []int{0, 1} {
		t.Run("MaxStepUps="+string(rune('0'+max)), func(t *testing.T) {
			e := newEnv(t)
			e.needs = map[string][]string{"tools/call": {"mcp:admin"}}
			e.deny = []string{"mcp:admin"}
			cfg := e.config()
			cfg.MaxStepUps = max
			c, _ := e.connect(cfg)
			if err := list(c); err != nil {
				t.Fatal(err)
			}
			if err := call(c); !errors.Is(err, oauth.ErrInsufficientScope) {
				t.Fatalf("err = %v, want ErrInsufficientScope", err)
			}
			want := 1 + max
			if max == 0 {
				want = 3
			}
			e.lock(func() {
				if len(e.authz) != want {
					t.Errorf("%d authorizations, want %d", len(e.authz), want)
				}
			})
		})
	}
	t.Run("budget renewed by success", func(t *testing.T) {
		e := newEnv(t)
		e.needs = map[string][]string{"tools/call": {"mcp:write"}}
		cfg := e.config()
		cfg.MaxStepUps = 1
		c, _ := e.connect(cfg)
		for i := range 2 {
			if err := call(c); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			e.lock(func() { // the server revokes the scope
				for tok := range e.tokens {
					e.tokens[tok] = nil
				}
			})
		}
		e.lock(func() {
			if len(e.authz) != 3 {
				t.Errorf("%d authorizations, want 3 (initial, one step-up per call)", len(e.authz))
			}
		})
	})
}

func TestAUTHC17_Migration(t *testing.T) {
	e := newEnv(t)
	e.clientID = "as1-client"
	e2 := newEnv(t) // its authorization server is the new one
	e2.clientID = "as2-client"
	c, _ := e.connect(e.config())
	if err := list(c); err != nil {
		t.Fatal(err)
	}
	// The server moves to the second authorization server and stops
	// accepting the first one's tokens.
	e.lock(func() {
		e.prm = map[string]any{"authorization_servers": []string{e2.as.URL}}
		clear(e.tokens)
		e.trust = e2
	})
	if err := call(c); err != nil {
		t.Fatal(err)
	}
	e2.lock(func() {
		if len(e2.regs) != 1 || len(e2.authz) != 1 || len(e2.tokenReq) != 1 {
			t.Fatalf("at the new server: %d registrations, %d authorizations, %d token requests; want 1 each", len(e2.regs), len(e2.authz), len(e2.tokenReq))
		}
		if id := e2.authz[0].Get("client_id"); id != "as2-client" {
			t.Errorf("client_id %q at the new authorization endpoint", id)
		}
		if id := e2.tokenReq[0].form.Get("client_id"); id != "as2-client" {
			t.Errorf("client_id %q at the new token endpoint", id)
		}
	})

	t.Run("pre-registered", func(t *testing.T) {
		e := newEnv(t)
		e2 := newEnv(t)
		cfg := e.config()
		cfg.PreRegistered = map[string]oauth.Registration{e.as.URL: {ClientID: "pre"}}
		c, _ := e.connect(cfg)
		if err := list(c); err != nil {
			t.Fatal(err)
		}
		e.lock(func() {
			e.prm = map[string]any{"authorization_servers": []string{e2.as.URL}}
			clear(e.tokens)
		})
		if err := list(c); !errors.Is(err, oauth.ErrAuthorizationServerChanged) {
			t.Fatalf("err = %v, want ErrAuthorizationServerChanged", err)
		}
		if e2.requested("AS /authorize") || e2.requested("AS /register") {
			t.Error("the pre-registered client went on at the new server")
		}
	})
}

func TestAUTHC18_InsecureURLs(t *testing.T) {
	e := newEnv(t)
	e.prm = map[string]any{"authorization_servers": []string{"http://as.example.com"}}
	c, _ := e.connect(e.config())
	if err := list(c); !errors.Is(err, oauth.ErrInsecureURL) {
		t.Fatalf("err = %v, want ErrInsecureURL", err)
	}
	if _, err := oauth.New(&oauth.Config{RedirectURL: "http://app.example.com/cb"}); !errors.Is(err, oauth.ErrInsecureURL) {
		t.Errorf("plain-http redirect URI off loopback: %v", err)
	}
	for _, ok := range []string{"http://localhost:1/cb", "http://[::1]:1/cb", "https://app.example.com/cb", "com.example.app:/cb"} {
		if _, err := oauth.New(&oauth.Config{RedirectURL: ok}); err != nil {
			t.Errorf("RedirectURL %q: %v", ok, err)
		}
	}
}

func TestAUTHC19_Refresh(t *testing.T) {
	t.Run("expired", func(t *testing.T) {
		e := newEnv(t)
		e.refresh, e.expires = true, 1 // within oauth2's expiry margin: expired at once
		e.meta = map[string]any{"token_endpoint_auth_methods_supported": []string{"client_secret_post"}}
		e.secret, e.regAuth = "dcr-secret", "client_secret_post"
		c, _ := e.connect(e.config())
		for range 3 {
			if err := list(c); err != nil {
				t.Fatal(err)
			}
		}
		// Every request finds the token expired, the retry after the code
		// grant too.
		if got := e.grantTypes(); !slices.Equal(got, []string{"authorization_code", "refresh_token", "refresh_token", "refresh_token"}) {
			t.Fatalf("grants %q", got)
		}
		e.lock(func() {
			if len(e.authz) != 1 {
				t.Errorf("%d authorizations, want 1", len(e.authz))
			}
			r1, r2 := e.tokenReq[1].form, e.tokenReq[2].form
			if r1.Get("resource") != e.endpoint() || r1.Get("client_secret") != "dcr-secret" {
				t.Errorf("refresh %v: want resource and the same client authentication", r1)
			}
			if r1.Get("refresh_token") == r2.Get("refresh_token") {
				t.Error("the rotated refresh token was not used")
			}
		})
	})
	t.Run("refused token", func(t *testing.T) {
		e := newEnv(t)
		e.refresh = true
		c, _ := e.connect(e.config())
		if err := list(c); err != nil {
			t.Fatal(err)
		}
		e.lock(func() { clear(e.tokens) })
		if err := list(c); err != nil {
			t.Fatal(err)
		}
		if got := e.grantTypes(); !slices.Equal(got, []string{"authorization_code", "refresh_token"}) {
			t.Fatalf("grants %q", got)
		}
	})
}

func TestAUTHC21_TokenStore(t *testing.T) {
	e := newEnv(t)
	store := new(oauth.MemoryStore)
	key := oauth.TokenKey{Issuer: e.as.URL, Resource: e.endpoint()}
	e.tokens["stored"] = nil
	if err := store.Save(context.Background(), key, &oauth2.Token{AccessToken: "stored"}); err != nil {
		t.Fatal(err)
	}
	cfg := e.config()
	cfg.Store = store
	c, _ := e.connect(cfg)
	if err := list(c); err != nil {
		t.Fatal(err)
	}
	if e.requested("AS /authorize") {
		t.Error("authorized although the store held a token")
	}
	e.lock(func() {
		if e.mcpAuth[len(e.mcpAuth)-1] != "Bearer stored" {
			t.Errorf("Authorization %q", e.mcpAuth[len(e.mcpAuth)-1])
		}
	})
	// A refused token leaves the store.
	e.lock(func() { clear(e.tokens) })
	if err := list(c); err != nil {
		t.Fatal(err)
	}
	if tok, _ := store.Load(context.Background(), key); tok == nil || tok.AccessToken == "stored" {
		t.Errorf("stored token %v, want the new one", tok)
	}
	if err := store.Save(context.Background(), key, nil); err != nil {
		t.Fatal(err)
	}
	if tok, _ := store.Load(context.Background(), key); tok != nil {
		t.Error("Save(nil) kept the token")
	}
}

// Concurrent requests refused together share one authorization.
func TestAUTHC16_ConcurrentChallenges(t *testing.T) {
	e := newEnv(t)
	c, _ := e.connect(e.config())
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = list(c) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	e.lock(func() {
		prm := 0
		for _, p := range e.paths {
			if p == "RS "+e.prmPath {
				prm++
			}
		}
		// The requests that waited for the first one's flow use its token
		// without discovering anew.
		if len(e.authz) != 1 || prm != 1 {
			t.Errorf("%d authorizations and %d metadata requests, want 1 each", len(e.authz), prm)
		}
	})
}

func TestForbiddenWithoutScopeChallenge(t *testing.T) {
	e := newEnv(t)
	e.rsHook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Header.Get("Authorization") == "" {
			return false
		}
		w.Header().Set("WWW-Authenticate", `Bearer error="access_denied", error_description="no"`)
		w.WriteHeader(http.StatusForbidden)
		return true
	}
	c, _ := e.connect(e.config())
	var fe *oauth.ForbiddenError
	if err := list(c); !errors.As(err, &fe) || fe.Code != "access_denied" {
		t.Fatalf("err = %v, want a *ForbiddenError", err)
	}
	e.lock(func() {
		if len(e.authz) != 1 {
			t.Errorf("%d authorizations, want 1 (a plain 403 is no step-up)", len(e.authz))
		}
	})
}

func TestOneEndpointPerAuthorizer(t *testing.T) {
	e := newEnv(t)
	a, err := oauth.New(e.config())
	if err != nil {
		t.Fatal(err)
	}
	r1, _ := http.NewRequest("POST", "http://127.0.0.1:1/a", nil)
	r2, _ := http.NewRequest("POST", "http://127.0.0.1:1/b", nil)
	if err := a.Authorize(context.Background(), r1); err != nil {
		t.Fatal(err)
	}
	if err := a.Authorize(context.Background(), r2); err == nil {
		t.Error("an Authorizer served a second endpoint")
	}
}
