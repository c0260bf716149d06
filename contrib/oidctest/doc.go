// Package oidctest holds the end-to-end test of mcpgen's authorization
// with a real OpenID provider: the op package of github.com/zitadel/oidc
// runs on 127.0.0.1 and issues the tokens; the MCP client
// (runtime/client with runtime/client/oauth) obtains them and the MCP
// server (runtime/server with runtime/auth) checks them. It is a module
// of its own so that the provider never becomes a dependency of mcpgen.
// See docs/auth-e2e.md; run it with make oidc-e2e, or go test ./... here.
package oidctest
