package auth

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/go-faster/jx"
	jose "github.com/go-jose/go-jose/v4"
)

// DPoP defaults (docs/auth-server.md).
const (
	// DefaultProofMaxAge is how old a DPoP proof's iat may be.
	DefaultProofMaxAge = time.Minute
	// DefaultReplayCacheSize bounds the in-memory jti cache.
	DefaultReplayCacheSize = 1 << 17
	// DefaultNoncePeriod is how often NewRotatingNonces changes its nonce.
	DefaultNoncePeriod = 5 * time.Minute
	// maxJTIBytes bounds a proof's jti.
	maxJTIBytes = 256
)

// DPoPConfig configures a DPoPVerifier.
type DPoPConfig struct {
	// Algorithms are the accepted proof algorithms, advertised as
	// dpop_signing_alg_values_supported and in the DPoP challenge's algs.
	// Default: ES256, ES384, ES512, PS256, PS384, PS512, RS256, RS384,
	// RS512 and EdDSA. HMAC and "none" are refused.
	Algorithms []string
	// MaxAge is how old a proof's iat may be (plus Leeway). Default
	// DefaultProofMaxAge.
	MaxAge time.Duration
	// Leeway is the clock skew allowed: iat may be that far in the future,
	// and that much older than MaxAge. Default DefaultLeeway; at most
	// MaxLeeway.
	Leeway time.Duration
	// Required accepts only DPoP-bound tokens: Bearer tokens are refused
	// (dpop_bound_access_tokens_required, RFC 9449 §5.1).
	Required bool
	// Nonces, when set, makes proofs carry a server nonce (RFC 9449 §9):
	// a proof without a valid one gets 401 use_dpop_nonce with a
	// DPoP-Nonce header.
	Nonces NonceSource
	// Replay records proof jti values until the proofs go stale. Default:
	// NewReplayCache(DefaultReplayCacheSize, Now), which is per process;
	// several server instances need a shared one.
	Replay ReplayCache
	// TargetURL is the URL a proof's htu must name for r. Default: in a
	// ResourceServer, the scheme and host of the resource URI plus r's
	// path; used alone (VerifyProof), https (or http without TLS) + r.Host
	// + r's path. Set it behind a proxy that rewrites paths.
	TargetURL func(r *http.Request) string
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// DPoPVerifier checks DPoP proofs (RFC 9449 §4.3): one proof per request,
// typ dpop+jwt, an allowed asymmetric alg, a public jwk that verifies the
// signature, htm and htu naming this request, a fresh iat, ath hashing the
// access token, an unseen jti and, if configured, the server's nonce. It
// is safe for concurrent use.
type DPoPVerifier struct {
	algs     []jose.SignatureAlgorithm
	names    []string
	maxAge   time.Duration
	leeway   time.Duration
	required bool
	nonces   NonceSource
	replay   ReplayCache
	target   func(r *http.Request) string
	now      func() time.Time
}

// dpopAlgorithms is the default proof allow-list, ES256 first.
var dpopAlgorithms = []jose.SignatureAlgorithm{
	jose.ES256, jose.ES384, jose.ES512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.RS256, jose.RS384, jose.RS512,
	jose.EdDSA,
}

// NewDPoPVerifier checks cfg and returns its verifier.
func NewDPoPVerifier(cfg DPoPConfig) (*DPoPVerifier, error) {
	d := &DPoPVerifier{
		maxAge:   durationOr(cfg.MaxAge, DefaultProofMaxAge),
		required: cfg.Required,
		nonces:   cfg.Nonces,
		replay:   cfg.Replay,
		target:   cfg.TargetURL,
		now:      cfg.Now,
	}
	if len(cfg.Algorithms) == 0 {
		d.algs = dpopAlgorithms
	} else {
		var err error
		if d.algs, err = allowedAlgorithms(cfg.Algorithms); err != nil {
			return nil, err
		}
	}
	for _, a := range d.algs {
		d.names = append(d.names, string(a))
	}
	var err error
	if d.leeway, err = leewayOf(cfg.Leeway); err != nil {
		return nil, err
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.replay == nil {
		d.replay = NewReplayCache(DefaultReplayCacheSize, d.now)
	}
	return d, nil
}

// Algorithms returns the accepted proof algorithms.
func (d *DPoPVerifier) Algorithms() []string { return slices.Clone(d.names) }

// Required reports whether only DPoP-bound tokens are accepted.
func (d *DPoPVerifier) Required() bool { return d.required }

// Nonce returns the nonce to send in a DPoP-Nonce header, or "" when the
// verifier uses none.
func (d *DPoPVerifier) Nonce(ctx context.Context) (string, error) {
	if d.nonces == nil {
		return "", nil
	}
	return d.nonces.Nonce(ctx)
}

// requestURL is the default TargetURL of VerifyProof.
func requestURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.EscapedPath()
}

// proofClaims are the claims of a DPoP proof (RFC 9449 §4.2).
type proofClaims struct {
	jti, htm, htu, ath, nonce string
	iat                       int64
	hasIat                    bool
}

func parseProofClaims(b []byte, c *proofClaims) error {
	d := jx.GetDecoder()
	defer jx.PutDecoder(d)
	d.ResetBytes(b)
	if d.Next() != jx.Object {
		return errors.New("claims are not a JSON object")
	}
	return d.ObjBytes(func(d *jx.Decoder, key []byte) error {
		var err error
		switch string(key) {
		case "jti":
			c.jti, err = d.Str()
		case "htm":
			c.htm, err = d.Str()
		case "htu":
			c.htu, err = d.Str()
		case "ath":
			c.ath, err = d.Str()
		case "nonce":
			c.nonce, err = d.Str()
		case "iat":
			c.iat, err = numericDate(d)
			c.hasIat = true
		default:
			err = d.Skip()
		}
		return err
	})
}

// proofError is an invalid_dpop_proof refusal.
func proofError(desc string) *Error {
	return &Error{Code: CodeInvalidDPoPProof, Scheme: SchemeDPoP, Description: desc, Err: ErrDPoPProof}
}

// VerifyProof checks proof, the DPoP header of r presenting accessToken,
// and returns the base64url SHA256 thumbprint of its key (RFC 7638), to
// compare with the token's cnf.jkt. Refusals are *Errors wrapping
// ErrDPoPProof, ErrDPoPReplay, ErrDPoPNonce or ErrUnavailable.
func (d *DPoPVerifier) VerifyProof(ctx context.Context, r *http.Request, proof, accessToken string) (string, error) {
	target := requestURL
	if d.target != nil {
		target = d.target
	}
	return d.verifyProof(ctx, r, proof, accessToken, target(r))
}

// verifyProof is VerifyProof with the URL htu must name.
func (d *DPoPVerifier) verifyProof(ctx context.Context, r *http.Request, proof, accessToken, target string) (string, error) {
	if proof == "" {
		return "", proofError("the request has no DPoP proof")
	}
	if len(proof) > maxTokenBytes {
		return "", proofError("the DPoP proof is too long")
	}
	jws, err := jose.ParseSignedCompact(proof, d.algs)
	if err != nil {
		var alg *jose.ErrUnexpectedSignatureAlgorithm
		if errors.As(err, &alg) {
			return "", proofError("the DPoP proof's algorithm is not accepted")
		}
		return "", proofError("the DPoP proof is not a signed JWT")
	}
	if len(jws.Signatures) != 1 {
		return "", proofError("the DPoP proof is not a signed JWT")
	}
	h := &jws.Signatures[0].Protected
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != "dpop+jwt" {
		return "", proofError("the DPoP proof's typ is not dpop+jwt")
	}
	jwk := h.JSONWebKey
	if jwk == nil || !jwk.Valid() || !jwk.IsPublic() || !keyFits(h.Algorithm, jwk.Key) {
		return "", proofError("the DPoP proof's jwk is not a public key for its algorithm")
	}
	payload, err := jws.Verify(jwk.Key)
	if err != nil {
		return "", proofError("the DPoP proof's signature does not verify")
	}
	var c proofClaims
	if err := parseProofClaims(payload, &c); err != nil {
		return "", proofError("the DPoP proof's claims are malformed")
	}
	if c.htm != r.Method {
		return "", proofError("the DPoP proof's htm does not name this request's method")
	}
	if !sameTarget(c.htu, target) {
		return "", proofError("the DPoP proof's htu does not name this request's URL")
	}
	if d.nonces != nil {
		ok := false
		if c.nonce != "" {
			if ok, err = d.nonces.Valid(ctx, c.nonce); err != nil {
				return "", fail(ErrUnavailable, "the DPoP nonce could not be checked")
			}
		}
		if !ok {
			e := &Error{Code: CodeUseDPoPNonce, Scheme: SchemeDPoP, Description: "the DPoP proof lacks the server's current nonce", Err: ErrDPoPNonce}
			e.Nonce, _ = d.nonces.Nonce(ctx)
			return "", e
		}
	}
	now := d.now()
	lw := int64(d.leeway / time.Second)
	switch {
	case !c.hasIat:
		return "", proofError("the DPoP proof has no iat")
	case c.iat > now.Unix()+lw:
		return "", proofError("the DPoP proof was issued in the future (iat)")
	case c.iat < now.Unix()-int64(d.maxAge/time.Second)-lw:
		return "", proofError("the DPoP proof is too old (iat)")
	}
	if !athMatches(c.ath, accessToken) {
		return "", proofError("the DPoP proof's ath does not hash the access token")
	}
	if c.jti == "" || len(c.jti) > maxJTIBytes {
		return "", proofError("the DPoP proof has no usable jti")
	}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", proofError("the DPoP proof's jwk has no thumbprint")
	}
	jkt := base64.RawURLEncoding.EncodeToString(tp)
	expiry := time.Unix(c.iat, 0).Add(d.maxAge + d.leeway)
	seen, err := d.replay.Seen(ctx, jkt+":"+c.jti, expiry)
	switch {
	case err != nil:
		return "", fail(ErrUnavailable, "the DPoP replay cache is unavailable")
	case seen:
		return "", &Error{Code: CodeInvalidDPoPProof, Scheme: SchemeDPoP, Description: "the DPoP proof was used before (jti)", Err: ErrDPoPReplay}
	}
	return jkt, nil
}

// athMatches reports whether ath is the base64url SHA256 of token
// (RFC 9449 §4.2).
func athMatches(ath, token string) bool {
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(token), len(token)))
	var want [43]byte
	base64.RawURLEncoding.Encode(want[:], sum[:])
	return len(ath) == len(want) && subtle.ConstantTimeCompare([]byte(ath), want[:]) == 1
}

// sameTarget compares a proof's htu with the request's URL, ignoring query
// and fragment, after RFC 3986 §6.2.2 syntax normalisation of scheme, host
// and port (RFC 9449 §4.3 step 9).
func sameTarget(htu, target string) bool {
	if htu == "" {
		return false
	}
	if htu == target {
		return true
	}
	a, err1 := targetForm(htu)
	b, err2 := targetForm(target)
	return err1 == nil && err2 == nil && a == b
}

func targetForm(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	return canonicalURI(u.String(), true)
}

// ReplayCache remembers DPoP proof identifiers (RFC 9449 §11.1).
type ReplayCache interface {
	// Seen records key until expiry and reports whether it was recorded
	// before and has not expired: true means a replay. An error makes the
	// proof be refused (ErrUnavailable).
	Seen(ctx context.Context, key string, expiry time.Time) (bool, error)
}

// NewReplayCache returns an in-memory ReplayCache of at most maxEntries
// keys (DefaultReplayCacheSize when not positive), on the clock now
// (time.Now when nil). When full of unexpired keys it fails closed: Seen
// returns an error until some expire.
func NewReplayCache(maxEntries int, now func() time.Time) ReplayCache {
	if maxEntries <= 0 {
		maxEntries = DefaultReplayCacheSize
	}
	if now == nil {
		now = time.Now
	}
	return &memoryReplay{max: maxEntries, now: now, m: make(map[string]int64)}
}

type memoryReplay struct {
	max       int
	now       func() time.Time
	mu        sync.Mutex
	m         map[string]int64 // key → expiry, unix seconds
	nextSweep int64
}

var errReplayFull = errors.New("auth: DPoP replay cache is full")

func (c *memoryReplay) Seen(_ context.Context, key string, expiry time.Time) (bool, error) {
	now := c.now().Unix()
	c.mu.Lock()
	defer c.mu.Unlock()
	if exp, ok := c.m[key]; ok && exp >= now {
		return true, nil
	}
	if len(c.m) >= c.max || now >= c.nextSweep {
		for k, exp := range c.m {
			if exp < now {
				delete(c.m, k)
			}
		}
		c.nextSweep = now + 60
		if len(c.m) >= c.max {
			return false, errReplayFull
		}
	}
	c.m[key] = expiry.Unix()
	return false, nil
}

// NonceSource issues and checks DPoP server nonces (RFC 9449 §9).
type NonceSource interface {
	// Nonce returns the nonce to hand out now.
	Nonce(ctx context.Context) (string, error)
	// Valid reports whether a proof's nonce is acceptable.
	Valid(ctx context.Context, nonce string) (bool, error)
}

// NewRotatingNonces returns a NonceSource of random nonces that change
// every period (DefaultNoncePeriod when not positive), accepting the
// current and the previous one, on the clock now (time.Now when nil). It
// is per process: instances behind one URL need a shared source.
func NewRotatingNonces(period time.Duration, now func() time.Time) NonceSource {
	if period <= 0 {
		period = DefaultNoncePeriod
	}
	if now == nil {
		now = time.Now
	}
	return &rotatingNonces{period: period, now: now}
}

type rotatingNonces struct {
	period      time.Duration
	now         func() time.Time
	mu          sync.Mutex
	cur, prev   string
	rotated     time.Time
	initialised bool
}

func (n *rotatingNonces) rotate() error {
	now := n.now()
	if n.initialised && now.Sub(n.rotated) < n.period {
		return nil
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("auth: nonce: %w", err)
	}
	n.prev, n.cur = n.cur, base64.RawURLEncoding.EncodeToString(b[:])
	if n.initialised && now.Sub(n.rotated) >= 2*n.period {
		n.prev = "" // the previous nonce is older than one period
	}
	n.rotated, n.initialised = now, true
	return nil
}

func (n *rotatingNonces) Nonce(context.Context) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.rotate(); err != nil {
		return "", err
	}
	return n.cur, nil
}

func (n *rotatingNonces) Valid(_ context.Context, nonce string) (bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.rotate(); err != nil {
		return false, err
	}
	return nonce != "" && (nonce == n.cur || nonce == n.prev), nil
}
