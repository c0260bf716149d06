package oauth

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
	"github.com/go-jose/go-jose/v4/jwt"
)

// newSigner returns a JWS signer for key with alg, or the key's first
// algorithm when alg is empty (ES256 for a P256 key, RS256 for RSA,
// EdDSA for Ed25519).
func newSigner(key crypto.Signer, alg jose.SignatureAlgorithm, opts *jose.SignerOptions) (jose.Signer, jose.SignatureAlgorithm, error) {
	op := cryptosigner.Opaque(key)
	if alg == "" {
		algs := op.Algs()
		if len(algs) == 0 {
			return nil, "", fmt.Errorf("oauth: unsupported key type %T", key.Public())
		}
		alg = algs[0]
	} else if !slices.Contains(op.Algs(), alg) {
		return nil, "", fmt.Errorf("oauth: a %T key cannot sign %s", key.Public(), alg)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: op}, opts)
	if err != nil {
		return nil, "", fmt.Errorf("oauth: %w", err)
	}
	return s, alg, nil
}

// clientAssertion is a private_key_jwt client authentication assertion
// (RFC 7523 §2.2 and §3): iss and sub the client id, aud the
// authorization server, a unique jti, a short lifetime.
func clientAssertion(s jose.Signer, clientID, audience string) (string, error) {
	now := time.Now()
	claims := jwt.Claims{
		Issuer:   clientID,
		Subject:  clientID,
		Audience: jwt.Audience{audience},
		IssuedAt: jwt.NewNumericDate(now),
		Expiry:   jwt.NewNumericDate(now.Add(2 * time.Minute)),
		ID:       rand.Text(),
	}
	return jwt.Signed(s).Claims(claims).Serialize()
}

// dpopKey makes DPoP proofs (RFC 9449 §4) with one key pair, the public
// half embedded in each proof's header.
type dpopKey struct {
	signer jose.Signer
	alg    jose.SignatureAlgorithm
}

func newDPoPKey(key crypto.Signer) (*dpopKey, error) {
	s, alg, err := newSigner(key, "", (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		return nil, err
	}
	return &dpopKey{signer: s, alg: alg}, nil
}

// dpopClaims are a proof's claims (RFC 9449 §4.2).
type dpopClaims struct {
	ID       string `json:"jti"`
	Method   string `json:"htm"`
	URI      string `json:"htu"`
	IssuedAt int64  `json:"iat"`
	ATH      string `json:"ath,omitempty"`
	Nonce    string `json:"nonce,omitempty"`
}

// proof returns a fresh proof for one request: method and URI (without
// query and fragment), the access token's hash when one is presented,
// the server's nonce when it gave one.
func (k *dpopKey) proof(method string, u *url.URL, accessToken, nonce string) (string, error) {
	htu := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	c := dpopClaims{ID: rand.Text(), Method: method, URI: htu.String(), IssuedAt: time.Now().Unix(), Nonce: nonce}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		c.ATH = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return jwt.Signed(k.signer).Claims(c).Serialize()
}

// dpopTransport adds a DPoP proof to each token request and answers the
// authorization server's use_dpop_nonce error by sending the request once
// more with the nonce it supplied (RFC 9449 §8). Nonces are kept per
// authorization server origin (asNonce).
type dpopTransport struct {
	a    *Authorizer
	base http.RoundTripper
}

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := asNonce(req.URL)
	for attempt := 0; ; attempt++ {
		r := req.Clone(req.Context())
		if attempt > 0 {
			if req.GetBody == nil {
				return nil, fmt.Errorf("oauth: cannot resend the token request with a DPoP nonce")
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		nonce := t.a.nonce(key)
		proof, err := t.a.dpop.proof(r.Method, r.URL, "", nonce)
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", proof)
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := resp.Header.Get("DPoP-Nonce")
		if fresh == "" {
			return resp, nil
		}
		t.a.setNonce(key, fresh)
		if attempt > 0 || fresh == nonce || resp.StatusCode != http.StatusBadRequest {
			return resp, nil
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error != "use_dpop_nonce" {
			resp.Body = io.NopCloser(bytes.NewReader(body))
			return resp, nil
		}
	}
}
