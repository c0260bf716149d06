package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// maxDocumentBytes bounds a metadata document, key set or introspection
// response.
const maxDocumentBytes = 1 << 20

// publicKey is one usable key of a key set.
type publicKey struct {
	kid, alg string
	key      any // *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey
}

// keySet is an issuer's JWKS, fetched lazily and refetched when a token
// names an unknown kid (at most once per minInterval) or when it is older
// than maxAge.
type keySet struct {
	issuer        string
	client        *http.Client
	minInterval   time.Duration
	maxAge        time.Duration
	allowInsecure bool
	onChange      func()

	mu      sync.RWMutex
	keys    []publicKey
	fetched time.Time // last successful fetch; zero before the first

	fetchMu     sync.Mutex
	uri         string // configured or discovered jwks_uri (under fetchMu)
	lastAttempt time.Time
}

// lookup returns the keys that may have signed a token with kid and alg,
// appending to dst: one for a known kid, every fitting key for a token
// without kid. An unknown kid or a stale set triggers a refetch, within
// the rate limit.
func (ks *keySet) lookup(ctx context.Context, kid, alg string, now time.Time, dst []any) ([]any, error) {
	ks.mu.RLock()
	out := ks.match(kid, alg, dst)
	fresh := !ks.fetched.IsZero() && now.Sub(ks.fetched) < ks.maxAge
	ks.mu.RUnlock()
	if len(out) > 0 && fresh {
		return out, nil
	}
	ferr := ks.refresh(ctx, now)
	ks.mu.RLock()
	out = ks.match(kid, alg, dst)
	never := ks.fetched.IsZero()
	ks.mu.RUnlock()
	switch {
	case len(out) > 0:
		return out, nil
	case never:
		desc := "the authorization server's keys are unavailable"
		if ferr != nil {
			desc += ": " + ferr.Error()
		}
		return nil, fail(ErrUnavailable, desc)
	}
	return nil, fail(ErrUnknownKey, "the token's signing key is not in the authorization server's key set")
}

// match appends the keys fitting kid and alg to dst. Call with mu held.
func (ks *keySet) match(kid, alg string, dst []any) []any {
	for i := range ks.keys {
		k := &ks.keys[i]
		if kid != "" && k.kid != kid || k.alg != "" && k.alg != alg || !keyFits(alg, k.key) {
			continue
		}
		dst = append(dst, k.key)
		if kid != "" || len(dst) == cap(dst) {
			break
		}
	}
	return dst
}

// refresh fetches the set unless a fetch was attempted less than
// minInterval ago. It reports the fetch's error.
func (ks *keySet) refresh(ctx context.Context, now time.Time) error {
	ks.fetchMu.Lock()
	defer ks.fetchMu.Unlock()
	if !ks.lastAttempt.IsZero() && now.Sub(ks.lastAttempt) < ks.minInterval {
		return nil
	}
	return ks.fetchLocked(ctx, now)
}

// fetch fetches the set now, ignoring the rate limit.
func (ks *keySet) fetch(ctx context.Context, now time.Time) error {
	ks.fetchMu.Lock()
	defer ks.fetchMu.Unlock()
	return ks.fetchLocked(ctx, now)
}

func (ks *keySet) fetchLocked(ctx context.Context, now time.Time) error {
	ks.lastAttempt = now
	// A request that gives up must not abort a fetch others wait for, nor
	// spend the rate limit on nothing.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	if ks.uri == "" {
		md, err := discoverMetadata(ctx, ks.client, ks.issuer)
		if err != nil {
			return err
		}
		if md.JWKSURI == "" {
			return fmt.Errorf("the metadata of %s has no jwks_uri", ks.issuer)
		}
		if err := checkHTTPSURL(md.JWKSURI, ks.allowInsecure); err != nil {
			return fmt.Errorf("jwks_uri %q: %w", md.JWKSURI, err)
		}
		ks.uri = md.JWKSURI
	}
	body, err := getJSON(ctx, ks.client, ks.uri)
	if err != nil {
		return err
	}
	keys, err := parseKeySet(body)
	if err != nil {
		return fmt.Errorf("key set %s: %w", ks.uri, err)
	}
	ks.mu.Lock()
	ks.keys, ks.fetched = keys, now
	ks.mu.Unlock()
	if ks.onChange != nil {
		ks.onChange()
	}
	return nil
}

// parseKeySet returns the usable signature keys of a JWKS document.
// Keys that do not parse, symmetric keys, private keys (a key set must
// not publish them) and keys for encryption are left out.
func parseKeySet(body []byte) ([]publicKey, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, err
	}
	var out []publicKey
	for _, raw := range doc.Keys {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(raw); err != nil || !k.Valid() || !k.IsPublic() {
			continue
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		switch k.Key.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
			out = append(out, publicKey{kid: k.KeyID, alg: k.Algorithm, key: k.Key})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no usable signature key")
	}
	return out, nil
}

// asMetadata is the part of RFC 8414 / OpenID Connect Discovery metadata
// the validators use.
type asMetadata struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
}

// discoverMetadata fetches issuer's metadata from the RFC 8414 §3.1 and
// OpenID Connect Discovery locations in the order MCP clients use
// (AUTHC-3) and checks that its issuer equals issuer (RFC 8414 §3.3); a
// mismatch ends the search.
func discoverMetadata(ctx context.Context, client *http.Client, issuer string) (*asMetadata, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil, err
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	candidates := []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
	}
	if path != "" {
		candidates = append(candidates, origin+path+"/.well-known/openid-configuration")
	}
	var errs []error
	for _, c := range candidates {
		body, err := getJSON(ctx, client, c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var md asMetadata
		if err := json.Unmarshal(body, &md); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c, err))
			continue
		}
		if md.Issuer != issuer {
			return nil, fmt.Errorf("%s names issuer %q, not %q (RFC 8414 §3.3)", c, md.Issuer, issuer)
		}
		return &md, nil
	}
	return nil, fmt.Errorf("no metadata for issuer %s: %w", issuer, errors.Join(errs...))
}

// getJSON GETs a JSON document of at most maxDocumentBytes; any status
// but 200 is an error.
func getJSON(ctx context.Context, client *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return readLimited(resp.Body)
}

func readLimited(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, maxDocumentBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxDocumentBytes {
		return nil, errors.New("document larger than 1 MiB")
	}
	return body, nil
}
