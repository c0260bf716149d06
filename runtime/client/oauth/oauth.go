// Package oauth is the client side of MCP authorization: an Authorizer for
// the Streamable HTTP transport (client.Options.Authorizer) that answers a
// server's 401 or 403 with the OAuth 2.1 flow the specification prescribes
// and sends the request again with the token it obtained.
//
// On a challenge it finds the server's Protected Resource Metadata
// (RFC 9728) and its authorization server's metadata (RFC 8414, OpenID
// Connect Discovery), checks that both describe what they claim to, gets a
// client identity (pre-registered, a Client ID Metadata Document URL, or
// Dynamic Client Registration, RFC 7591) and a token: by default through
// the authorization code grant with PKCE (S256), the resource indicator
// (RFC 8707) and the authorization response's iss (RFC 9207); the user's
// part (opening the authorization URL, receiving the redirect) is
// Config.HandleAuthorization. Tokens are kept in a TokenStore per issuer and
// resource, refreshed when they expire, and widened by step-up
// authorization when a server asks for more scope.
//
// The authorization extensions are options: client credentials
// (Config.ClientCredentials), enterprise-managed authorization
// (Config.EnterpriseManaged), workload identity federation
// (Config.JWTBearer) and DPoP-bound tokens (Config.DPoP).
//
// OAuth mechanics come from golang.org/x/oauth2 (PKCE, the token requests
// and their client authentication), JWTs and JWKs from
// github.com/go-jose/go-jose/v4. docs/auth-client.md lists what is
// supported, with the RFCs.
package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"

	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/internal/uri"
)

// An AuthorizationHandler is the user-facing step of the authorization
// code grant: it sends the user to authURL (opens a browser, prints it)
// and returns the query parameters of the redirect the authorization
// server answers with at Config.RedirectURL: code, state and iss, or
// error. The Authorizer checks them (state, then iss, then error) before
// any token request. It runs under the context of the MCP request that
// drew the challenge, so the client's request timeout bounds it.
type AuthorizationHandler func(ctx context.Context, authURL string) (url.Values, error)

// Config configures an Authorizer. Without an extension grant it uses the
// authorization code grant, which needs HandleAuthorization and
// RedirectURL.
type Config struct {
	// HTTPClient sends the discovery, registration and token requests.
	// Default: a client with a 30 s timeout.
	HTTPClient *http.Client

	// HandleAuthorization is the user-facing step of the authorization
	// code grant.
	HandleAuthorization AuthorizationHandler
	// RedirectURL is the redirect URI: https, loopback http, or a
	// private-use scheme (AUTHC-20). It is registered in Dynamic Client
	// Registration and sent with every authorization request.
	RedirectURL string
	// ClientName is the client_name of Dynamic Client Registration.
	// Default "mcpgen".
	ClientName string
	// ApplicationType is the application_type of Dynamic Client
	// Registration. Default: "native" for a loopback or private-use
	// redirect URI, else "web" (AUTHC-10).
	ApplicationType string
	// ClientMetadataURL is the client's Client ID Metadata Document URL,
	// used as its client_id wherever the authorization server supports
	// such documents (AUTHC-9). It must be https with a path; the document
	// there must name it as its client_id.
	ClientMetadataURL string
	// PreRegistered holds client credentials registered in advance, by
	// authorization server issuer. They take precedence (AUTHC-9) and are
	// never shown to another issuer; a client with pre-registered
	// credentials does not register itself elsewhere either: an issuer
	// without an entry is ErrAuthorizationServerChanged, unless
	// ClientMetadataURL serves there (AUTHC-17).
	PreRegistered map[string]Registration
	// OfflineAccess asks for refresh tokens with the offline_access scope
	// where the authorization server lists it (AUTHC-12).
	OfflineAccess bool

	// MaxStepUps bounds the re-authorizations for more scope per
	// operation after the first authorization (AUTHC-16). 0 means 2;
	// negative means none.
	MaxStepUps int
	// Store keeps the tokens. Default: a MemoryStore.
	Store TokenStore
	// AllowInsecureHTTP accepts plain-http authorization servers and
	// metadata off loopback hosts (AUTHC-18). Loopback hosts are always
	// accepted.
	AllowInsecureHTTP bool

	// At most one extension grant replaces the authorization code grant.

	// ClientCredentials: the client_credentials grant (extension
	// io.modelcontextprotocol/oauth-client-credentials).
	ClientCredentials *ClientCredentials
	// EnterpriseManaged: enterprise-managed authorization (extension
	// io.modelcontextprotocol/enterprise-managed-authorization).
	EnterpriseManaged *EnterpriseManaged
	// JWTBearer: a workload's JWT as authorization grant (extension
	// io.modelcontextprotocol/auth/wif).
	JWTBearer *JWTBearer

	// DPoP, when set, asks for DPoP-bound tokens wherever the
	// authorization server supports them (extension
	// io.modelcontextprotocol/auth/dpop).
	DPoP *DPoP
}

// ClientCredentials configures the client_credentials grant (RFC 6749
// §4.4), authenticated with a secret (client_secret_basic, or
// client_secret_post when the server lists only that) or with a signed
// assertion (private_key_jwt, RFC 7523 §2.2).
type ClientCredentials struct {
	ClientID     string
	ClientSecret string
	// PrivateKey, when set, signs a private_key_jwt assertion instead of
	// sending a secret.
	PrivateKey crypto.Signer
	// Algorithm signs the assertion. Default: the key's first (ES256 for
	// P256, RS256 for RSA).
	Algorithm jose.SignatureAlgorithm
	// Audience is the assertion's aud. Default: the authorization
	// server's issuer.
	Audience string
}

// EnterpriseManaged configures enterprise-managed authorization: the
// user's identity token from the enterprise identity provider is
// exchanged there (RFC 8693) for an Identity Assertion JWT Authorization
// Grant, which the MCP server's authorization server takes in the JWT
// bearer grant (RFC 7523 §2.1).
type EnterpriseManaged struct {
	// IDPTokenEndpoint is the identity provider's token endpoint; when
	// empty it is discovered from IDPIssuer.
	IDPTokenEndpoint string
	IDPIssuer        string
	// IDPClientID (and IDPClientSecret, if the client has one there)
	// identify the client at the identity provider.
	IDPClientID     string
	IDPClientSecret string
	// IDToken returns the user's ID token at the identity provider.
	IDToken func(ctx context.Context) (string, error)
	// ClientID and ClientSecret identify the client at the MCP server's
	// authorization server.
	ClientID     string
	ClientSecret string
}

// JWTBearer configures the JWT bearer grant with an assertion the
// workload obtains elsewhere (workload identity federation, RFC 7523
// §2.1). A refused assertion is not sent again, and no other grant is
// tried.
type JWTBearer struct {
	// ClientID is sent as client_id (token endpoint auth "none").
	ClientID string
	// Assertion returns the workload's JWT; its aud must name the
	// authorization server.
	Assertion func(ctx context.Context) (string, error)
}

// DPoP configures DPoP-bound tokens (RFC 9449): proofs at the token
// endpoint and with every MCP request, nonces when a server asks.
type DPoP struct {
	// Key signs the proofs. Default: a P256 key made for the Authorizer.
	Key crypto.Signer
}

// Grant types the extensions use.
const (
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	assertionTypeJWT   = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// Authorizer implements client.Authorizer for one MCP server: the first
// request binds it to that endpoint. Its methods are safe for concurrent
// use; discovery and token requests run one at a time.
type Authorizer struct {
	cfg        Config
	http       *http.Client
	store      TokenStore
	maxStepUps int
	dpop       *dpopKey
	ccSigner   jose.Signer // private_key_jwt

	flow sync.Mutex // held while discovering and obtaining tokens

	mu       sync.Mutex
	endpoint *url.URL                   // the MCP endpoint
	servers  map[string]*serverMetadata // validated metadata by issuer
	clients  map[string]*Registration   // dynamic registrations by issuer
	// The token requests carry, where it lives and who issued it.
	tok        *oauth2.Token
	key        TokenKey
	server     *serverMetadata
	viaRefresh bool     // tok came from a refresh (one per refusal, AUTHC-16)
	cred       string   // digest of tok (Credential)
	requested  []string // scopes asked for so far (AUTHC-15)
	stepUps    map[string]int
	nonces     map[string]string // DPoP nonces (rsNonce, asNonce)
	// The workload assertion the authorization server refused, and how.
	refusedAssertion string
	refusal          error
}

// New returns an Authorizer for cfg (nil: the authorization code grant
// without handler, which fails at the first challenge).
func New(cfg *Config) (*Authorizer, error) {
	a := &Authorizer{servers: map[string]*serverMetadata{}, clients: map[string]*Registration{},
		stepUps: map[string]int{}, nonces: map[string]string{}}
	if cfg != nil {
		a.cfg = *cfg
	}
	c := &a.cfg
	a.http = c.HTTPClient
	if a.http == nil {
		a.http = &http.Client{Timeout: 30 * time.Second}
	}
	a.store = c.Store
	if a.store == nil {
		a.store = new(MemoryStore)
	}
	switch {
	case c.MaxStepUps == 0:
		a.maxStepUps = 2
	case c.MaxStepUps > 0:
		a.maxStepUps = c.MaxStepUps
	}
	if c.ClientName == "" {
		c.ClientName = "mcpgen"
	}
	grants := 0
	for _, set := range []bool{c.ClientCredentials != nil, c.EnterpriseManaged != nil, c.JWTBearer != nil} {
		if set {
			grants++
		}
	}
	if grants > 1 {
		return nil, errors.New("oauth: Config sets more than one of ClientCredentials, EnterpriseManaged and JWTBearer")
	}
	if grants == 0 && c.RedirectURL != "" {
		u, err := url.Parse(c.RedirectURL)
		if err != nil || u.Scheme == "" || u.Fragment != "" {
			return nil, fmt.Errorf("oauth: RedirectURL %q is not an absolute URI without fragment", c.RedirectURL)
		}
		if u.Scheme == "http" && !uri.IsLoopback(u.Hostname()) {
			return nil, fmt.Errorf("%w: RedirectURL %q: a redirect URI is https or on a loopback host", ErrInsecureURL, c.RedirectURL)
		}
	}
	if c.ClientMetadataURL != "" {
		u, err := url.Parse(c.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" || u.Fragment != "" {
			return nil, fmt.Errorf("oauth: ClientMetadataURL %q must be an https URL with a path (AUTHC-9)", c.ClientMetadataURL)
		}
	}
	if cc := c.ClientCredentials; cc != nil && cc.PrivateKey != nil {
		s, _, err := newSigner(cc.PrivateKey, cc.Algorithm, (&jose.SignerOptions{}).WithType("JWT"))
		if err != nil {
			return nil, err
		}
		a.ccSigner = s
	}
	if c.DPoP != nil {
		key := c.DPoP.Key
		if key == nil {
			k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				return nil, err
			}
			key = k
		}
		d, err := newDPoPKey(key)
		if err != nil {
			return nil, err
		}
		a.dpop = d
	}
	return a, nil
}

// bind ties the Authorizer to the endpoint of its first request; a request
// to another endpoint is refused (its tokens are not for that one).
func (a *Authorizer) bind(u *url.URL) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.endpoint == nil {
		ep := *u
		ep.Fragment, ep.RawFragment = "", ""
		a.endpoint = &ep
		return nil
	}
	if e := a.endpoint; e.Scheme != u.Scheme || e.Host != u.Host || e.Path != u.Path || e.RawQuery != u.RawQuery {
		return fmt.Errorf("oauth: this Authorizer serves %s, not %s (use one per MCP server)", e, u.Redacted())
	}
	return nil
}

// Authorize implements client.Authorizer: it adds the current token to req
// (AUTHC-14), refreshing it first when it has expired (AUTHC-19). Without
// a token the request goes out bare, and the server's challenge starts
// the flow.
func (a *Authorizer) Authorize(ctx context.Context, req *http.Request) error {
	if err := a.bind(req.URL); err != nil {
		return err
	}
	a.mu.Lock()
	tok := a.tok
	a.mu.Unlock()
	if tok != nil && !tok.Valid() {
		tok = a.renewExpired(ctx, tok)
	}
	if tok == nil {
		return nil
	}
	return a.present(req, tok)
}

// present writes tok into req: Bearer (AUTHC-14), or DPoP with a fresh
// proof bound to the token and the server's latest nonce (RFC 9449 §7).
func (a *Authorizer) present(req *http.Request, tok *oauth2.Token) error {
	if !strings.EqualFold(tok.Type(), "DPoP") {
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		req.Header.Del("DPoP")
		return nil
	}
	if a.dpop == nil {
		return errors.New("oauth: a DPoP-bound token, and no DPoP key")
	}
	proof, err := a.dpop.proof(req.Method, req.URL, tok.AccessToken, a.nonce(rsNonce(req.URL)))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "DPoP "+tok.AccessToken)
	req.Header.Set("DPoP", proof)
	return nil
}

// renewExpired refreshes an expired token; nil when it cannot be (the
// request then goes out without one).
func (a *Authorizer) renewExpired(ctx context.Context, tok *oauth2.Token) *oauth2.Token {
	a.flow.Lock()
	defer a.flow.Unlock()
	a.mu.Lock()
	cur, key, m := a.tok, a.key, a.server
	a.mu.Unlock()
	if cur != tok { // renewed meanwhile
		if cur != nil && cur.Valid() {
			return cur
		}
		return nil
	}
	if tok.RefreshToken != "" && m != nil {
		if t, err := a.refresh(ctx, m, tok, key.Resource); err == nil {
			if a.use(ctx, key, m, t, true) == nil {
				return t
			}
		}
	}
	_ = a.drop(ctx)
	return nil
}

// Challenge implements client.Authorizer. A 401 runs discovery and obtains
// a token (from the store, by refresh, or by the configured grant); a 403
// with error="insufficient_scope" re-authorizes with more scope, within
// Config.MaxStepUps; any other 403 fails the request with a
// *ForbiddenError. A nil result sends the request again.
func (a *Authorizer) Challenge(ctx context.Context, req *http.Request, resp *http.Response) error {
	if err := a.bind(req.URL); err != nil {
		return err
	}
	ci := readChallenge(resp.Header.Values("WWW-Authenticate"), a.dpop != nil)
	if a.dpop != nil && resp.StatusCode == http.StatusUnauthorized && ci.err == "use_dpop_nonce" {
		// RFC 9449 §9: the server wants its nonce in the proof; once per
		// nonce, so a server that keeps refusing ends in a full flow.
		if n := resp.Header.Get("DPoP-Nonce"); n != "" && a.setNonce(rsNonce(req.URL), n) {
			return nil
		}
	}
	sent := sentToken(req)
	a.flow.Lock()
	defer a.flow.Unlock()
	a.mu.Lock()
	cur := a.tok
	a.mu.Unlock()
	if cur != nil && cur.AccessToken != sent && cur.Valid() {
		return nil // another request renewed the token meanwhile
	}
	if resp.StatusCode == http.StatusForbidden {
		if ci.err != "insufficient_scope" {
			return &ForbiddenError{Code: ci.err, Description: ci.description}
		}
		return a.stepUp(ctx, operation(req), ci, sent)
	}
	return a.unauthorized(ctx, ci, sent)
}

// ObserveResponse implements client.ResponseObserver: a response the
// server accepted resets the operation's step-up budget (AUTHC-16), and a
// DPoP-Nonce it carries replaces the nonce for later proofs (RFC 9449 §9).
func (a *Authorizer) ObserveResponse(req *http.Request, resp *http.Response) {
	if a.dpop != nil {
		if n := resp.Header.Get("DPoP-Nonce"); n != "" {
			a.setNonce(rsNonce(req.URL), n)
		}
	}
	if resp.StatusCode < 400 {
		op := operation(req)
		a.mu.Lock()
		delete(a.stepUps, op)
		a.mu.Unlock()
	}
}

// Credential names the token requests carry now (a digest, not the
// token): private cache entries are keyed by it (CACHE-5).
func (a *Authorizer) Credential() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cred
}

// sentToken is the access token req carried, if any.
func sentToken(req *http.Request) string {
	_, tok, _ := strings.Cut(req.Header.Get("Authorization"), " ")
	return strings.TrimSpace(tok)
}

// operation names what req asks the server to do, for the step-up
// budget: its method and target as mirrored in the headers.
func operation(req *http.Request) string {
	return req.Header.Get("Mcp-Method") + " " + req.Header.Get("Mcp-Name")
}

// rsNonce and asNonce key the DPoP nonces of the MCP server and of an
// authorization server: kept apart even when they share an origin.
func rsNonce(u *url.URL) string { return "rs " + u.Scheme + "://" + u.Host }
func asNonce(u *url.URL) string { return "as " + u.Scheme + "://" + u.Host }

func (a *Authorizer) nonce(key string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.nonces[key]
}

// setNonce records a DPoP nonce and reports whether it is new.
func (a *Authorizer) setNonce(key, n string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.nonces[key] == n {
		return false
	}
	a.nonces[key] = n
	return true
}

// unauthorized answers a 401: the token sent, if any, is forgotten; the
// metadata is read anew (the server may have moved to another
// authorization server, AUTHC-17); then a token comes from the store, a
// refresh (once per refused token, AUTHC-16, AUTHC-19) or the grant.
func (a *Authorizer) unauthorized(ctx context.Context, ci challengeInfo, sent string) error {
	a.mu.Lock()
	ep, prev, prevKey, viaRefresh, requested := a.endpoint, a.tok, a.key, a.viaRefresh, a.requested
	a.mu.Unlock()
	if prev != nil && prev.AccessToken == sent {
		if err := a.drop(ctx); err != nil {
			return err
		}
	}
	prm, err := a.discoverResource(ctx, resourceEndpoint(ep), ci.resourceMetadata)
	if err != nil {
		return err
	}
	m, err := a.pickServer(ctx, prm, prevKey.Issuer)
	if err != nil {
		return err
	}
	key := TokenKey{Issuer: m.Issuer, Resource: prm.Resource}
	if t, err := a.store.Load(ctx, key); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	} else if t != nil && t.AccessToken != sent {
		if t.Valid() {
			return a.use(ctx, key, m, t, false)
		}
		prev, prevKey, viaRefresh = t, key, false
	}
	if prev != nil && prev.RefreshToken != "" && prevKey == key && !viaRefresh {
		if t, err := a.refresh(ctx, m, prev, key.Resource); err == nil {
			return a.use(ctx, key, m, t, true)
		}
	}
	// AUTHC-8 for the first authorization; later ones keep what was asked
	// for before (AUTHC-15).
	scopes := union(requested, selectScopes(ci.scope, prm.ScopesSupported))
	tok, err := a.obtain(ctx, m, prm.Resource, scopes)
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.requested = scopes
	a.mu.Unlock()
	return a.use(ctx, key, m, tok, false)
}

// resourceEndpoint is the endpoint as resource metadata describes it:
// without query.
func resourceEndpoint(ep *url.URL) *url.URL {
	u := *ep
	u.RawQuery, u.ForceQuery = "", false
	return &u
}

// selectScopes is the scope of a first authorization (AUTHC-8): the
// challenge's, else all the resource metadata lists, else none.
func selectScopes(challenged, supported []string) []string {
	if len(challenged) > 0 {
		return challenged
	}
	return union(nil, supported)
}

// pickServer returns the validated metadata of the first authorization
// server listed that has some, the one in use (current) first.
func (a *Authorizer) pickServer(ctx context.Context, prm *resourceMetadata, current string) (*serverMetadata, error) {
	issuers := prm.AuthorizationServers
	if i := slices.Index(issuers, current); i > 0 {
		issuers = append([]string{current}, slices.Delete(slices.Clone(issuers), i, i+1)...)
	}
	var first error
	for _, iss := range issuers {
		m, err := a.discoverServer(ctx, iss)
		if err == nil {
			return m, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// stepUp answers a 403 insufficient_scope: a new authorization for the
// union of the scopes asked for so far and the challenged ones
// (AUTHC-15), at most MaxStepUps times per operation until the server
// accepts it (AUTHC-16).
func (a *Authorizer) stepUp(ctx context.Context, op string, ci challengeInfo, sent string) error {
	a.mu.Lock()
	m, key, n, requested := a.server, a.key, a.stepUps[op], a.requested
	a.mu.Unlock()
	if m == nil { // a token the Authorizer did not issue: start afresh
		return a.unauthorized(ctx, ci, sent)
	}
	if n >= a.maxStepUps {
		return fmt.Errorf("%w: %s still needs scope %q after %d re-authorizations", ErrInsufficientScope, strings.TrimSpace(op), strings.Join(ci.scope, " "), n)
	}
	scopes := union(requested, ci.scope)
	a.mu.Lock()
	a.stepUps[op] = n + 1
	a.requested = scopes
	a.mu.Unlock()
	tok, err := a.obtain(ctx, m, key.Resource, scopes)
	if err != nil {
		return err
	}
	return a.use(ctx, key, m, tok, false)
}

// use makes tok the token requests carry and stores it.
func (a *Authorizer) use(ctx context.Context, key TokenKey, m *serverMetadata, tok *oauth2.Token, viaRefresh bool) error {
	sum := sha256.Sum256([]byte(tok.AccessToken))
	a.mu.Lock()
	a.tok, a.key, a.server, a.viaRefresh = tok, key, m, viaRefresh
	a.cred = "oauth:" + hex.EncodeToString(sum[:16])
	a.mu.Unlock()
	if err := a.store.Save(ctx, key, tok); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	return nil
}

// drop forgets the current token, in the store too.
func (a *Authorizer) drop(ctx context.Context) error {
	a.mu.Lock()
	tok, key := a.tok, a.key
	a.tok, a.cred = nil, ""
	a.mu.Unlock()
	if tok == nil {
		return nil
	}
	if err := a.store.Save(ctx, key, nil); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	return nil
}

var (
	_ client.Authorizer       = (*Authorizer)(nil)
	_ client.ResponseObserver = (*Authorizer)(nil)
)
