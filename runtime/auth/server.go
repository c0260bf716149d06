package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// TokenVerifier verifies the credentials of an HTTP request to the MCP
// endpoint: it returns the Principal of a valid access token, or an error
// saying why not (an *Error; errors.Is finds the Err* cause). The HTTP
// transport calls it for every request before reading the body
// (AUTHS-3). *ResourceServer implements it.
type TokenVerifier interface {
	Verify(ctx context.Context, r *http.Request) (*Principal, error)
}

// TokenValidator validates an access token itself: signature or
// introspection, issuer, lifetime and audience. *JWTValidator and
// *IntrospectionValidator implement it; a ResourceServer adds what
// depends on the request (where the token was, DPoP).
//
// A validator that also has a method Issuers() []string has those
// checked against the metadata's authorization_servers by New.
type TokenValidator interface {
	ValidateToken(ctx context.Context, token string) (*Principal, error)
}

// Config configures a ResourceServer.
type Config struct {
	// Metadata is the Protected Resource Metadata to publish (AUTHS-1).
	// Resource (the canonical MCP endpoint URL) and AuthorizationServers
	// are required. BearerMethodsSupported defaults to ["header"]; the
	// DPoP fields are filled in from DPoP.
	Metadata ProtectedResourceMetadata
	// Tokens validates access tokens. Required.
	Tokens TokenValidator
	// DPoP, when set, accepts DPoP-bound tokens presented with a proof
	// (RFC 9449) and adds a DPoP challenge to 401 answers. Without it a
	// DPoP-bound token is refused, and so is the DPoP scheme.
	DPoP *DPoPVerifier
	// MetadataURL is the metadata's URL named by resource_metadata in
	// challenges. Default: MetadataURL(Metadata.Resource), the
	// path-inserted well-known URL.
	MetadataURL string
	// Scopes is the challenge's scope when a refusal names none (a 401
	// before the operation is known). Default: Metadata.ScopesSupported.
	Scopes []string
	// ScopeCovers reports whether a granted scope implies a required one
	// (AUTHS-10); equal scopes always do. See ScopeImplications.
	ScopeCovers func(granted, required string) bool
	// AllowInsecureHTTP accepts plain http URLs on non-loopback hosts
	// (AUTHS-12). Loopback is always allowed, for development and tests.
	AllowInsecureHTTP bool
}

// ResourceServer is an MCP server's OAuth 2.1 resource-server side: it
// verifies requests' tokens, checks scopes, writes the 401/403 challenges
// and serves the Protected Resource Metadata. It is safe for concurrent
// use.
type ResourceServer struct {
	md          ProtectedResourceMetadata
	tokens      TokenValidator
	dpop        *DPoPVerifier
	metadataURL string
	scopes      []string
	covers      func(granted, required string) bool
	handler     *metadataHandler
	origin      string // scheme://host of the resource URI
}

// New checks cfg and returns its ResourceServer.
func New(cfg Config) (*ResourceServer, error) {
	if cfg.Tokens == nil {
		return nil, errors.New("auth: Config.Tokens is required")
	}
	md := cfg.Metadata
	md.AuthorizationServers = slices.Clone(md.AuthorizationServers)
	md.ScopesSupported = slices.Clone(md.ScopesSupported)
	if len(md.BearerMethodsSupported) == 0 {
		md.BearerMethodsSupported = []string{"header"}
	}
	if cfg.DPoP != nil {
		md.DPoPSigningAlgValuesSupported = cfg.DPoP.Algorithms()
		md.DPoPBoundAccessTokensRequired = cfg.DPoP.Required()
	}
	if err := md.Validate(cfg.AllowInsecureHTTP); err != nil {
		return nil, err
	}
	if is, ok := cfg.Tokens.(interface{ Issuers() []string }); ok {
		for _, iss := range is.Issuers() {
			if !slices.Contains(md.AuthorizationServers, iss) {
				return nil, fmt.Errorf("auth: the validator's issuer %q is not in authorization_servers (AUTHS-7)", iss)
			}
		}
	}
	s := &ResourceServer{md: md, tokens: cfg.Tokens, dpop: cfg.DPoP, metadataURL: cfg.MetadataURL, covers: cfg.ScopeCovers}
	if s.metadataURL == "" {
		var err error
		if s.metadataURL, err = MetadataURL(md.Resource); err != nil {
			return nil, err
		}
	} else if err := checkHTTPSURL(s.metadataURL, cfg.AllowInsecureHTTP); err != nil {
		return nil, fmt.Errorf("auth: MetadataURL: %w", err)
	}
	s.scopes = slices.Clone(cfg.Scopes)
	if s.scopes == nil {
		s.scopes = md.ScopesSupported
	}
	for _, sc := range s.scopes {
		if !isScopeToken(sc) {
			return nil, fmt.Errorf("auth: scope %q is not a scope token", sc)
		}
	}
	h, err := newMetadataHandler(&s.md)
	if err != nil {
		return nil, err
	}
	s.handler = h
	u, err := url.Parse(md.Resource)
	if err != nil {
		return nil, err
	}
	s.origin = u.Scheme + "://" + u.Host
	return s, nil
}

// Metadata returns the published Protected Resource Metadata.
func (s *ResourceServer) Metadata() ProtectedResourceMetadata {
	md := s.md
	md.AuthorizationServers = slices.Clone(md.AuthorizationServers)
	md.ScopesSupported = slices.Clone(md.ScopesSupported)
	md.BearerMethodsSupported = slices.Clone(md.BearerMethodsSupported)
	md.DPoPSigningAlgValuesSupported = slices.Clone(md.DPoPSigningAlgValuesSupported)
	return md
}

// MetadataURL returns the URL challenges give as resource_metadata.
func (s *ResourceServer) MetadataURL() string { return s.metadataURL }

// MetadataHandler serves the metadata (GET, HEAD; OPTIONS for CORS) at
// the well-known paths of WellKnownPaths, and 404 elsewhere (AUTHS-2).
func (s *ResourceServer) MetadataHandler() http.Handler { return s.handler }

// WellKnownPaths are the paths the metadata is served at: the root
// /.well-known/oauth-protected-resource and, when the resource URI has a
// path, the path-inserted form (/.well-known/oauth-protected-resource/mcp
// for …/mcp). Mount MetadataHandler at each.
func (s *ResourceServer) WellKnownPaths() []string { return slices.Clone(s.handler.paths) }

// Verify returns the Principal of r's access token (TokenVerifier). It
// reads the Authorization header only (ReadCredential: a query-string
// token is refused), validates the token with Config.Tokens and, for a
// DPoP-bound token (cnf.jkt), requires the DPoP scheme and a valid proof
// signed by the bound key, whose htu names the resource URI's origin and
// r's path; a bound token sent as Bearer is refused (RFC 9449 §7.2).
func (s *ResourceServer) Verify(ctx context.Context, r *http.Request) (*Principal, error) {
	cred, err := ReadCredential(r)
	if err != nil {
		return nil, err
	}
	if cred.Scheme == SchemeDPoP && s.dpop == nil {
		return nil, fail(ErrNoCredentials, "") // a scheme this server does not offer
	}
	if cred.Scheme == SchemeBearer && s.dpop != nil && s.dpop.required {
		return nil, &Error{Code: CodeInvalidToken, Scheme: SchemeDPoP, Description: "this server accepts DPoP-bound tokens only", Err: ErrTokenBinding}
	}
	p, err := s.tokens.ValidateToken(ctx, cred.Token)
	if err != nil {
		e := *asError(err)
		e.Scheme = cred.Scheme
		return nil, &e
	}
	if p == nil {
		return nil, &Error{Code: CodeInvalidToken, Scheme: cred.Scheme, Description: "the access token is invalid", Err: ErrMalformedToken}
	}
	bound := p.Confirmation != ""
	switch {
	case bound && cred.Scheme == SchemeBearer:
		return nil, &Error{Code: CodeInvalidToken, Scheme: SchemeBearer, Description: "a DPoP-bound token must be sent with the DPoP scheme and a proof", Err: ErrTokenBinding}
	case bound && s.dpop == nil:
		return nil, &Error{Code: CodeInvalidToken, Scheme: cred.Scheme, Description: "this server does not accept DPoP-bound tokens", Err: ErrTokenBinding}
	case !bound && cred.Scheme == SchemeDPoP:
		return nil, &Error{Code: CodeInvalidToken, Scheme: SchemeDPoP, Description: "the token is not DPoP-bound", Err: ErrTokenBinding}
	case !bound:
		return p, nil
	}
	// htu names the public origin, which the resource URI knows better
	// than the client-supplied Host header.
	var target string
	if s.dpop.target != nil {
		target = s.dpop.target(r)
	} else {
		target = s.origin + r.URL.EscapedPath()
	}
	jkt, err := s.dpop.verifyProof(ctx, r, cred.Proof, cred.Token, target)
	if err != nil {
		return nil, err
	}
	if jkt != p.Confirmation {
		return nil, &Error{Code: CodeInvalidToken, Scheme: SchemeDPoP, Description: "the DPoP proof is not signed by the key the token is bound to", Err: ErrTokenBinding}
	}
	return p, nil
}

// RequireScopes returns nil when p holds every one of scopes (directly or
// through Config.ScopeCovers, AUTHS-10), else an insufficient_scope
// *Error listing all of scopes, for a single 403 challenge (AUTHS-5). A
// nil p gives ErrNoCredentials (401).
func (s *ResourceServer) RequireScopes(p *Principal, scopes ...string) error {
	if p == nil {
		return fail(ErrNoCredentials, "")
	}
	for _, req := range scopes {
		if !s.covered(p.Scopes, req) {
			e := &Error{
				Code:        CodeInsufficientScope,
				Description: "the operation needs scope " + strings.Join(scopes, " "),
				Scopes:      slices.Clone(scopes),
				Scheme:      SchemeBearer,
				Err:         ErrInsufficientScope,
			}
			if p.Confirmation != "" {
				e.Scheme = SchemeDPoP
			}
			return e
		}
	}
	return nil
}

func (s *ResourceServer) covered(granted []string, req string) bool {
	for _, g := range granted {
		if g == req || s.covers != nil && s.covers(g, req) {
			return true
		}
	}
	return false
}

// ScopeImplications returns a Config.ScopeCovers for explicit
// implications: implied["files"] = ["files:read", "files:write"] lets a
// token with "files" through where "files:read" is required. It follows
// chains ("admin" → "files" → "files:read").
func ScopeImplications(implied map[string][]string) func(granted, required string) bool {
	closure := make(map[string]map[string]bool, len(implied))
	var walk func(root, s string)
	walk = func(root, s string) {
		for _, t := range implied[s] {
			if !closure[root][t] {
				closure[root][t] = true
				walk(root, t)
			}
		}
	}
	for g := range implied {
		closure[g] = map[string]bool{}
		walk(g, g)
	}
	return func(granted, required string) bool { return closure[granted][required] }
}

// WriteError answers a refused request: the status of err's *Error
// (400, 401, 403 or 503; a foreign error counts as invalid_token), a
// WWW-Authenticate challenge per offered scheme carrying
// resource_metadata and scope (AUTHS-4/5), the error code and
// description on the challenge of the scheme the client used, a
// DPoP-Nonce header for use_dpop_nonce, and a small JSON body.
//
// A 403 carries only the challenge of the client's scheme; a 503 none.
func (s *ResourceServer) WriteError(w http.ResponseWriter, err error) {
	e := asError(err)
	status := e.StatusCode()
	h := w.Header()
	if e.Nonce != "" {
		h.Set("DPoP-Nonce", e.Nonce)
	}
	if status != http.StatusServiceUnavailable {
		scopes := e.Scopes
		if len(scopes) == 0 {
			scopes = s.scopes
		}
		errScheme := e.Scheme
		if errScheme == "" || s.dpop == nil || s.dpop.required {
			errScheme = SchemeBearer
			if s.dpop != nil && s.dpop.required {
				errScheme = SchemeDPoP
			}
		}
		for _, scheme := range []string{SchemeBearer, SchemeDPoP} {
			offered := scheme == SchemeBearer && (s.dpop == nil || !s.dpop.required) ||
				scheme == SchemeDPoP && s.dpop != nil
			if !offered || status == http.StatusForbidden && scheme != errScheme {
				continue
			}
			c := Challenge{Scheme: scheme, Scope: scopes, ResourceMetadata: s.metadataURL}
			if scheme == errScheme {
				c.Error, c.ErrorDescription = e.Code, e.Description
			}
			if scheme == SchemeDPoP {
				c.Algs = s.dpop.names
			}
			h.Add("WWW-Authenticate", c.String())
		}
	}
	h.Set("Cache-Control", "no-store")
	if e.Code == "" {
		w.WriteHeader(status)
		return
	}
	body, _ := json.Marshal(struct {
		Error       string `json:"error"`
		Description string `json:"error_description,omitempty"`
	}{e.Code, sanitizeDescription(e.Description)})
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Protect wraps next, the MCP endpoint: each request is verified
// (Verify) and, when scopes are given, checked for them (RequireScopes)
// before next runs, with the Principal in the request context
// (PrincipalFromContext). Refusals are written by WriteError. With DPoP
// nonces a successful DPoP request gets a fresh DPoP-Nonce header.
func (s *ResourceServer) Protect(next http.Handler, scopes ...string) http.Handler {
	scopes = slices.Clone(scopes)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.Verify(r.Context(), r)
		if err == nil && len(scopes) > 0 {
			err = s.RequireScopes(p, scopes...)
		}
		if err != nil {
			s.WriteError(w, err)
			return
		}
		if n := s.DPoPNonce(r.Context(), p); n != "" {
			w.Header().Set("DPoP-Nonce", n)
		}
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

// DPoPNonce is the DPoP-Nonce to send with the answer to a request of p
// (a fresh server nonce, RFC 9449 §8), or "" when p's token is not
// DPoP-bound or the server keeps no nonces.
func (s *ResourceServer) DPoPNonce(ctx context.Context, p *Principal) string {
	if p == nil || p.Confirmation == "" || s.dpop == nil {
		return ""
	}
	n, err := s.dpop.Nonce(ctx)
	if err != nil {
		return ""
	}
	return n
}
