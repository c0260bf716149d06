package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/uri"
)

// ProtectedResourceMetadata is the OAuth 2.0 Protected Resource Metadata
// document (RFC 9728 §2) an MCP server publishes (AUTHS-1): which
// authorization servers issue its tokens and how to present them.
type ProtectedResourceMetadata struct {
	// Resource is the server's canonical resource URI: the MCP endpoint
	// URL clients connect to and send as the RFC 8707 resource parameter.
	// Required; absolute, no fragment, preferably no trailing slash.
	Resource string `json:"resource"`
	// AuthorizationServers are the issuer identifiers of the authorization
	// servers whose tokens the server accepts. At least one (AUTHS-1).
	AuthorizationServers []string `json:"authorization_servers"`
	// JWKSURI is the server's own key set, if it signs responses.
	JWKSURI string `json:"jwks_uri,omitempty"`
	// ScopesSupported are the minimal scopes for basic use; clients
	// request them when a challenge names none. Never offline_access.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported are the ways to present a token; only
	// "header" is accepted here (tokens in the query or body are not).
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a human-readable name of the server.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation is a URL of documentation for developers.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
	// ResourcePolicyURI is a URL of the server's data-use policy.
	ResourcePolicyURI string `json:"resource_policy_uri,omitempty"`
	// ResourceTOSURI is a URL of the server's terms of service.
	ResourceTOSURI string `json:"resource_tos_uri,omitempty"`
	// DPoPSigningAlgValuesSupported are the JWS algorithms accepted for
	// DPoP proofs (RFC 9449 §5.1).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
	// DPoPBoundAccessTokensRequired says only DPoP-bound tokens are
	// accepted (RFC 9449 §5.1).
	DPoPBoundAccessTokensRequired bool `json:"dpop_bound_access_tokens_required,omitempty"`
}

// wellKnownPrefix is the RFC 9728 §3 well-known URI suffix.
const wellKnownPrefix = "/.well-known/oauth-protected-resource"

// Validate checks the document against RFC 9728 and AUTHS-1/12: an
// absolute resource URI without fragment, at least one authorization
// server, scopes that are RFC 6749 scope tokens and not offline_access
// (SEP-2207), and https everywhere unless the host is loopback or
// allowInsecure is set.
func (m *ProtectedResourceMetadata) Validate(allowInsecure bool) error {
	if _, err := canonicalURI(m.Resource, allowInsecure); err != nil {
		return fmt.Errorf("auth: resource: %w", err)
	}
	if len(m.AuthorizationServers) == 0 {
		return errors.New("auth: authorization_servers is empty (RFC 9728 §2, AUTHS-1)")
	}
	for _, as := range m.AuthorizationServers {
		if err := checkHTTPSURL(as, allowInsecure); err != nil {
			return fmt.Errorf("auth: authorization server %q: %w", as, err)
		}
	}
	for _, s := range m.ScopesSupported {
		if !isScopeToken(s) {
			return fmt.Errorf("auth: scopes_supported: %q is not a scope token", s)
		}
		if s == "offline_access" {
			return errors.New("auth: scopes_supported lists offline_access, which is not a resource requirement (AUTHS-1)")
		}
	}
	for _, bm := range m.BearerMethodsSupported {
		if bm != "header" {
			return fmt.Errorf("auth: bearer method %q: only \"header\" is accepted (AUTHS-3)", bm)
		}
	}
	return nil
}

// MetadataURL returns the path-inserted well-known URL of resource's
// metadata (RFC 9728 §3.1): https://host/.well-known/oauth-protected-resource/mcp
// for https://host/mcp, without a path suffix for an origin.
func MetadataURL(resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return "", fmt.Errorf("auth: resource %q is not an absolute URL", resource)
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	return u.Scheme + "://" + u.Host + wellKnownPrefix + path, nil
}

// metadataHandler serves a fixed document at the well-known paths.
type metadataHandler struct {
	paths []string
	body  []byte
}

// newMetadataHandler encodes m once and serves it at the root well-known
// path and the one with resource's path inserted (AUTHS-2).
func newMetadataHandler(m *ProtectedResourceMetadata) (*metadataHandler, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(m.Resource)
	if err != nil {
		return nil, err
	}
	h := &metadataHandler{paths: []string{wellKnownPrefix}, body: body}
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		h.paths = append(h.paths, wellKnownPrefix+p)
	}
	return h, nil
}

func (h *metadataHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !slices.Contains(h.paths, strings.TrimSuffix(r.URL.EscapedPath(), "/")) {
		http.NotFound(w, r)
		return
	}
	hdr := w.Header()
	// The document is public and read by browser-based clients too.
	hdr.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		hdr.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		hdr.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr.Set("Content-Type", "application/json")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(h.body)
}

// canonicalURI returns the RFC 8707 / MCP canonical form of an absolute
// resource URI: scheme and host lower-cased, the default port dropped, no
// trailing slash on an empty path. A fragment, a relative URI, userinfo or
// plain http to a non-loopback host (unless allowInsecure) is an error.
func canonicalURI(s string, allowInsecure bool) (string, error) {
	out, u, err := uri.Canonical(s)
	if err != nil {
		return "", err
	}
	if u.Opaque != "" {
		return "", fmt.Errorf("%q is not an absolute URI", s)
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		return "", fmt.Errorf("%q has a fragment", s)
	}
	if u.User != nil {
		return "", fmt.Errorf("%q has userinfo", s)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" {
		return "", fmt.Errorf("%q is not an http(s) URI", s)
	}
	if scheme == "http" && !allowInsecure && !uri.IsLoopback(u.Host) {
		return "", fmt.Errorf("%q is plain http to a non-loopback host (AUTHS-12)", s)
	}
	return out, nil
}

// checkHTTPSURL checks an absolute http(s) URL: https, or http to loopback
// or with allowInsecure.
func checkHTTPSURL(s string, allowInsecure bool) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if !u.IsAbs() || u.Host == "" {
		return errors.New("not an absolute URL")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if allowInsecure || uri.IsLoopback(u.Host) {
			return nil
		}
		return errors.New("plain http to a non-loopback host (AUTHS-12)")
	}
	return errors.New("not an http(s) URL")
}

// isScopeToken reports whether s is an RFC 6749 §3.3 scope-token:
// 1*( %x21 / %x23-5B / %x5D-7E ).
func isScopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
