package oauth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// obtain gets a new token for resource at the authorization server m with
// the configured grant.
func (a *Authorizer) obtain(ctx context.Context, m *serverMetadata, resource string, scopes []string) (*oauth2.Token, error) {
	switch {
	case a.cfg.JWTBearer != nil:
		return a.jwtBearerGrant(ctx, m, resource, scopes)
	case a.cfg.EnterpriseManaged != nil:
		return a.enterpriseGrant(ctx, m, resource, scopes)
	case a.cfg.ClientCredentials != nil:
		return a.clientCredentialsGrant(ctx, m, resource, scopes)
	}
	return a.authorizationCodeGrant(ctx, m, resource, scopes)
}

// authorizationCodeGrant runs the authorization code grant with PKCE
// (AUTHC-6) and the resource indicator on both requests (AUTHC-7); the
// redirect is checked (AUTHC-13) before the code goes to the token
// endpoint.
func (a *Authorizer) authorizationCodeGrant(ctx context.Context, m *serverMetadata, resource string, scopes []string) (*oauth2.Token, error) {
	if a.cfg.HandleAuthorization == nil || a.cfg.RedirectURL == "" {
		return nil, errors.New("oauth: the authorization code grant needs Config.HandleAuthorization and Config.RedirectURL")
	}
	if !slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("%w: %s lists code_challenge_methods_supported %q", ErrPKCEUnsupported, m.Issuer, m.CodeChallengeMethodsSupported)
	}
	if m.AuthorizationEndpoint == "" {
		return nil, fmt.Errorf("%w: %s has no authorization_endpoint", ErrDiscovery, m.Issuer)
	}
	if !m.supportsGrant("authorization_code") {
		return nil, fmt.Errorf("%w: %s does not list authorization_code", ErrUnsupportedGrant, m.Issuer)
	}
	reg, err := a.clientFor(ctx, m)
	if err != nil {
		return nil, err
	}
	if a.cfg.OfflineAccess && slices.Contains(m.ScopesSupported, "offline_access") {
		scopes = union(scopes, []string{"offline_access"}) // AUTHC-12
	}
	secret, style := tokenAuth(reg, m.TokenEndpointAuthMethodsSupported)
	conf := &oauth2.Config{
		ClientID:     reg.ClientID,
		ClientSecret: secret,
		Endpoint:     oauth2.Endpoint{AuthURL: m.AuthorizationEndpoint, TokenURL: m.TokenEndpoint, AuthStyle: style},
		RedirectURL:  a.cfg.RedirectURL,
		Scopes:       scopes,
	}
	// What the answer is checked against, recorded before redirecting:
	// state, verifier and the validated issuer (AUTHC-13).
	state, verifier := rand.Text(), oauth2.GenerateVerifier()
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	params, err := a.cfg.HandleAuthorization(ctx, authURL)
	if err != nil {
		return nil, fmt.Errorf("oauth: authorization: %w", err)
	}
	if err := checkResponse(params, state, m); err != nil {
		return nil, err
	}
	tok, err := conf.Exchange(a.tokenContext(ctx, m), params.Get("code"),
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		return nil, fmt.Errorf("oauth: token request: %w", err)
	}
	return tok, nil
}

// checkResponse checks an authorization response (AUTHC-13, AUTHC-20):
// state first, then iss, compared byte for byte with the recorded issuer
// whenever present and required when the server advertises it; only then
// is an error answer believed, or the code taken.
func checkResponse(p url.Values, state string, m *serverMetadata) error {
	if p.Get("state") != state {
		return ErrStateMismatch
	}
	switch iss, present := p.Get("iss"), p.Has("iss"); {
	case present && iss != m.Issuer:
		return fmt.Errorf("%w: the authorization response comes from %q, not %q", ErrIssuerMismatch, iss, m.Issuer)
	case !present && m.AuthorizationResponseIssParamSupported:
		return fmt.Errorf("%w: %s advertises iss in authorization responses and sent none", ErrIssuerMismatch, m.Issuer)
	}
	if code := p.Get("error"); code != "" {
		return &AuthorizationError{Code: code, Description: p.Get("error_description"), URI: p.Get("error_uri")}
	}
	if p.Get("code") == "" {
		return errors.New("oauth: the authorization response carries no code")
	}
	return nil
}

// clientAuth is how a token request authenticates the client.
type clientAuth struct {
	id, secret string
	style      oauth2.AuthStyle
	params     url.Values // e.g. a client assertion
}

// tokenClient is the client authentication at m for the configured grant
// (AUTHC-11): the extension's own credentials, or the registration.
func (a *Authorizer) tokenClient(ctx context.Context, m *serverMetadata) (clientAuth, error) {
	switch {
	case a.cfg.JWTBearer != nil:
		return clientAuth{id: a.cfg.JWTBearer.ClientID, style: oauth2.AuthStyleInParams}, nil
	case a.cfg.EnterpriseManaged != nil:
		e := a.cfg.EnterpriseManaged
		secret, style := tokenAuth(&Registration{ClientID: e.ClientID, ClientSecret: e.ClientSecret}, m.TokenEndpointAuthMethodsSupported)
		return clientAuth{id: e.ClientID, secret: secret, style: style}, nil
	case a.cfg.ClientCredentials != nil:
		cc := a.cfg.ClientCredentials
		if a.ccSigner == nil {
			secret, style := tokenAuth(&Registration{ClientID: cc.ClientID, ClientSecret: cc.ClientSecret}, m.TokenEndpointAuthMethodsSupported)
			return clientAuth{id: cc.ClientID, secret: secret, style: style}, nil
		}
		aud := cc.Audience
		if aud == "" {
			// The issuer, as RFC 7523bis has it (not the token endpoint).
			aud = m.Issuer
		}
		assertion, err := clientAssertion(a.ccSigner, cc.ClientID, aud)
		if err != nil {
			return clientAuth{}, err
		}
		return clientAuth{id: cc.ClientID, style: oauth2.AuthStyleInParams, params: url.Values{
			"client_assertion_type": {assertionTypeJWT},
			"client_assertion":      {assertion},
		}}, nil
	}
	reg, err := a.clientFor(ctx, m)
	if err != nil {
		return clientAuth{}, err
	}
	secret, style := tokenAuth(reg, m.TokenEndpointAuthMethodsSupported)
	return clientAuth{id: reg.ClientID, secret: secret, style: style}, nil
}

// tokenRequest POSTs a token request of any grant to tokenURL with the
// resource indicator (AUTHC-7): oauth2's client credentials request, whose
// grant_type may be replaced, does the encoding, the client
// authentication and the answer's parsing. dpopAt, when set, is the
// authorization server whose DPoP support decides on proofs.
func (a *Authorizer) tokenRequest(ctx context.Context, tokenURL string, auth clientAuth, params url.Values, resource string, scopes []string, dpopAt *serverMetadata) (*oauth2.Token, error) {
	p := url.Values{"resource": {resource}}
	for k, v := range auth.params {
		p[k] = v
	}
	for k, v := range params {
		p[k] = v
	}
	conf := clientcredentials.Config{
		ClientID:       auth.id,
		ClientSecret:   auth.secret,
		TokenURL:       tokenURL,
		Scopes:         scopes,
		EndpointParams: p,
		AuthStyle:      auth.style,
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, a.http)
	if dpopAt != nil {
		ctx = a.tokenContext(ctx, dpopAt)
	}
	tok, err := conf.Token(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: token request (%s): %w", params.Get("grant_type"), err)
	}
	return tok, nil
}

// tokenContext carries the HTTP client for token requests to m: one that
// adds DPoP proofs when DPoP is configured and m supports the key's
// algorithm.
func (a *Authorizer) tokenContext(ctx context.Context, m *serverMetadata) context.Context {
	hc := a.http
	if a.dpop != nil && slices.Contains(m.DPoPSigningAlgValuesSupported, string(a.dpop.alg)) {
		c := *a.http
		base := c.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		c.Transport = &dpopTransport{a: a, base: base}
		hc = &c
	}
	return context.WithValue(ctx, oauth2.HTTPClient, hc)
}

// refresh trades tok's refresh token for a new token with the same client
// authentication and resource (AUTHC-19); a rotated refresh token replaces
// the old one, a missing one keeps it.
func (a *Authorizer) refresh(ctx context.Context, m *serverMetadata, tok *oauth2.Token, resource string) (*oauth2.Token, error) {
	auth, err := a.tokenClient(ctx, m)
	if err != nil {
		return nil, err
	}
	return a.tokenRequest(ctx, m.TokenEndpoint, auth, url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {tok.RefreshToken},
	}, resource, nil, m)
}

// clientCredentialsGrant is the client_credentials grant (RFC 6749 §4.4)
// of the oauth-client-credentials extension.
func (a *Authorizer) clientCredentialsGrant(ctx context.Context, m *serverMetadata, resource string, scopes []string) (*oauth2.Token, error) {
	if !m.supportsGrant("client_credentials") {
		return nil, fmt.Errorf("%w: %s does not list client_credentials", ErrUnsupportedGrant, m.Issuer)
	}
	auth, err := a.tokenClient(ctx, m)
	if err != nil {
		return nil, err
	}
	return a.tokenRequest(ctx, m.TokenEndpoint, auth, url.Values{"grant_type": {"client_credentials"}}, resource, scopes, m)
}

// jwtBearerGrant presents the workload's JWT (RFC 7523 §2.1). An
// assertion the server refused is not sent again, and no other grant is
// tried: the refusal is returned again until the workload has a new one.
func (a *Authorizer) jwtBearerGrant(ctx context.Context, m *serverMetadata, resource string, scopes []string) (*oauth2.Token, error) {
	j := a.cfg.JWTBearer
	if !m.supportsGrant(grantJWTBearer) {
		return nil, fmt.Errorf("%w: %s does not list %s", ErrUnsupportedGrant, m.Issuer, grantJWTBearer)
	}
	if j.Assertion == nil {
		return nil, errors.New("oauth: JWTBearer.Assertion is nil")
	}
	assertion, err := j.Assertion(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: workload assertion: %w", err)
	}
	a.mu.Lock()
	refused, refusal := a.refusedAssertion, a.refusal
	a.mu.Unlock()
	if refusal != nil && assertion == refused {
		return nil, refusal
	}
	auth, err := a.tokenClient(ctx, m)
	if err != nil {
		return nil, err
	}
	tok, err := a.tokenRequest(ctx, m.TokenEndpoint, auth, url.Values{"grant_type": {grantJWTBearer}, "assertion": {assertion}}, resource, scopes, m)
	if re := (*oauth2.RetrieveError)(nil); errors.As(err, &re) { // the server's refusal, not a lost connection
		a.mu.Lock()
		a.refusedAssertion, a.refusal = assertion, err
		a.mu.Unlock()
	}
	return tok, err
}

// enterpriseGrant is enterprise-managed authorization: token exchange at
// the identity provider (RFC 8693) for an ID-JAG naming the authorization
// server and the resource, then the JWT bearer grant with it there.
func (a *Authorizer) enterpriseGrant(ctx context.Context, m *serverMetadata, resource string, scopes []string) (*oauth2.Token, error) {
	e := a.cfg.EnterpriseManaged
	if !m.supportsGrant(grantJWTBearer) {
		return nil, fmt.Errorf("%w: %s does not list %s", ErrUnsupportedGrant, m.Issuer, grantJWTBearer)
	}
	if e.IDToken == nil {
		return nil, errors.New("oauth: EnterpriseManaged.IDToken is nil")
	}
	idpToken := e.IDPTokenEndpoint
	if idpToken == "" {
		if e.IDPIssuer == "" {
			return nil, errors.New("oauth: EnterpriseManaged needs IDPTokenEndpoint or IDPIssuer")
		}
		idp, err := a.discoverServer(ctx, e.IDPIssuer)
		if err != nil {
			return nil, fmt.Errorf("oauth: identity provider: %w", err)
		}
		idpToken = idp.TokenEndpoint
	}
	if _, err := a.checkURL("identity provider token endpoint", idpToken); err != nil {
		return nil, err
	}
	idToken, err := e.IDToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: ID token: %w", err)
	}
	jag, err := a.tokenRequest(ctx, idpToken, clientAuth{id: e.IDPClientID, secret: e.IDPClientSecret, style: oauth2.AuthStyleInParams}, url.Values{
		"grant_type":           {grantTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"audience":             {m.Issuer},
		"subject_token":        {idToken},
		"subject_token_type":   {tokenTypeIDToken},
	}, resource, scopes, nil)
	if err != nil {
		return nil, err
	}
	if t, _ := jag.Extra("issued_token_type").(string); t != "" && t != tokenTypeIDJAG {
		return nil, fmt.Errorf("oauth: the identity provider issued a %s, not an ID-JAG", t)
	}
	auth, err := a.tokenClient(ctx, m)
	if err != nil {
		return nil, err
	}
	return a.tokenRequest(ctx, m.TokenEndpoint, auth, url.Values{"grant_type": {grantJWTBearer}, "assertion": {jag.AccessToken}}, resource, scopes, m)
}

// Headless returns an AuthorizationHandler for authorization servers that
// approve without a user, such as test servers and the conformance
// suite's: it GETs the authorization URL with hc (nil: a default client),
// does not follow the redirect, and returns the query of its Location.
func Headless(hc *http.Client) AuthorizationHandler {
	c := http.Client{}
	if hc != nil {
		c = *hc
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return func(ctx context.Context, authURL string) (url.Values, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		loc, err := resp.Location()
		if err != nil {
			return nil, fmt.Errorf("oauth: the authorization endpoint answered %s without redirect", resp.Status)
		}
		return loc.Query(), nil
	}
}
