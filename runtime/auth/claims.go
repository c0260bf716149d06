package auth

import (
	"errors"
	"math"
	"strings"
	"time"

	"github.com/go-faster/jx"
)

// claims are the members of a JWT access token (RFC 9068 §2.2) or an
// introspection response (RFC 7662 §2.2) that verification reads.
type claims struct {
	iss, sub, clientID, azp, jti, scope string
	scp                                 []string
	aud                                 []string
	exp, nbf, iat                       int64
	hasExp, hasNbf, hasIat              bool
	jkt                                 string
	active, hasActive                   bool
	// idToken: a claim OpenID Connect defines for ID tokens only
	// (nonce, at_hash, c_hash) is present.
	idToken bool
}

// parseClaims decodes the claim set b into c; unknown members are
// skipped. Wrongly typed members are errors: a token whose aud is a
// number has no audience this server could match.
func parseClaims(b []byte, c *claims) error {
	d := jx.GetDecoder()
	defer jx.PutDecoder(d)
	d.ResetBytes(b)
	if d.Next() != jx.Object {
		return errors.New("claims are not a JSON object")
	}
	err := d.ObjBytes(func(d *jx.Decoder, key []byte) error {
		var err error
		switch string(key) {
		case "iss":
			c.iss, err = d.Str()
		case "sub":
			c.sub, err = d.Str()
		case "client_id":
			c.clientID, err = d.Str()
		case "azp":
			c.azp, err = d.Str()
		case "jti":
			c.jti, err = d.Str()
		case "scope":
			c.scope, err = d.Str()
		case "scp":
			c.scp, err = strOrStrings(d)
		case "aud":
			c.aud, err = strOrStrings(d)
		case "exp":
			c.exp, err = numericDate(d)
			c.hasExp = true
		case "nbf":
			c.nbf, err = numericDate(d)
			c.hasNbf = true
		case "iat":
			c.iat, err = numericDate(d)
			c.hasIat = true
		case "active":
			c.active, err = d.Bool()
			c.hasActive = true
		case "nonce", "at_hash", "c_hash":
			c.idToken = true
			err = d.Skip()
		case "cnf":
			err = d.ObjBytes(func(d *jx.Decoder, key []byte) error {
				if string(key) != "jkt" {
					return d.Skip()
				}
				var err error
				c.jkt, err = d.Str()
				return err
			})
		default:
			err = d.Skip()
		}
		if err != nil {
			return errors.New("claim " + string(key) + ": " + err.Error())
		}
		return nil
	})
	return err
}

// strOrStrings reads a string or an array of strings.
func strOrStrings(d *jx.Decoder) ([]string, error) {
	switch d.Next() {
	case jx.String:
		s, err := d.Str()
		if err != nil {
			return nil, err
		}
		if s == "" {
			return nil, nil
		}
		return []string{s}, nil
	case jx.Array:
		var out []string
		err := d.Arr(func(d *jx.Decoder) error {
			s, err := d.Str()
			out = append(out, s)
			return err
		})
		return out, err
	case jx.Null:
		return nil, d.Null()
	}
	return nil, errors.New("neither a string nor an array of strings")
}

// numericDate reads an RFC 7519 NumericDate (seconds, possibly
// fractional), truncated to whole seconds.
func numericDate(d *jx.Decoder) (int64, error) {
	if d.Next() != jx.Number {
		return 0, errors.New("not a number")
	}
	f, err := d.Float64()
	if err != nil {
		return 0, err
	}
	if math.IsNaN(f) || f < 0 || f > 1<<40 {
		return 0, errors.New("out of range")
	}
	return int64(f), nil
}

// principal builds the Principal of verified claims.
func (c *claims) principal(raw []byte) *Principal {
	p := &Principal{
		Subject:      c.sub,
		Issuer:       c.iss,
		ClientID:     c.clientID,
		Audience:     c.aud,
		TokenID:      c.jti,
		Confirmation: c.jkt,
		Claims:       raw,
	}
	if p.ClientID == "" {
		p.ClientID = c.azp
	}
	if c.scope != "" {
		p.Scopes = strings.Fields(c.scope)
	} else {
		p.Scopes = c.scp
	}
	if c.hasExp {
		p.Expiry = time.Unix(c.exp, 0)
	}
	if c.hasIat {
		p.IssuedAt = time.Unix(c.iat, 0)
	}
	return p
}

// checkTimes applies exp, nbf and iat with leeway at now.
func (c *claims) checkTimes(now time.Time, leeway time.Duration, requireExp bool) *Error {
	sec := now.Unix()
	lw := int64(leeway / time.Second)
	switch {
	case !c.hasExp && requireExp:
		return fail(ErrExpired, "the token has no expiry (exp)")
	case c.hasExp && sec > c.exp+lw:
		return fail(ErrExpired, "the token has expired")
	case c.hasNbf && sec < c.nbf-lw:
		return fail(ErrNotYetValid, "the token is not valid yet (nbf)")
	case c.hasIat && sec < c.iat-lw:
		return fail(ErrNotYetValid, "the token was issued in the future (iat)")
	}
	return nil
}

// audienceMatches reports whether aud contains the canonical resource
// URI, comparing canonical forms (RFC 8707; upper-case scheme and host
// are accepted). No prefix or origin matching: a token for
// https://host is not one for https://host/mcp.
func audienceMatches(aud []string, resource, canonical string) bool {
	for _, a := range aud {
		if a == resource || a == canonical {
			return true
		}
	}
	for _, a := range aud {
		if c, err := canonicalURI(a, true); err == nil && c == canonical {
			return true
		}
	}
	return false
}
