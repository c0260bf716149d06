package bench

// tools/call over Streamable HTTP with authorization: the same mcpgen
// client and server as BenchmarkE2E's impl=mcpgen, once without
// authorization and once with HTTPOptions.Auth, a resource server whose
// JWT validator checks the client's access token (signature, iss, aud,
// exp) on every request and the tool's required scope. The client sends
// one token throughout, as an OAuth client does until it expires, so the
// steady state is the validator's cache of verified tokens (by SHA256
// digest) over a cached key set. See README.md, "With authorization".

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

const authScope = "mcp:tools"

// benchIssuer is an authorization server's metadata and key set on
// 127.0.0.1, and the ES256 access token it issued for resource.
type benchIssuer struct {
	srv   *httptest.Server
	token string
}

func newBenchIssuer(tb testing.TB, resource string) *benchIssuer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	is := &benchIssuer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	is.srv = httptest.NewServer(mux)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k1").WithType("at+jwt"))
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Now()
	claims, _ := json.Marshal(map[string]any{"iss": is.srv.URL, "sub": "bench-user", "aud": resource, "client_id": "bench-client",
		"scope": authScope, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": "bench"})
	obj, err := signer.Sign(claims)
	if err != nil {
		tb.Fatal(err)
	}
	if is.token, err = obj.CompactSerialize(); err != nil {
		tb.Fatal(err)
	}
	return is
}

// setupMcpgenAuth is setupMcpgen's client and server with authorization
// (withAuth) or without.
func setupMcpgenAuth(tb testing.TB, withAuth bool) *e2eSetup {
	s := server.New(mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	var opts []server.ItemOption
	if withAuth {
		opts = append(opts, server.RequireScopes(authScope))
	}
	err := server.AddTypedTool(s, mcp.Tool{Name: e2eTool, Description: wire.Some(e2eToolDesc)},
		func(ctx context.Context, req *server.ToolRequest, a addArgs) (*mcp.CallToolResult, error) {
			return server.TextResult(strconv.Itoa(a.A + a.B)), nil
		}, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	var handler http.Handler = s.Handler(nil)
	hdr := http.Header{}
	stop := func() {}
	var srv *e2eServer
	if withAuth {
		srv = newE2EServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
		is := newBenchIssuer(tb, srv.url())
		stop = is.srv.Close
		tokens, err := auth.NewJWTValidator(auth.JWTConfig{Issuer: is.srv.URL, Resource: srv.url()})
		if err != nil {
			tb.Fatal(err)
		}
		rs, err := auth.New(auth.Config{Tokens: tokens, Metadata: auth.ProtectedResourceMetadata{
			Resource: srv.url(), AuthorizationServers: []string{is.srv.URL}, ScopesSupported: []string{authScope}}})
		if err != nil {
			tb.Fatal(err)
		}
		handler = s.Handler(&server.HTTPOptions{Auth: rs})
		hdr.Set("Authorization", "Bearer "+is.token)
	} else {
		srv = newE2EServer(handler)
	}
	hc := e2eHTTPClient()
	ctx := context.Background()
	c, err := client.ConnectURL(ctx, srv.url(), mcp.Implementation{Name: "bench-client", Version: "1.0.0"},
		&client.Options{HTTPClient: hc, Header: hdr})
	if err != nil {
		tb.Fatal(err)
	}
	for _, err := range c.ListTools(ctx) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	args := wire.Raw(e2eArgs)
	return &e2eSetup{
		srv: srv,
		call: func(ctx context.Context) (string, error) {
			r, err := c.CallTool(ctx, e2eTool, args)
			return mcpgenText(r), err
		},
		close: func() { _ = c.Close(); hc.CloseIdleConnections(); srv.Close(); stop() },
	}
}

var authVariants = []struct {
	name string
	auth bool
}{{"none", false}, {"jwt", true}}

// BenchmarkE2EAuth: sequential tools/call, auth=none beside auth=jwt. Run
// it with run-auth.sh, which interleaves the two and compares medians.
func BenchmarkE2EAuth(b *testing.B) {
	for _, v := range authVariants {
		b.Run("toolsCall/auth="+v.name, func(b *testing.B) {
			s := setupMcpgenAuth(b, v.auth)
			defer s.close()
			checkE2E(b, "mcpgen auth="+v.name, s)
			ctx := context.Background()
			conns := s.srv.conns.Load()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := s.call(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			if n := s.srv.conns.Load() - conns; n > 1 {
				b.Errorf("auth=%s: %d new connections during %d sequential calls", v.name, n, b.N)
			}
		})
	}
}

// TestE2EAuth checks both setups, and that the protected one refuses a
// call without the token (so the benchmark measures a server that checks).
func TestE2EAuth(t *testing.T) {
	for _, v := range authVariants {
		t.Run("auth="+v.name, func(t *testing.T) {
			s := setupMcpgenAuth(t, v.auth)
			defer s.close()
			for range 3 {
				checkE2E(t, "auth="+v.name, s)
			}
			resp, err := http.Post(s.srv.url(), "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if v.auth != (resp.StatusCode == http.StatusUnauthorized) {
				t.Errorf("a request without a token: %s", resp.Status)
			}
		})
	}
}
