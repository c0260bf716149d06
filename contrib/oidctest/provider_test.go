package oidctest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// The OpenID provider of the tests is zitadel's op.Provider: discovery,
// the key set, the authorization endpoint, PKCE, client authentication,
// the authorization code, refresh token and client credentials grants,
// and the signing of JWT access tokens are that library's. What a
// deployment of it writes itself is written here: the op.Storage (clients,
// users, requests and tokens, in memory), the login step (a user who
// approves at once), and one policy the library leaves to its storage,
// the audience of access tokens.
//
// Audience (RFC 8707). op reads the resource parameter only in token
// exchange; in the authorization code, refresh and client credentials
// grants it ignores it and takes a token's aud from the storage
// (TokenRequest.GetAudience). So a middleware in front of op reads
// resource from the authorization and token requests and puts it in the
// request's context, and the storage makes it the aud: at authorization
// time for the code it issues (the token request must then name the same
// resource), at refresh time (a subset of the original), and for client
// credentials. Without resource the aud is the client_id, op's default.
//
// Scopes. op puts no scope claim in its JWT access tokens; the storage
// adds one (RFC 9068 §2.2.3) through CanGetPrivateClaimsFromRequest.

// provider is an OpenID provider on 127.0.0.1.
type provider struct {
	t      *testing.T
	issuer string
	op     *op.Provider
	store  *storage
	srv    *httptest.Server

	mu    sync.Mutex
	calls []providerCall // authorization and token requests, in order
}

// providerCall is one request to the authorization or token endpoint.
type providerCall struct {
	endpoint string // "authorize" or "token"
	form     url.Values
}

// Paths of op's endpoints (its defaults).
const (
	authorizePath = "/authorize"
	tokenPath     = "/oauth/token"
	loginPath     = "/login"
)

// newProvider starts a provider whose user is subject and whose clients
// are clients.
func newProvider(t *testing.T, subject string, clients ...*oidcClient) *provider {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	p := &provider{t: t, issuer: "http://" + ts.Listener.Addr().String(), srv: ts}
	p.store = newStorage(t, subject, clients)
	var cryptoKey [32]byte
	if _, err := rand.Read(cryptoKey[:]); err != nil {
		t.Fatal(err)
	}
	cfg := &op.Config{
		CryptoKey:             cryptoKey, // opaque tokens and codes
		CodeMethodS256:        true,      // PKCE, advertised as code_challenge_methods_supported
		AuthMethodPost:        true,
		GrantTypeRefreshToken: true,
	}
	prov, err := op.NewProvider(cfg, p.store, op.StaticIssuer(p.issuer), op.WithAllowInsecure())
	if err != nil {
		t.Fatal(err)
	}
	p.op = prov
	mux := http.NewServeMux()
	mux.Handle(loginPath, op.NewIssuerInterceptor(prov.IssuerFromRequest).HandlerFunc(p.login))
	mux.Handle("/", http.HandlerFunc(p.serveOP))
	ts.Config.Handler = mux
	ts.Start()
	t.Cleanup(ts.Close)
	return p
}

// serveOP passes requests to op, taking the resource parameter of
// authorization and token requests into the context (see above).
func (p *provider) serveOP(w http.ResponseWriter, r *http.Request) {
	var endpoint string
	switch r.URL.Path {
	case authorizePath:
		endpoint = "authorize"
	case tokenPath:
		endpoint = "token"
	}
	if endpoint != "" {
		if err := r.ParseForm(); err != nil { // op's own ParseForm then finds it done
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		form := url.Values{}
		for k, v := range r.Form {
			if k != "client_secret" {
				form[k] = slices.Clone(v)
			}
		}
		p.mu.Lock()
		p.calls = append(p.calls, providerCall{endpoint, form})
		p.mu.Unlock()
		resources := r.Form["resource"]
		for _, res := range resources {
			if u, err := url.Parse(res); err != nil || !u.IsAbs() || u.Fragment != "" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"error":"invalid_target"}`) // RFC 8707 §2
				return
			}
		}
		if len(resources) > 0 {
			r = r.WithContext(context.WithValue(r.Context(), resourceKey{}, slices.Clone(resources)))
		}
	}
	p.op.ServeHTTP(w, r)
}

// login is the provider's login page: the user approves whatever is asked
// at once (the user's step, automated), and the browser goes on to op's
// callback, which sends it to the client's redirect URI with a code.
func (p *provider) login(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("authRequestID")
	if err := p.store.approve(id); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	http.Redirect(w, r, op.AuthCallbackURL(p.op)(r.Context(), id), http.StatusFound)
}

// recorded returns the calls made to endpoint ("authorize" or "token").
func (p *provider) recorded(endpoint string) []url.Values {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []url.Values
	for _, c := range p.calls {
		if c.endpoint == endpoint {
			out = append(out, c.form)
		}
	}
	return out
}

// grants counts the token requests of each grant_type.
func (p *provider) grants() map[string]int {
	n := map[string]int{}
	for _, f := range p.recorded("token") {
		n[f.Get("grant_type")]++
	}
	return n
}

// browser is the user agent of the user's step: it opens the
// authorization URL, follows the provider's redirects (login, callback)
// with cookies, and stops at the client's redirect URI, returning its
// query, as a loopback redirect handler would receive it. It follows no
// redirect to any other host.
func (p *provider) browser(redirectURL string) func(ctx context.Context, authURL string) (url.Values, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		p.t.Fatal(err)
	}
	host := p.srv.Listener.Addr().String()
	c := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		switch {
		case strings.HasPrefix(req.URL.String(), redirectURL):
			return http.ErrUseLastResponse
		case req.URL.Host != host:
			return fmt.Errorf("browser: redirected off the provider to %s", req.URL)
		case len(via) > 10:
			return errors.New("browser: too many redirects")
		}
		return nil
	}}
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
		if err != nil || !strings.HasPrefix(loc.String(), redirectURL) {
			return nil, fmt.Errorf("browser: the provider answered %s instead of redirecting to the client", resp.Status)
		}
		return loc.Query(), nil
	}
}

type resourceKey struct{}

// audience is the aud of a token issued in ctx to clientID: the resource
// parameters of the request, else the client_id.
func audience(ctx context.Context, clientID string) []string {
	if res, _ := ctx.Value(resourceKey{}).([]string); len(res) > 0 {
		return res
	}
	return []string{clientID}
}

// oidcClient is a client registered at the provider.
type oidcClient struct {
	id, secret string
	redirects  []string
	appType    op.ApplicationType
	authMethod oidc.AuthMethod
	grants     []oidc.GrantType
	scopes     []string // the scopes beyond OpenID's it may be granted
	tokenType  op.AccessTokenType
}

// publicClient is a native application: loopback redirect, no secret,
// PKCE, refresh tokens, JWT access tokens.
func publicClient(id, redirect string, scopes ...string) *oidcClient {
	return &oidcClient{id: id, redirects: []string{redirect}, appType: op.ApplicationTypeNative,
		authMethod: oidc.AuthMethodNone, grants: []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken},
		scopes: scopes, tokenType: op.AccessTokenTypeJWT}
}

// confidentialClient is a web application with a secret (client_secret_basic).
func confidentialClient(id, secret, redirect string, scopes ...string) *oidcClient {
	return &oidcClient{id: id, secret: secret, redirects: []string{redirect}, appType: op.ApplicationTypeWeb,
		authMethod: oidc.AuthMethodBasic, grants: []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken},
		scopes: scopes, tokenType: op.AccessTokenTypeJWT}
}

// serviceClient uses the client credentials grant.
func serviceClient(id, secret string, scopes ...string) *oidcClient {
	return &oidcClient{id: id, secret: secret, appType: op.ApplicationTypeWeb, authMethod: oidc.AuthMethodBasic,
		grants: []oidc.GrantType{oidc.GrantTypeClientCredentials}, scopes: scopes, tokenType: op.AccessTokenTypeJWT}
}

func (c *oidcClient) GetID() string                       { return c.id }
func (c *oidcClient) RedirectURIs() []string              { return c.redirects }
func (c *oidcClient) PostLogoutRedirectURIs() []string    { return nil }
func (c *oidcClient) ApplicationType() op.ApplicationType { return c.appType }
func (c *oidcClient) AuthMethod() oidc.AuthMethod         { return c.authMethod }
func (c *oidcClient) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *oidcClient) GrantTypes() []oidc.GrantType { return c.grants }
func (c *oidcClient) LoginURL(id string) string {
	return loginPath + "?authRequestID=" + url.QueryEscape(id)
}
func (c *oidcClient) AccessTokenType() op.AccessTokenType  { return c.tokenType }
func (c *oidcClient) IDTokenLifetime() time.Duration       { return time.Hour }
func (c *oidcClient) DevMode() bool                        { return false }
func (c *oidcClient) IsScopeAllowed(scope string) bool     { return slices.Contains(c.scopes, scope) }
func (c *oidcClient) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *oidcClient) ClockSkew() time.Duration             { return 0 }
func (c *oidcClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *oidcClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

// authRequest is an authorization request in progress, then the grant
// its code stands for.
type authRequest struct {
	id, clientID, redirectURI, state, nonce string
	scopes, audience                        []string
	responseType                            oidc.ResponseType
	responseMode                            oidc.ResponseMode
	challenge                               *oidc.CodeChallenge
	subject                                 string
	authTime                                time.Time
	done                                    bool
}

func (a *authRequest) GetID() string                         { return a.id }
func (a *authRequest) GetACR() string                        { return "" }
func (a *authRequest) GetAMR() []string                      { return []string{"pwd"} }
func (a *authRequest) GetAudience() []string                 { return a.audience }
func (a *authRequest) GetAuthTime() time.Time                { return a.authTime }
func (a *authRequest) GetClientID() string                   { return a.clientID }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return a.challenge }
func (a *authRequest) GetNonce() string                      { return a.nonce }
func (a *authRequest) GetRedirectURI() string                { return a.redirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType    { return a.responseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode    { return a.responseMode }
func (a *authRequest) GetScopes() []string                   { return a.scopes }
func (a *authRequest) GetState() string                      { return a.state }
func (a *authRequest) GetSubject() string                    { return a.subject }
func (a *authRequest) Done() bool                            { return a.done }

// refreshToken is an issued refresh token and the grant behind it.
type refreshToken struct {
	token, clientID, subject string
	audience, scopes         []string
	authTime                 time.Time
}

func (r *refreshToken) GetAMR() []string                 { return []string{"pwd"} }
func (r *refreshToken) GetAudience() []string            { return r.audience }
func (r *refreshToken) GetAuthTime() time.Time           { return r.authTime }
func (r *refreshToken) GetClientID() string              { return r.clientID }
func (r *refreshToken) GetScopes() []string              { return r.scopes }
func (r *refreshToken) GetSubject() string               { return r.subject }
func (r *refreshToken) SetCurrentScopes(scopes []string) { r.scopes = scopes }

// serviceRequest is a client credentials grant: the client is the subject.
type serviceRequest struct {
	subject          string
	audience, scopes []string
}

func (s *serviceRequest) GetSubject() string    { return s.subject }
func (s *serviceRequest) GetAudience() []string { return s.audience }
func (s *serviceRequest) GetScopes() []string   { return s.scopes }

// signingKey is an RSA key of the provider (RS256, op's usual choice).
type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *signingKey) Key() any                                    { return k.key }
func (k *signingKey) ID() string                                  { return k.id }

// publicKey is a signing key as the key set publishes it.
type publicKey struct{ k *signingKey }

func (p publicKey) ID() string                         { return p.k.id }
func (p publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (p publicKey) Use() string                        { return "sig" }
func (p publicKey) Key() any                           { return &p.k.key.PublicKey }

// storage is the provider's op.Storage, in memory.
type storage struct {
	t       *testing.T
	subject string // the user, who approves every request

	mu       sync.Mutex
	clients  map[string]*oidcClient
	requests map[string]*authRequest // by id
	codes    map[string]string       // code → request id
	refresh  map[string]*refreshToken
	keys     []*signingKey // keys[0] signs; all are published
	lifetime time.Duration // of access tokens
	offset   time.Duration // added to the exp of access tokens: the provider's clock, as its tokens show it
}

var (
	_ op.Storage                        = (*storage)(nil)
	_ op.ClientCredentialsStorage       = (*storage)(nil)
	_ op.CanGetPrivateClaimsFromRequest = (*storage)(nil)
)

func newStorage(t *testing.T, subject string, clients []*oidcClient) *storage {
	s := &storage{t: t, subject: subject, clients: map[string]*oidcClient{}, requests: map[string]*authRequest{},
		codes: map[string]string{}, refresh: map[string]*refreshToken{}, lifetime: 5 * time.Minute}
	for _, c := range clients {
		s.clients[c.id] = c
	}
	s.rotate(false)
	return s
}

// rotate makes a new key the signing key; keepOld leaves the previous
// keys in the key set, else only the new key is published.
func (s *storage) rotate(keepOld bool) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		s.t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	nk := &signingKey{id: randomID(), key: k}
	if keepOld {
		s.keys = append([]*signingKey{nk}, s.keys...)
	} else {
		s.keys = []*signingKey{nk}
	}
}

// setClock moves the provider's clock, as the exp of its access tokens
// shows it, by d from the real time.
func (s *storage) setClock(d time.Duration) {
	s.mu.Lock()
	s.offset = d
	s.mu.Unlock()
}

func (s *storage) expiry() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Now().Add(s.offset + s.lifetime)
}

// approve records the user's consent to request id.
func (s *storage) approve(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return errors.New("no such authorization request")
	}
	r.subject, r.authTime, r.done = s.subject, time.Now(), true
	return nil
}

func randomID() string {
	return rand.Text()
}

// AuthStorage

func (s *storage) CreateAuthRequest(ctx context.Context, ar *oidc.AuthRequest, userID string) (op.AuthRequest, error) {
	r := &authRequest{id: randomID(), clientID: ar.ClientID, redirectURI: ar.RedirectURI, state: ar.State,
		nonce: ar.Nonce, scopes: ar.Scopes, audience: audience(ctx, ar.ClientID), responseType: ar.ResponseType,
		responseMode: ar.ResponseMode, subject: userID}
	if ar.CodeChallenge != "" {
		r.challenge = &oidc.CodeChallenge{Challenge: ar.CodeChallenge, Method: ar.CodeChallengeMethod}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[r.id] = r
	return r, nil
}

func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.requests[id]; ok {
		return r, nil
	}
	return nil, errors.New("no such authorization request")
}

// AuthRequestByCode returns the grant of code; a token request naming a
// resource must name the one(s) the authorization request named.
func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[s.codes[code]]
	if !ok {
		return nil, errors.New("invalid code")
	}
	if res, _ := ctx.Value(resourceKey{}).([]string); len(res) > 0 && !slices.Equal(res, r.audience) {
		return nil, errors.New("the token request names another resource than the authorization request")
	}
	return r, nil
}

func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = id
	return nil
}

func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.requests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
	return nil
}

func (s *storage) CreateAccessToken(context.Context, op.TokenRequest) (string, time.Time, error) {
	return randomID(), s.expiry(), nil
}

// CreateAccessAndRefreshTokens issues a refresh token with the access
// token; a refresh rotates it (the old one stops working).
func (s *storage) CreateAccessAndRefreshTokens(_ context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	rt := &refreshToken{token: randomID(), subject: req.GetSubject(), audience: req.GetAudience(), scopes: req.GetScopes()}
	switch r := req.(type) {
	case *authRequest:
		rt.clientID, rt.authTime = r.clientID, r.authTime
	case *refreshToken:
		rt.clientID, rt.authTime = r.clientID, r.authTime
	default:
		return "", "", time.Time{}, fmt.Errorf("no refresh tokens for a %T", req)
	}
	exp := s.expiry()
	s.mu.Lock()
	defer s.mu.Unlock()
	if current != "" {
		if _, ok := s.refresh[current]; !ok {
			return "", "", time.Time{}, errors.New("invalid refresh token")
		}
		delete(s.refresh, current)
	}
	s.refresh[rt.token] = rt
	return randomID(), rt.token, exp, nil
}

// TokenRequestByRefreshToken returns the grant of a refresh token; a
// refresh request naming resources narrows the audience to them, which
// must be among the original ones (RFC 8707 §2.2).
func (s *storage) TokenRequestByRefreshToken(ctx context.Context, token string) (op.RefreshTokenRequest, error) {
	s.mu.Lock()
	rt, ok := s.refresh[token]
	s.mu.Unlock()
	if !ok {
		return nil, errors.New("invalid refresh token")
	}
	c := *rt
	if res, _ := ctx.Value(resourceKey{}).([]string); len(res) > 0 {
		for _, r := range res {
			if !slices.Contains(rt.audience, r) {
				return nil, errors.New("the refresh request names a resource the grant did not")
			}
		}
		c.audience = res
	}
	return &c, nil
}

func (s *storage) TerminateSession(context.Context, string, string) error { return nil }

func (s *storage) RevokeToken(_ context.Context, token, _, clientID string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rt, ok := s.refresh[token]; ok && rt.clientID == clientID {
		delete(s.refresh, token)
	}
	return nil
}

func (s *storage) GetRefreshTokenInfo(_ context.Context, _ string, token string) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rt, ok := s.refresh[token]; ok {
		return rt.subject, rt.token, nil
	}
	return "", "", op.ErrInvalidRefreshToken
}

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[0], nil
}

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *storage) KeySet(context.Context) ([]op.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]op.Key, len(s.keys))
	for i, k := range s.keys {
		keys[i] = publicKey{k}
	}
	return keys, nil
}

// OPStorage

func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[id]; ok {
		return c, nil
	}
	return nil, errors.New("no such client")
}

func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok || c.secret == "" || subtle.ConstantTimeCompare([]byte(c.secret), []byte(secret)) != 1 {
		return errors.New("client authentication failed")
	}
	return nil
}

// SetUserinfoFromScopes fills in the ID token's claims: the subject
// (the user has no profile, e-mail or phone).
func (s *storage) SetUserinfoFromScopes(_ context.Context, ui *oidc.UserInfo, userID, _ string, _ []string) error {
	ui.Subject = userID
	return nil
}

func (s *storage) SetUserinfoFromToken(_ context.Context, ui *oidc.UserInfo, _, subject, _ string) error {
	ui.Subject = subject
	return nil
}

func (s *storage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errors.New("introspection is not offered")
}

func (s *storage) GetPrivateClaimsFromScopes(_ context.Context, _, _ string, scopes []string) (map[string]any, error) {
	return scopeClaim(scopes), nil
}

// GetPrivateClaimsFromRequest adds the scope claim to JWT access tokens.
func (s *storage) GetPrivateClaimsFromRequest(_ context.Context, _ op.TokenRequest, scopes []string) (map[string]any, error) {
	return scopeClaim(scopes), nil
}

func scopeClaim(scopes []string) map[string]any {
	if len(scopes) == 0 {
		return nil
	}
	return map[string]any{"scope": strings.Join(scopes, " ")}
}

func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("the JWT profile grant is not offered")
}

func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("the JWT profile grant is not offered")
}

func (s *storage) Health(context.Context) error { return nil }

// ClientCredentialsStorage

func (s *storage) ClientCredentials(ctx context.Context, id, secret string) (op.Client, error) {
	if err := s.AuthorizeClientIDSecret(ctx, id, secret); err != nil {
		return nil, err
	}
	return s.GetClientByClientID(ctx, id)
}

// ClientCredentialsTokenRequest grants the scopes the client may have,
// for the resource the request names.
func (s *storage) ClientCredentialsTokenRequest(ctx context.Context, id string, scopes []string) (op.TokenRequest, error) {
	s.mu.Lock()
	c := s.clients[id]
	s.mu.Unlock()
	var granted []string
	for _, sc := range scopes {
		if c != nil && c.IsScopeAllowed(sc) {
			granted = append(granted, sc)
		}
	}
	return &serviceRequest{subject: id, audience: audience(ctx, id), scopes: granted}, nil
}
