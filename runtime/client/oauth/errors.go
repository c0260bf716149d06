package oauth

import (
	"errors"
	"fmt"
	"strings"
)

// Errors the Authorizer returns, wrapped with detail; test with errors.Is.
var (
	// ErrResourceMismatch: the Protected Resource Metadata names another
	// resource than the server being called (AUTHC-5).
	ErrResourceMismatch = errors.New("oauth: the protected resource metadata names another resource")
	// ErrIssuerMismatch: authorization server metadata whose issuer is not
	// the identifier it was looked up by (AUTHC-4), or an authorization
	// response whose iss is wrong or missing (AUTHC-13).
	ErrIssuerMismatch = errors.New("oauth: issuer mismatch")
	// ErrPKCEUnsupported: the authorization server does not advertise
	// PKCE with S256 (AUTHC-6).
	ErrPKCEUnsupported = errors.New("oauth: the authorization server does not advertise PKCE S256")
	// ErrInsufficientScope: the server still refuses the token for lack of
	// scope after the allowed step-ups (AUTHC-16).
	ErrInsufficientScope = errors.New("oauth: insufficient scope")
	// ErrNoClientRegistration: no way to obtain a client id at the
	// authorization server (AUTHC-9).
	ErrNoClientRegistration = errors.New("oauth: no client registration for the authorization server")
	// ErrAuthorizationServerChanged: the server moved to an authorization
	// server for which only credentials of another one are configured
	// (AUTHC-17).
	ErrAuthorizationServerChanged = errors.New("oauth: the authorization server changed")
	// ErrStateMismatch: the authorization response does not carry the
	// state the request was sent with (AUTHC-20).
	ErrStateMismatch = errors.New("oauth: authorization response state mismatch")
	// ErrInsecureURL: a plain-http URL on a host other than loopback, with
	// Config.AllowInsecureHTTP unset (AUTHC-18).
	ErrInsecureURL = errors.New("oauth: insecure URL")
	// ErrDiscovery: no Protected Resource Metadata or authorization server
	// metadata could be found.
	ErrDiscovery = errors.New("oauth: discovery failed")
	// ErrUnsupportedGrant: the authorization server does not list the
	// grant the Config asks for.
	ErrUnsupportedGrant = errors.New("oauth: the authorization server does not support the grant")
)

// AuthorizationError is an error answer of the authorization endpoint
// (RFC 6749 §4.1.2.1), reported only once its iss checked out (AUTHC-13).
type AuthorizationError struct {
	Code        string
	Description string
	URI         string
}

func (e *AuthorizationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "oauth: authorization failed: %s", e.Code)
	if e.Description != "" {
		fmt.Fprintf(&b, ": %s", e.Description)
	}
	if e.URI != "" {
		fmt.Fprintf(&b, " (%s)", e.URI)
	}
	return b.String()
}

// RegistrationError is an error answer of a Dynamic Client Registration
// endpoint (RFC 7591 §3.2.2), surfaced as such (AUTHC-10).
type RegistrationError struct {
	Status      int
	Code        string
	Description string
}

func (e *RegistrationError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("oauth: client registration failed: HTTP %d", e.Status)
	}
	if e.Description == "" {
		return fmt.Sprintf("oauth: client registration failed: %s", e.Code)
	}
	return fmt.Sprintf("oauth: client registration failed: %s: %s", e.Code, e.Description)
}

// ForbiddenError is a 403 from the MCP server that is not a scope
// challenge: no new token helps, so the request fails with it.
type ForbiddenError struct {
	Code        string
	Description string
}

func (e *ForbiddenError) Error() string {
	s := "oauth: the server refused the request (403)"
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}
