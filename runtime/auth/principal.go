package auth

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/go-faster/jx"
)

// Principal is who a verified access token speaks for. It holds no token:
// nothing downstream of verification can forward one (AUTHS-9).
//
// A Principal may be shared between requests presenting the same token
// (the validators cache them): treat it as read-only.
type Principal struct {
	// Subject is the sub claim (the resource owner, or the client itself
	// for client_credentials tokens).
	Subject string
	// Issuer is the iss claim: the authorization server that issued the
	// token.
	Issuer string
	// ClientID is the client_id claim (azp when client_id is absent).
	ClientID string
	// Scopes are the granted scopes: the space-separated scope claim, or
	// the scp array some servers send instead.
	Scopes []string
	// Audience is the aud claim; it contains this server's resource URI.
	Audience []string
	// Expiry is the exp claim; zero when the token has none (introspection
	// may omit it).
	Expiry time.Time
	// IssuedAt is the iat claim; zero when absent.
	IssuedAt time.Time
	// TokenID is the jti claim; empty when absent.
	TokenID string
	// Confirmation is the DPoP key thumbprint the token is bound to
	// (cnf.jkt, RFC 9449 §6), base64url; empty for a bearer token. When set,
	// the request carried a valid proof signed with that key.
	Confirmation string
	// Claims is the verified claim set as JSON: the JWT payload or the
	// introspection response. Read it with Claim.
	Claims json.RawMessage
}

// HasScope reports whether scope is among the granted scopes, compared
// exactly. ResourceServer.RequireScopes also honours scope hierarchies.
func (p *Principal) HasScope(scope string) bool {
	return p != nil && slices.Contains(p.Scopes, scope)
}

// Claim decodes the top-level claim name into dst (as encoding/json
// would) and reports whether it was present.
func (p *Principal) Claim(name string, dst any) (bool, error) {
	if p == nil || len(p.Claims) == 0 {
		return false, nil
	}
	var raw []byte
	d := jx.DecodeBytes(p.Claims)
	err := d.ObjBytes(func(d *jx.Decoder, key []byte) error {
		if raw != nil || string(key) != name {
			return d.Skip()
		}
		r, err := d.Raw()
		raw = slices.Clone(r)
		return err
	})
	if err != nil || raw == nil {
		return false, err
	}
	return true, json.Unmarshal(raw, dst)
}

type principalKey struct{}

// WithPrincipal returns a copy of ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFromContext returns the Principal WithPrincipal put into ctx
// (ResourceServer.Protect does so for the handlers it wraps).
func PrincipalFromContext(ctx context.Context) (*Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(*Principal)
	return p, ok && p != nil
}
