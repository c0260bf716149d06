package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultIntrospectionCacheTTL is how long an introspection answer is
// reused when the token expires later (or does not say when).
const DefaultIntrospectionCacheTTL = time.Minute

// IntrospectionConfig configures an IntrospectionValidator.
type IntrospectionConfig struct {
	// Endpoint is the authorization server's introspection endpoint
	// (RFC 7662 §2). Required. The token is sent there and nowhere else:
	// redirects are not followed.
	Endpoint string
	// Resource is this server's canonical resource URI; the introspected
	// aud must contain it (AUTHS-8). Required.
	Resource string
	// Issuer, when set, must equal the response's iss when it has one, and
	// is what Issuers reports.
	Issuer string
	// ClientID and ClientSecret authenticate this server to the endpoint
	// with HTTP Basic (client_secret_basic, RFC 7662 §2.1).
	ClientID, ClientSecret string
	// Authorize, when set, authenticates the introspection request
	// instead (a bearer token of this server's own, a signed assertion);
	// mTLS goes through HTTPClient.
	Authorize func(req *http.Request) error
	// HTTPClient sends the requests. Default: a client with a 10 s timeout.
	// Its redirect policy is replaced by "never follow".
	HTTPClient *http.Client
	// CacheTTL is how long an active answer is reused; never past the
	// token's exp. Default DefaultIntrospectionCacheTTL; negative disables
	// the cache.
	CacheTTL time.Duration
	// CacheSize bounds the cache. Default DefaultCacheSize.
	CacheSize int
	// Leeway is the clock skew allowed on exp and nbf. Default
	// DefaultLeeway; at most MaxLeeway.
	Leeway time.Duration
	// AllowInsecureHTTP accepts a plain http endpoint on a non-loopback
	// host (AUTHS-12).
	AllowInsecureHTTP bool
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// IntrospectionValidator validates opaque access tokens by asking the
// authorization server (RFC 7662), caching active answers by token digest
// until the token's exp (and at most CacheTTL). Inactive answers are not
// cached. It is safe for concurrent use.
type IntrospectionValidator struct {
	cfg       IntrospectionConfig
	canonical string
	client    *http.Client
	leeway    time.Duration
	ttl       time.Duration
	cache     *tokenCache
}

// NewIntrospectionValidator checks cfg and returns its validator.
func NewIntrospectionValidator(cfg IntrospectionConfig) (*IntrospectionValidator, error) {
	if err := checkHTTPSURL(cfg.Endpoint, cfg.AllowInsecureHTTP); err != nil {
		return nil, fmt.Errorf("auth: introspection endpoint %q: %w", cfg.Endpoint, err)
	}
	canonical, err := canonicalURI(cfg.Resource, cfg.AllowInsecureHTTP)
	if err != nil {
		return nil, fmt.Errorf("auth: IntrospectionConfig.Resource: %w", err)
	}
	leeway, err := leewayOf(cfg.Leeway)
	if err != nil {
		return nil, err
	}
	client := *httpClient(cfg.HTTPClient)
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	v := &IntrospectionValidator{cfg: cfg, canonical: canonical, client: &client, leeway: leeway, ttl: durationOr(cfg.CacheTTL, DefaultIntrospectionCacheTTL)}
	if cfg.CacheTTL >= 0 {
		v.cache = newTokenCache(cfg.CacheSize)
	}
	if v.cfg.Now == nil {
		v.cfg.Now = time.Now
	}
	return v, nil
}

// Issuers returns the configured Issuer, if any.
func (v *IntrospectionValidator) Issuers() []string {
	if v.cfg.Issuer == "" {
		return nil
	}
	return []string{v.cfg.Issuer}
}

// ValidateToken asks the introspection endpoint about token (or reuses a
// cached answer) and returns its Principal, or an *Error wrapping
// ErrInactive, ErrIssuer, ErrAudience, ErrExpired, ErrNotYetValid or
// ErrUnavailable.
func (v *IntrospectionValidator) ValidateToken(ctx context.Context, token string) (*Principal, error) {
	now := v.cfg.Now()
	d := tokenDigest(token)
	if p := v.cache.get(d, now); p != nil {
		return p, nil
	}
	body, err := v.introspect(ctx, token)
	if err != nil {
		return nil, fail(ErrUnavailable, "token introspection failed: "+err.Error())
	}
	var c claims
	if err := parseClaims(body, &c); err != nil || !c.hasActive {
		return nil, fail(ErrUnavailable, "the introspection response is malformed")
	}
	if !c.active {
		return nil, fail(ErrInactive, "the token is not active")
	}
	if v.cfg.Issuer != "" && c.iss != "" && c.iss != v.cfg.Issuer {
		return nil, fail(ErrIssuer, "the token was not issued by this server's authorization server")
	}
	if len(c.aud) == 0 {
		return nil, fail(ErrAudience, "the token has no audience")
	}
	if !audienceMatches(c.aud, v.cfg.Resource, v.canonical) {
		return nil, fail(ErrAudience, "the token was not issued for this resource")
	}
	if e := c.checkTimes(now, v.leeway, false); e != nil {
		return nil, e
	}
	p := c.principal(body)
	until := now.Add(v.ttl).Unix()
	if c.hasExp {
		until = min(until, c.exp)
	}
	v.cache.put(d, p, until, now)
	return p, nil
}

// introspect POSTs token to the endpoint and returns the 200 response.
func (v *IntrospectionValidator) introspect(ctx context.Context, token string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	form := "token=" + url.QueryEscape(token) + "&token_type_hint=access_token"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.cfg.Endpoint, strings.NewReader(form))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if v.cfg.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(v.cfg.ClientID), url.QueryEscape(v.cfg.ClientSecret))
	}
	if v.cfg.Authorize != nil {
		if err := v.cfg.Authorize(req); err != nil {
			return nil, err
		}
	}
	resp, err := v.client.Do(req)
	if err != nil {
		// The error names the endpoint only: url.Error carries no body.
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, ue.Err
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", v.cfg.Endpoint, resp.Status)
	}
	return readLimited(resp.Body)
}
