package auth

import (
	"errors"
	"net/http"
)

// Error codes of RFC 6750 §3.1 and RFC 9449 §7.1 carried by an *Error and
// sent as the challenge's error parameter.
const (
	// CodeInvalidRequest: the request is malformed (several Authorization
	// headers: status 400), or carries its token in the query string
	// (status 401, see ErrTokenInQuery).
	CodeInvalidRequest = "invalid_request"
	// CodeInvalidToken: the token is expired, revoked, malformed, for
	// another resource or otherwise invalid. Status 401.
	CodeInvalidToken = "invalid_token"
	// CodeInsufficientScope: the token is valid but lacks a scope the
	// operation needs. Status 403.
	CodeInsufficientScope = "insufficient_scope"
	// CodeInvalidDPoPProof: the DPoP proof is missing or invalid. Status 401.
	CodeInvalidDPoPProof = "invalid_dpop_proof"
	// CodeUseDPoPNonce: the DPoP proof lacks the server's current nonce;
	// the client retries with the nonce of the DPoP-Nonce header. Status 401.
	CodeUseDPoPNonce = "use_dpop_nonce"
)

// Causes of a refusal. An *Error wraps exactly one of them (errors.Is
// finds it), possibly with detail.
var (
	// ErrNoCredentials: no Authorization header, or one with a scheme the
	// server does not accept. The challenge carries no error code
	// (RFC 6750 §3.1). Status 401.
	ErrNoCredentials = errors.New("no access token")
	// ErrMalformedRequest: the Authorization or DPoP header is not well
	// formed, or appears more than once. Status 400.
	ErrMalformedRequest = errors.New("malformed authorization request")
	// ErrTokenInQuery: an access_token query parameter; tokens in URIs are
	// refused (AUTHS-3). Status 401, not the 400 RFC 6750 suggests for
	// invalid_request: the request carries no credential the server takes,
	// and the 401 challenge (resource_metadata, scope) is what the client
	// needs to send the token properly.
	ErrTokenInQuery = errors.New("access token in the query string")
	// ErrMalformedToken: the token is not a well-formed signed JWT. Status 401.
	ErrMalformedToken = errors.New("malformed access token")
	// ErrAlgorithm: the token is signed with an algorithm outside the
	// allow-list (alg "none", HMAC, ...). Status 401.
	ErrAlgorithm = errors.New("signature algorithm not allowed")
	// ErrUnknownKey: no key of the issuer's key set fits the token's kid
	// and algorithm, even after a refetch. Status 401.
	ErrUnknownKey = errors.New("unknown signing key")
	// ErrSignature: the signature does not verify. Status 401.
	ErrSignature = errors.New("invalid token signature")
	// ErrIssuer: iss is not the configured issuer (AUTHS-7). Status 401.
	ErrIssuer = errors.New("token from another issuer")
	// ErrAudience: the audience does not contain this server's canonical
	// resource URI, or is missing (AUTHS-8). Status 401.
	ErrAudience = errors.New("token for another audience")
	// ErrExpired: exp is in the past (beyond the leeway), or missing.
	// Status 401.
	ErrExpired = errors.New("token expired")
	// ErrNotYetValid: nbf (or iat) is in the future beyond the leeway.
	// Status 401.
	ErrNotYetValid = errors.New("token not yet valid")
	// ErrTokenType: the JWT is not an access token: its typ says so (a
	// DPoP proof, say), or it carries claims only OpenID Connect ID tokens
	// have (nonce, at_hash, c_hash). Status 401.
	ErrTokenType = errors.New("not an access token")
	// ErrInactive: the introspection endpoint says the token is not active.
	// Status 401.
	ErrInactive = errors.New("token not active")
	// ErrTokenBinding: the token's DPoP binding does not hold: a bound token
	// sent as Bearer, an unbound one sent as DPoP, or a proof signed by
	// another key than cnf.jkt names. Status 401.
	ErrTokenBinding = errors.New("token binding mismatch")
	// ErrDPoPProof: the DPoP proof is missing or invalid (typ, alg,
	// signature, htm, htu, iat, ath, jti). Status 401.
	ErrDPoPProof = errors.New("invalid DPoP proof")
	// ErrDPoPReplay: the DPoP proof's jti was seen before. Status 401.
	ErrDPoPReplay = errors.New("replayed DPoP proof")
	// ErrDPoPNonce: the DPoP proof lacks the current server nonce. Status 401.
	ErrDPoPNonce = errors.New("DPoP nonce required")
	// ErrInsufficientScope: the token lacks a required scope. Status 403.
	ErrInsufficientScope = errors.New("insufficient scope")
	// ErrUnavailable: the key set or the introspection endpoint could not be
	// reached, or the replay cache is full. The token was not judged.
	// Status 503.
	ErrUnavailable = errors.New("token verification unavailable")
)

// Error is a refusal of a request's credentials: the cause (one of the
// Err* values above, via Unwrap), the RFC 6750 / RFC 9449 error code to
// send, and what the challenge needs. Its text never contains the token.
type Error struct {
	// Code is the challenge's error parameter (Code* constants); empty for
	// ErrNoCredentials and ErrUnavailable.
	Code string
	// Description is a short, token-free explanation, sent as
	// error_description.
	Description string
	// Scopes are the scopes the request needs: the challenge's scope
	// parameter. Empty means the ResourceServer's default scopes.
	Scopes []string
	// Scheme is the scheme the client used ("Bearer" or "DPoP"); the
	// challenge of that scheme carries the error. Empty: Bearer.
	Scheme string
	// Nonce is the nonce to send in the DPoP-Nonce header (use_dpop_nonce).
	Nonce string
	// Err is the cause, one of the Err* values, possibly wrapped.
	Err error
}

func (e *Error) Error() string {
	msg := "auth: " + e.Err.Error()
	if e.Description != "" && e.Description != e.Err.Error() {
		msg += ": " + e.Description
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// StatusCode is the HTTP status of the refusal: 400 for invalid_request
// (but 401 for a token in the query string), 403 for insufficient_scope,
// 503 when verification was unavailable, 401 otherwise (AUTHS-6).
func (e *Error) StatusCode() int {
	switch {
	case e.Code == CodeInvalidRequest && !errors.Is(e.Err, ErrTokenInQuery):
		return http.StatusBadRequest
	case e.Code == CodeInsufficientScope:
		return http.StatusForbidden
	case errors.Is(e.Err, ErrUnavailable):
		return http.StatusServiceUnavailable
	}
	return http.StatusUnauthorized
}

// codeOf maps a cause to its error code.
func codeOf(cause error) string {
	switch {
	case errors.Is(cause, ErrNoCredentials), errors.Is(cause, ErrUnavailable):
		return ""
	case errors.Is(cause, ErrMalformedRequest), errors.Is(cause, ErrTokenInQuery):
		return CodeInvalidRequest
	case errors.Is(cause, ErrInsufficientScope):
		return CodeInsufficientScope
	case errors.Is(cause, ErrDPoPProof), errors.Is(cause, ErrDPoPReplay):
		return CodeInvalidDPoPProof
	case errors.Is(cause, ErrDPoPNonce):
		return CodeUseDPoPNonce
	}
	return CodeInvalidToken
}

// fail returns the *Error for cause with description desc.
func fail(cause error, desc string) *Error {
	return &Error{Code: codeOf(cause), Description: desc, Err: cause}
}

// asError returns err as an *Error, wrapping a foreign error (from a
// custom TokenValidator) as invalid_token.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, ErrNoCredentials), errors.Is(err, ErrMalformedRequest), errors.Is(err, ErrTokenInQuery),
		errors.Is(err, ErrInsufficientScope), errors.Is(err, ErrUnavailable),
		errors.Is(err, ErrDPoPProof), errors.Is(err, ErrDPoPReplay), errors.Is(err, ErrDPoPNonce):
		return &Error{Code: codeOf(err), Description: err.Error(), Err: err}
	}
	return &Error{Code: CodeInvalidToken, Description: "the access token is invalid", Err: err}
}
