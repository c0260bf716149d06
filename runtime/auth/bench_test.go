package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"net/http"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

// BenchmarkJWTVerifyCachedJWKS measures token verification with the key
// set already fetched (no network):
//
//   - signature/ES256, signature/RS256: every call parses the JWS,
//     verifies its signature and checks the claims (the token cache is
//     off), i.e. the cost of a token seen for the first time;
//   - cached-token: the same token again, answered from the verified-token
//     cache (the steady state: a client sends one token on every request);
//   - request/cached-token: ResourceServer.Verify on an *http.Request
//     (header parsing, query check, cache hit): what the HTTP transport pays
//     per tools/call;
//   - request/dpop: the same for a DPoP-bound token with a fresh proof per
//     request (proof signature, thumbprint, replay cache);
//   - floor/ES256, floor/RS256: the bare signature check (crypto/ecdsa,
//     crypto/rsa on a precomputed digest), the part no JOSE library avoids.
func BenchmarkJWTVerifyCachedJWKS(b *testing.B) {
	a := newTestAS(b)
	ek := a.addKey("ec", jose.ES256)
	rk := a.addKey("rsa", jose.RS256)
	ctx := context.Background()
	digest := sha256.Sum256([]byte("header.payload"))
	b.Run("floor/ES256", func(b *testing.B) {
		priv := ek.priv.(*ecdsa.PrivateKey)
		sig, err := ecdsa.SignASN1(rand.Reader, priv, digest[:])
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if !ecdsa.VerifyASN1(&priv.PublicKey, digest[:], sig) {
				b.Fatal("verify")
			}
		}
	})
	b.Run("floor/RS256", func(b *testing.B) {
		priv := rk.priv.(*rsa.PrivateKey)
		sig, err := rsa.SignPKCS1v15(rand.Reader, priv, crypto.SHA256, digest[:])
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := rsa.VerifyPKCS1v15(&priv.PublicKey, crypto.SHA256, digest[:], sig); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, alg := range []string{"ES256", "RS256"} {
		kid := map[string]string{"ES256": "ec", "RS256": "rsa"}[alg]
		b.Run("signature/"+alg, func(b *testing.B) {
			v := a.jwtValidator(b, func(c *JWTConfig) { c.CacheSize = -1 })
			if err := v.Refresh(ctx); err != nil {
				b.Fatal(err)
			}
			tok := a.token(kid, a.claims())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.ValidateToken(ctx, tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("cached-token", func(b *testing.B) {
		v := a.jwtValidator(b, nil)
		tok := a.token("ec", a.claims())
		if _, err := v.ValidateToken(ctx, tok); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v.ValidateToken(ctx, tok); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("request/cached-token", func(b *testing.B) {
		rs := resourceServer(b, a.issuer, a.jwtValidator(b, nil), nil)
		r := mcpRequest(SchemeBearer, a.token("ec", a.claims()))
		if _, err := rs.Verify(ctx, r); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := rs.Verify(ctx, r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("request/dpop", func(b *testing.B) {
		d, err := NewDPoPVerifier(DPoPConfig{})
		if err != nil {
			b.Fatal(err)
		}
		rs := resourceServer(b, a.issuer, a.jwtValidator(b, nil), d)
		key := newDPoPKey(b)
		c := a.claims()
		c["cnf"] = map[string]any{"jkt": key.jkt}
		tok := a.token("ec", c)
		// Proofs are made beforehand: signing is the client's cost.
		proofs := make([]*http.Request, 0, 4096)
		for range cap(proofs) {
			proofs = append(proofs, dpopRequest(tok, key.proof(b, http.MethodPost, testResource, tok, nil)))
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i == len(proofs) {
				b.StopTimer()
				for j := range proofs {
					proofs[j] = dpopRequest(tok, key.proof(b, http.MethodPost, testResource, tok, nil))
				}
				i = 0
				b.StartTimer()
			}
			if _, err := rs.Verify(ctx, proofs[i]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
