package auth

import (
	"net/http"
	"net/url"
	"strings"
)

// Authorization schemes.
const (
	SchemeBearer = "Bearer" // RFC 6750
	SchemeDPoP   = "DPoP"   // RFC 9449
)

// maxTokenBytes bounds an access token or a DPoP proof.
const maxTokenBytes = 16 << 10

// Credential is what a request presents: an access token with its scheme
// and, for DPoP, the proof.
type Credential struct {
	// Scheme is SchemeBearer or SchemeDPoP, whatever case the client used.
	Scheme string
	// Token is the access token.
	Token string
	// Proof is the DPoP header's proof JWT; empty for Bearer.
	Proof string
}

// ReadCredential returns the credential of r's Authorization header.
//
// A token is accepted only there (AUTHS-3): an access_token query
// parameter is refused with ErrTokenInQuery, even beside a valid header
// (RFC 6750 §2.3 forbids more than one method). Several Authorization
// headers, a token that is not RFC 6750 b64token syntax and several DPoP
// headers give ErrMalformedRequest; no header, or a scheme other than
// Bearer and DPoP, gives ErrNoCredentials.
func ReadCredential(r *http.Request) (Credential, error) {
	if r.URL != nil && strings.Contains(r.URL.RawQuery, "access_token") {
		if q, err := url.ParseQuery(r.URL.RawQuery); err != nil || q.Has("access_token") {
			return Credential{}, fail(ErrTokenInQuery, "access tokens are accepted only in the Authorization header")
		}
	}
	values := r.Header["Authorization"]
	switch len(values) {
	case 0:
		return Credential{}, fail(ErrNoCredentials, "")
	case 1:
	default:
		return Credential{}, fail(ErrMalformedRequest, "more than one Authorization header")
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok {
		return Credential{}, fail(ErrNoCredentials, "")
	}
	var c Credential
	switch {
	case strings.EqualFold(scheme, SchemeBearer):
		c.Scheme = SchemeBearer
	case strings.EqualFold(scheme, SchemeDPoP):
		c.Scheme = SchemeDPoP
	default:
		return Credential{}, fail(ErrNoCredentials, "")
	}
	c.Token = strings.TrimLeft(token, " ")
	if !isB64Token(c.Token) {
		return Credential{}, &Error{Code: CodeInvalidRequest, Scheme: c.Scheme, Description: "the Authorization header is not " + c.Scheme + " <token>", Err: ErrMalformedRequest}
	}
	if c.Scheme == SchemeDPoP {
		proofs := r.Header["Dpop"]
		if len(proofs) > 1 {
			return Credential{}, &Error{Code: CodeInvalidDPoPProof, Scheme: c.Scheme, Description: "more than one DPoP header", Err: ErrDPoPProof}
		}
		if len(proofs) == 1 {
			c.Proof = proofs[0]
		}
	}
	return c, nil
}

// isB64Token reports whether s is an RFC 6750 §2.1 b64token:
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	if s == "" || len(s) > maxTokenBytes {
		return false
	}
	i := 0
	for i < len(s) && b64TokenChar[s[i]] {
		i++
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}

// b64TokenChar marks the b64token characters before the "=" padding.
var b64TokenChar = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
	}
	return t
}()
