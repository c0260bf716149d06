// Package auth makes an MCP server an OAuth 2.1 resource server (the
// MCP authorization spec, rules AUTHS-*): it verifies the access token of
// every HTTP request, checks scopes, answers refusals with the
// WWW-Authenticate challenges clients act on, and publishes the
// Protected Resource Metadata (RFC 9728) that leads clients to the
// authorization server.
//
// A ResourceServer ties the parts together:
//
//   - a TokenValidator checks the token itself: JWTValidator for JWT
//     access tokens (RFC 9068) signed with keys from the issuer's JWKS,
//     IntrospectionValidator for opaque tokens (RFC 7662), or your own.
//     Both insist on the audience being this server's canonical resource
//     URI (RFC 8707, AUTHS-8) and keep verified tokens in a small cache
//     keyed by token digest;
//   - an optional DPoPVerifier accepts DPoP-bound tokens (RFC 9449): the
//     proof must name this request, be fresh, hash the token, be signed
//     by the key the token is bound to and not be replayed;
//   - Verify (the TokenVerifier the HTTP transport calls) returns the
//     request's Principal or an *Error whose cause errors.Is finds
//     (ErrExpired, ErrAudience, ErrTokenInQuery, ...);
//   - RequireScopes, WriteError and Protect turn refusals into 400, 401
//     and 403 answers; MetadataHandler serves the metadata at the
//     well-known paths.
//
// Tokens are read from the Authorization header only; a Principal holds
// no token and nothing here forwards one, except to the configured
// introspection endpoint (AUTHS-9). See docs/auth-server.md.
package auth
