package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Defaults and bounds of the validators' time and cache policies
// (docs/auth-server.md).
const (
	// DefaultLeeway is the clock skew allowed on exp, nbf and iat.
	DefaultLeeway = 30 * time.Second
	// MaxLeeway bounds a configured leeway.
	MaxLeeway = 5 * time.Minute
	// DefaultMinRefreshInterval is the least time between two key set
	// fetches triggered by unknown key ids.
	DefaultMinRefreshInterval = 10 * time.Second
	// DefaultMaxKeySetAge is how long a fetched key set is used before it
	// is fetched again.
	DefaultMaxKeySetAge = time.Hour
	// DefaultCacheSize is how many verified tokens a validator remembers.
	DefaultCacheSize = 4096
	// maxCacheLifetime bounds how long a verified JWT is remembered, even
	// when it expires later.
	maxCacheLifetime = 5 * time.Minute
	// fetchTimeout bounds one metadata, key set or introspection request.
	fetchTimeout = 10 * time.Second
)

// asymmetricAlgorithms are the JWS algorithms a validator may accept.
// Symmetric (HS256...) and "none" are never accepted: a resource server
// holds no secret shared with the authorization server, and an HMAC
// "signed" with a public key proves nothing.
var asymmetricAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// JWTConfig configures a JWTValidator.
type JWTConfig struct {
	// Issuer is the authorization server's issuer identifier; a token's
	// iss must equal it byte for byte (AUTHS-7). Required.
	Issuer string
	// Resource is this server's canonical resource URI (RFC 8707), the
	// ProtectedResourceMetadata.Resource. A token's aud must contain it
	// (AUTHS-8); there is no way to turn this off. Required.
	Resource string
	// JWKSURL is the issuer's key set. Empty: jwks_uri from the issuer's
	// metadata (RFC 8414, then OpenID Connect Discovery), whose issuer
	// must equal Issuer.
	JWKSURL string
	// Algorithms are the accepted JWS algorithms. Default: RS256/384/512,
	// PS256/384/512, ES256/384/512 and EdDSA. HMAC and "none" are refused.
	Algorithms []string
	// Leeway is the clock skew allowed on exp, nbf and iat. Default
	// DefaultLeeway; at most MaxLeeway.
	Leeway time.Duration
	// RequireTyp makes the JWT typ header mandatory as "at+jwt" (RFC 9068
	// §2.1). A typ of "dpop+jwt" is refused either way.
	RequireTyp bool
	// MinRefreshInterval is the least time between two key set fetches:
	// a token with an unknown kid triggers a refetch at most this often.
	// Default DefaultMinRefreshInterval.
	MinRefreshInterval time.Duration
	// MaxKeySetAge is how long a key set is used before it is refetched.
	// If the refetch fails the old keys stay in use. Default
	// DefaultMaxKeySetAge.
	MaxKeySetAge time.Duration
	// CacheSize is how many verified tokens are remembered (by SHA256
	// digest, never in clear, AUTHS-11), each until it expires and for at
	// most five minutes. Default DefaultCacheSize; negative disables.
	CacheSize int
	// HTTPClient fetches metadata and keys. Default: a client with a 10 s
	// timeout.
	HTTPClient *http.Client
	// AllowInsecureHTTP accepts plain http issuer and key set URLs on
	// non-loopback hosts (AUTHS-12). Loopback is always allowed.
	AllowInsecureHTTP bool
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// JWTValidator validates JWT access tokens (RFC 9068) signed by one
// issuer: algorithm allow-list, key from the issuer's JWKS (cached,
// refetched on an unknown kid, rate-limited), signature, iss, aud, exp,
// nbf. It is safe for concurrent use.
type JWTValidator struct {
	issuer, resource, canonical string
	algs                        []jose.SignatureAlgorithm
	leeway                      time.Duration
	requireTyp                  bool
	now                         func() time.Time
	keys                        *keySet
	cache                       *tokenCache
}

// NewJWTValidator checks cfg and returns its validator. Keys are fetched
// on first use; call Refresh to fetch them now.
func NewJWTValidator(cfg JWTConfig) (*JWTValidator, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("auth: JWTConfig.Issuer is required")
	}
	if err := checkHTTPSURL(cfg.Issuer, cfg.AllowInsecureHTTP); err != nil {
		return nil, fmt.Errorf("auth: issuer %q: %w", cfg.Issuer, err)
	}
	canonical, err := canonicalURI(cfg.Resource, cfg.AllowInsecureHTTP)
	if err != nil {
		return nil, fmt.Errorf("auth: JWTConfig.Resource: %w", err)
	}
	if cfg.JWKSURL != "" {
		if err := checkHTTPSURL(cfg.JWKSURL, cfg.AllowInsecureHTTP); err != nil {
			return nil, fmt.Errorf("auth: jwks_uri %q: %w", cfg.JWKSURL, err)
		}
	}
	algs, err := allowedAlgorithms(cfg.Algorithms)
	if err != nil {
		return nil, err
	}
	leeway, err := leewayOf(cfg.Leeway)
	if err != nil {
		return nil, err
	}
	v := &JWTValidator{
		issuer:     cfg.Issuer,
		resource:   cfg.Resource,
		canonical:  canonical,
		algs:       algs,
		leeway:     leeway,
		requireTyp: cfg.RequireTyp,
		now:        cfg.Now,
		cache:      newTokenCache(cfg.CacheSize),
	}
	if v.now == nil {
		v.now = time.Now
	}
	v.keys = &keySet{
		issuer:        cfg.Issuer,
		uri:           cfg.JWKSURL,
		client:        httpClient(cfg.HTTPClient),
		minInterval:   durationOr(cfg.MinRefreshInterval, DefaultMinRefreshInterval),
		maxAge:        durationOr(cfg.MaxKeySetAge, DefaultMaxKeySetAge),
		allowInsecure: cfg.AllowInsecureHTTP,
		onChange:      v.cache.clear,
	}
	return v, nil
}

// Issuers returns the one issuer whose tokens v accepts.
func (v *JWTValidator) Issuers() []string { return []string{v.issuer} }

// Refresh fetches the key set now (discovering jwks_uri first when it
// was not configured), regardless of the refresh rate limit.
func (v *JWTValidator) Refresh(ctx context.Context) error {
	return v.keys.fetch(ctx, v.now())
}

// ValidateToken validates token and returns its Principal, or an *Error
// wrapping ErrMalformedToken (also for a token without sub),
// ErrAlgorithm, ErrTokenType (also for an OpenID Connect ID token: one
// with a nonce, at_hash or c_hash claim), ErrUnknownKey,
// ErrSignature, ErrIssuer, ErrAudience, ErrExpired, ErrNotYetValid or
// ErrUnavailable.
func (v *JWTValidator) ValidateToken(ctx context.Context, token string) (*Principal, error) {
	now := v.now()
	digest := tokenDigest(token)
	if p := v.cache.get(digest, now); p != nil {
		return p, nil
	}
	if len(token) > maxTokenBytes {
		return nil, fail(ErrMalformedToken, "the token is too long")
	}
	jws, err := jose.ParseSignedCompact(token, v.algs)
	if err != nil {
		var alg *jose.ErrUnexpectedSignatureAlgorithm
		if errors.As(err, &alg) {
			return nil, fail(ErrAlgorithm, "the token's signature algorithm is not accepted")
		}
		return nil, fail(ErrMalformedToken, "the token is not a signed JWT")
	}
	if len(jws.Signatures) != 1 {
		return nil, fail(ErrMalformedToken, "the token is not a signed JWT")
	}
	h := &jws.Signatures[0].Protected
	typ, _ := h.ExtraHeaders[jose.HeaderType].(string)
	switch {
	case typ == "dpop+jwt":
		return nil, fail(ErrTokenType, "a DPoP proof is not an access token")
	case v.requireTyp && typ != "at+jwt" && typ != "application/at+jwt":
		return nil, fail(ErrTokenType, "the token is not typed at+jwt")
	}
	var buf [4]any
	keys, err := v.keys.lookup(ctx, h.KeyID, h.Algorithm, now, buf[:0])
	if err != nil {
		return nil, err
	}
	var payload []byte
	for _, k := range keys {
		if payload, err = jws.Verify(k); err == nil {
			break
		}
	}
	if payload == nil {
		return nil, fail(ErrSignature, "the token's signature does not verify")
	}
	var c claims
	if err := parseClaims(payload, &c); err != nil {
		return nil, fail(ErrMalformedToken, "the token's claims are malformed")
	}
	if c.iss != v.issuer {
		return nil, fail(ErrIssuer, "the token was not issued by this server's authorization server")
	}
	if c.idToken {
		// Providers that do not type their access tokens at+jwt sign ID
		// tokens with the same key, and some give them the same aud:
		// claims only ID tokens carry tell them apart (RFC 8725 §3.12).
		return nil, fail(ErrTokenType, "an OpenID Connect ID token is not an access token")
	}
	if c.sub == "" {
		return nil, fail(ErrMalformedToken, "the token has no subject") // RFC 9068 §2.2; sessions and requestState are bound to it
	}
	if len(c.aud) == 0 {
		return nil, fail(ErrAudience, "the token has no audience")
	}
	if !audienceMatches(c.aud, v.resource, v.canonical) {
		return nil, fail(ErrAudience, "the token was not issued for this resource")
	}
	if e := c.checkTimes(now, v.leeway, true); e != nil {
		return nil, e
	}
	p := c.principal(payload)
	until := min(c.exp+int64(v.leeway/time.Second), now.Add(maxCacheLifetime).Unix())
	v.cache.put(digest, p, until, now)
	return p, nil
}

// allowedAlgorithms turns configured names into the allow-list, refusing
// symmetric algorithms and "none".
func allowedAlgorithms(names []string) ([]jose.SignatureAlgorithm, error) {
	if len(names) == 0 {
		return asymmetricAlgorithms, nil
	}
	out := make([]jose.SignatureAlgorithm, 0, len(names))
	for _, n := range names {
		a := jose.SignatureAlgorithm(n)
		if !slices.Contains(asymmetricAlgorithms, a) {
			return nil, fmt.Errorf("auth: algorithm %q is not accepted: only asymmetric JWS algorithms are (no HMAC, no none)", n)
		}
		out = append(out, a)
	}
	return out, nil
}

func leewayOf(d time.Duration) (time.Duration, error) {
	switch {
	case d == 0:
		return DefaultLeeway, nil
	case d < 0 || d > MaxLeeway:
		return 0, fmt.Errorf("auth: leeway %v is outside (0, %v]", d, MaxLeeway)
	}
	return d, nil
}

func durationOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func httpClient(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return &http.Client{Timeout: fetchTimeout}
}

// keyFits reports whether key is the right type for alg: RSA of at least
// 2048 bits for RS* and PS*, ECDSA on the algorithm's curve for ES*,
// Ed25519 for EdDSA.
func keyFits(alg string, key any) bool {
	switch jose.SignatureAlgorithm(alg) {
	case jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512:
		k, ok := key.(*rsa.PublicKey)
		return ok && k.N.BitLen() >= 2048
	case jose.ES256:
		k, ok := key.(*ecdsa.PublicKey)
		return ok && k.Curve == elliptic.P256()
	case jose.ES384:
		k, ok := key.(*ecdsa.PublicKey)
		return ok && k.Curve == elliptic.P384()
	case jose.ES512:
		k, ok := key.(*ecdsa.PublicKey)
		return ok && k.Curve == elliptic.P521()
	case jose.EdDSA:
		_, ok := key.(ed25519.PublicKey)
		return ok
	}
	return false
}
