package oauth

import (
	"net/url"
	"reflect"
	"slices"
	"testing"

	"golang.org/x/oauth2"
)

func TestAUTHC2_ParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []string
		want   []challenge
	}{
		{"bearer", []string{`Bearer resource_metadata="https://x/m", scope="a b"`},
			[]challenge{{"bearer", map[string]string{"resource_metadata": "https://x/m", "scope": "a b"}}}},
		{"any order, tokens and spaces", []string{`bearer   error=insufficient_scope ,scope = "files:write",resource_metadata="https://x/m"`},
			[]challenge{{"bearer", map[string]string{"error": "insufficient_scope", "scope": "files:write", "resource_metadata": "https://x/m"}}}},
		{"comma and escapes in quotes", []string{`Bearer error_description="a, \"b\" \\ c", realm="r"`},
			[]challenge{{"bearer", map[string]string{"error_description": `a, "b" \ c`, "realm": "r"}}}},
		{"two challenges in one value", []string{`DPoP algs="ES256 RS256", error="use_dpop_nonce", Bearer realm="mcp", scope="x"`},
			[]challenge{
				{"dpop", map[string]string{"algs": "ES256 RS256", "error": "use_dpop_nonce"}},
				{"bearer", map[string]string{"realm": "mcp", "scope": "x"}},
			}},
		{"two values, token68 and bare scheme", []string{`Basic dXNlcjpwYXNz==`, `Negotiate, Bearer`},
			[]challenge{
				{"basic", map[string]string{"": "dXNlcjpwYXNz=="}},
				{"negotiate", map[string]string{}},
				{"bearer", map[string]string{}},
			}},
		{"names case-insensitive", []string{`BEARER Resource_Metadata="u"`},
			[]challenge{{"bearer", map[string]string{"resource_metadata": "u"}}}},
		{"unterminated quote", []string{`Bearer scope="a b`},
			[]challenge{{"bearer", map[string]string{"scope": "a b"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseChallenges(tc.values); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestAUTHC2_ReadChallenge(t *testing.T) {
	v := []string{`Bearer scope="read", resource_metadata="https://b"`, `DPoP error="use_dpop_nonce", resource_metadata="https://d"`}
	if ci := readChallenge(v, false); ci.resourceMetadata != "https://b" || !slices.Equal(ci.scope, []string{"read"}) || ci.err != "use_dpop_nonce" {
		t.Errorf("Bearer first: %+v", ci)
	}
	if ci := readChallenge(v, true); ci.resourceMetadata != "https://d" || ci.scheme != "dpop" || ci.err != "use_dpop_nonce" {
		t.Errorf("DPoP first: %+v", ci)
	}
	if ci := readChallenge([]string{`Basic realm="x", Bearer scope="a a b"`}, false); !slices.Equal(ci.scope, []string{"a", "b"}) {
		t.Errorf("scope %q", ci.scope)
	}
}

func TestAUTHC5_ResourceMatches(t *testing.T) {
	for _, tc := range []struct {
		resource, endpoint string
		root, want         bool
	}{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", false, true},
		{"HTTPS://MCP.Example.COM:443/mcp", "https://mcp.example.com/mcp", false, true},
		{"https://mcp.example.com/mcp#frag", "https://mcp.example.com/mcp", false, true},
		{"https://mcp.example.com/", "https://mcp.example.com", false, true},
		{"http://localhost:8080/mcp", "http://localhost:8080/mcp", false, true},
		{"https://evil.example.com/mcp", "https://mcp.example.com/mcp", false, false},
		{"https://mcp.example.com/mcp", "https://mcp.example.com:8443/mcp", false, false},
		{"https://mcp.example.com/other", "https://mcp.example.com/mcp", false, false},
		{"https://mcp.example.com", "https://mcp.example.com/mcp", false, false}, // prefix: root metadata only
		{"https://mcp.example.com", "https://mcp.example.com/mcp", true, true},
		{"https://mcp.example.com/mc", "https://mcp.example.com/mcp", true, false}, // not a path segment
		{"http://mcp.example.com", "https://mcp.example.com/mcp", true, false},
		{"mcp.example.com", "https://mcp.example.com/mcp", true, false},
	} {
		if got := resourceMatches(tc.resource, tc.endpoint, tc.root); got != tc.want {
			t.Errorf("resourceMatches(%q, %q, root %v) = %v", tc.resource, tc.endpoint, tc.root, got)
		}
	}
}

func TestAUTHC1_AUTHC3_WellKnownURLs(t *testing.T) {
	ep, _ := url.Parse("https://mcp.example.com/public/mcp")
	if got, want := resourceMetadataURLs(ep, ""), []string{
		"https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
		"https://mcp.example.com/.well-known/oauth-protected-resource",
	}; !slices.Equal(got, want) {
		t.Errorf("resource metadata URLs %q", got)
	}
	if got := resourceMetadataURLs(ep, "https://other.example.com/m.json"); !slices.Equal(got, []string{"https://other.example.com/m.json"}) {
		t.Errorf("with a challenge URL: %q", got)
	}
	root, _ := url.Parse("https://mcp.example.com/")
	if got := resourceMetadataURLs(root, ""); len(got) != 1 {
		t.Errorf("root endpoint: %q", got)
	}
	iss, _ := url.Parse("https://auth.example.com/tenant1/")
	if got, want := serverMetadataURLs(iss), []string{
		"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
		"https://auth.example.com/.well-known/openid-configuration/tenant1",
		"https://auth.example.com/tenant1/.well-known/openid-configuration",
	}; !slices.Equal(got, want) {
		t.Errorf("issuer with path: %q", got)
	}
}

func TestAUTHC11_TokenAuthNegotiation(t *testing.T) {
	for _, tc := range []struct {
		reg       Registration
		supported []string
		secret    bool
		inHeader  bool
	}{
		{Registration{ClientID: "a", ClientSecret: "s", AuthMethod: AuthMethodBasic}, []string{"none"}, true, true},
		{Registration{ClientID: "a", ClientSecret: "s", AuthMethod: AuthMethodNone}, nil, false, false},
		{Registration{ClientID: "a", ClientSecret: "s"}, nil, true, true},
		{Registration{ClientID: "a", ClientSecret: "s"}, []string{"client_secret_post"}, true, false},
		{Registration{ClientID: "a", ClientSecret: "s"}, []string{"none"}, false, false},
		{Registration{ClientID: "a"}, []string{"client_secret_basic"}, false, false},
	} {
		secret, style := tokenAuth(&tc.reg, tc.supported)
		if (secret != "") != tc.secret || (style == oauth2.AuthStyleInHeader) != tc.inHeader {
			t.Errorf("%+v with %q: secret %q, style %v", tc.reg, tc.supported, secret, style)
		}
	}
	if got := registrationAuthMethod([]string{"client_secret_post", "none"}); got != AuthMethodNone {
		t.Errorf("registration method %q, want none", got)
	}
	if got := registrationAuthMethod(nil); got != AuthMethodBasic {
		t.Errorf("registration method without a list %q, want the RFC 8414 default", got)
	}
}
