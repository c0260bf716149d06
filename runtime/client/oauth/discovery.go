package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/uri"
)

// resourceMetadata is an OAuth 2.0 Protected Resource Metadata document
// (RFC 9728 §2), the members the client uses.
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`

	fromRoot bool // served at the root well-known URI (AUTHC-5)
}

// serverMetadata is an authorization server's metadata (RFC 8414 §2, with
// the OpenID Discovery, RFC 9207, RFC 9449 and CIMD members).
type serverMetadata struct {
	Issuer                                 string   `json:"issuer"`
	AuthorizationEndpoint                  string   `json:"authorization_endpoint"`
	TokenEndpoint                          string   `json:"token_endpoint"`
	RegistrationEndpoint                   string   `json:"registration_endpoint"`
	ScopesSupported                        []string `json:"scopes_supported"`
	ResponseTypesSupported                 []string `json:"response_types_supported"`
	GrantTypesSupported                    []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported          []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported      []string `json:"token_endpoint_auth_methods_supported"`
	AuthorizationResponseIssParamSupported bool     `json:"authorization_response_iss_parameter_supported"`
	ClientIDMetadataDocumentSupported      bool     `json:"client_id_metadata_document_supported"`
	DPoPSigningAlgValuesSupported          []string `json:"dpop_signing_alg_values_supported"`
}

// supportsGrant reports whether the metadata lists grant, or lists no
// grants at all (RFC 8414 §2: the default is authorization_code and
// implicit, so only authorization_code is assumed then).
func (m *serverMetadata) supportsGrant(grant string) bool {
	if len(m.GrantTypesSupported) == 0 {
		return grant == "authorization_code"
	}
	return slices.Contains(m.GrantTypesSupported, grant)
}

// checkURL parses an absolute URL the client is about to contact or
// trust: https, or http on a loopback host or with AllowInsecureHTTP
// (AUTHC-18); no fragment.
func (a *Authorizer) checkURL(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("oauth: %s %q: %w", what, raw, err)
	}
	if !u.IsAbs() || u.Host == "" || u.Fragment != "" {
		return nil, fmt.Errorf("oauth: %s %q is not an absolute URL without fragment", what, raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && (uri.IsLoopback(u.Hostname()) || a.cfg.AllowInsecureHTTP):
	default:
		return nil, fmt.Errorf("%w: %s %q (https is required off loopback; see Config.AllowInsecureHTTP)", ErrInsecureURL, what, raw)
	}
	return u, nil
}

// canonicalResource is the comparison form of a resource URI (AUTHC-5):
// lower-case scheme and host, no default port, no fragment, no "/" for
// an empty path. It is only ever compared, never sent: the resource
// parameter carries the metadata's own string (AUTHC-7).
func canonicalResource(raw string) (string, error) {
	s, _, err := uri.Canonical(raw)
	return s, err
}

// resourceMatches reports whether the metadata's resource names endpoint
// (AUTHC-5): the same canonical URI, or, for metadata from the root
// well-known URI, a path prefix of it on the same origin.
func resourceMatches(resource, endpoint string, fromRoot bool) bool {
	r, err := canonicalResource(resource)
	if err != nil {
		return false
	}
	e, err := canonicalResource(endpoint)
	if err != nil {
		return false
	}
	if r == e {
		return true
	}
	if !fromRoot || strings.Contains(r, "?") {
		return false
	}
	return strings.HasPrefix(e, strings.TrimSuffix(r, "/")+"/")
}

// fetchJSON GETs u and decodes a 200 JSON answer into v. found is false
// for any other status, so that discovery moves on to the next candidate.
func (a *Authorizer) fetchJSON(ctx context.Context, u string, v any) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("oauth: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		return false, fmt.Errorf("oauth: GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return false, nil
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "" && ct != "application/json" && !strings.HasSuffix(ct, "+json") {
		return false, nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v); err != nil {
		return false, fmt.Errorf("oauth: %s: %w", u, err)
	}
	return true, nil
}

// resourceMetadataURLs lists where to look for the Protected Resource
// Metadata of endpoint (AUTHC-1): the challenge's resource_metadata alone
// when given (used verbatim), else the path-inserted then the root
// well-known URI.
func resourceMetadataURLs(endpoint *url.URL, fromChallenge string) []string {
	if fromChallenge != "" {
		return []string{fromChallenge}
	}
	origin := endpoint.Scheme + "://" + endpoint.Host
	root := origin + "/.well-known/oauth-protected-resource"
	if p := strings.TrimSuffix(endpoint.EscapedPath(), "/"); p != "" {
		return []string{root + p, root}
	}
	return []string{root}
}

// discoverResource finds and checks the Protected Resource Metadata
// (AUTHC-1, AUTHC-5). It is fetched anew on every challenge: a server may
// move to another authorization server (AUTHC-17).
func (a *Authorizer) discoverResource(ctx context.Context, endpoint *url.URL, fromChallenge string) (*resourceMetadata, error) {
	candidates := resourceMetadataURLs(endpoint, fromChallenge)
	for i, u := range candidates {
		if _, err := a.checkURL("resource metadata URL", u); err != nil {
			return nil, err
		}
		var m resourceMetadata
		found, err := a.fetchJSON(ctx, u, &m)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		m.fromRoot = fromChallenge == "" && i == len(candidates)-1
		if m.Resource == "" || len(m.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("%w: %s lacks resource or authorization_servers", ErrDiscovery, u)
		}
		if !resourceMatches(m.Resource, endpoint.String(), m.fromRoot) {
			return nil, fmt.Errorf("%w: %s names %q, the server is %s", ErrResourceMismatch, u, m.Resource, endpoint)
		}
		return &m, nil
	}
	return nil, fmt.Errorf("%w: no protected resource metadata at %s", ErrDiscovery, strings.Join(candidates, ", "))
}

// serverMetadataURLs lists the well-known URIs of issuer in the order of
// AUTHC-3: with a path, OAuth then OpenID path insertion, then OpenID path
// appending; without one, OAuth then OpenID at the root.
func serverMetadataURLs(issuer *url.URL) []string {
	origin := issuer.Scheme + "://" + issuer.Host
	p := strings.TrimSuffix(issuer.EscapedPath(), "/")
	if p == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + p,
		origin + "/.well-known/openid-configuration" + p,
		origin + p + "/.well-known/openid-configuration",
	}
}

// discoverServer fetches and checks the metadata of issuer (AUTHC-3,
// AUTHC-4), caching it per issuer for the Authorizer's lifetime.
func (a *Authorizer) discoverServer(ctx context.Context, issuer string) (*serverMetadata, error) {
	a.mu.Lock()
	m := a.servers[issuer]
	a.mu.Unlock()
	if m != nil {
		return m, nil
	}
	iu, err := a.checkURL("issuer", issuer)
	if err != nil {
		return nil, err
	}
	if iu.RawQuery != "" {
		return nil, fmt.Errorf("oauth: issuer %q has a query", issuer)
	}
	candidates := serverMetadataURLs(iu)
	for _, u := range candidates {
		m = new(serverMetadata)
		found, err := a.fetchJSON(ctx, u, m)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		// A document for another issuer is discarded, and so is the
		// search: none of its endpoints is used, no further candidate
		// tried (AUTHC-4).
		if m.Issuer != issuer {
			return nil, fmt.Errorf("%w: %s describes issuer %q, not %q", ErrIssuerMismatch, u, m.Issuer, issuer)
		}
		for _, ep := range [][2]string{{"authorization_endpoint", m.AuthorizationEndpoint}, {"token_endpoint", m.TokenEndpoint}, {"registration_endpoint", m.RegistrationEndpoint}} {
			if ep[1] == "" {
				continue
			}
			if _, err := a.checkURL(ep[0], ep[1]); err != nil {
				return nil, err
			}
		}
		if m.TokenEndpoint == "" {
			return nil, fmt.Errorf("%w: %s has no token_endpoint", ErrDiscovery, u)
		}
		a.mu.Lock()
		a.servers[issuer] = m
		a.mu.Unlock()
		return m, nil
	}
	return nil, fmt.Errorf("%w: no authorization server metadata for %s at %s", ErrDiscovery, issuer, strings.Join(candidates, ", "))
}
