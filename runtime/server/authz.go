package server

import (
	"errors"
	"slices"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Authorization on the Streamable HTTP transport (HTTPOptions.Auth): every
// request, of either era, is verified before its body is read; tools,
// prompts and resources may require scopes (RequireScopes), checked
// before their handler runs; the principal reaches handlers
// (Request.Principal) and binds requestState and sessions. stdio has no
// authorization (AUTHS-14).

// An ItemOption adjusts the registration of a tool, prompt, resource or
// resource template.
type ItemOption func(*itemOptions)

type itemOptions struct {
	scopes  []string
	replace bool       // Replace
	anyName bool       // AllowAnyName
	task    taskPolicy // RunAsTask (tools only)
}

// Replace lets the registration replace an item registered under the same
// name (a tool or prompt name, a resource URI, a resource template's
// uriTemplate), which keeps its position in its list. Without it, a second
// registration under a name is an error (*DuplicateError).
func Replace() ItemOption {
	return func(o *itemOptions) { o.replace = true }
}

// AllowAnyName lets a tool be registered under a name that breaks TOOL-4
// (a SHOULD of the spec: 1–128 characters of A-Z, a-z, 0-9, _, - and .),
// e.g. by a gateway that re-exports other servers' tools under their own
// names. The name must still be non-empty, valid UTF-8 and free of
// control characters.
func AllowAnyName() ItemOption {
	return func(o *itemOptions) { o.anyName = true }
}

// RequireScopes makes the item need every one of scopes: with
// HTTPOptions.Auth, a caller whose token lacks one gets 403
// insufficient_scope naming them all (AUTHS-5), and its handler does not
// run. Without authorization (stdio, or HTTP without Auth) it has no
// effect.
func RequireScopes(scopes ...string) ItemOption {
	scopes = slices.Clone(scopes)
	return func(o *itemOptions) { o.scopes = append(o.scopes, scopes...) }
}

func applyItemOptions(opts []ItemOption) itemOptions {
	var o itemOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// scopeError refuses a request for too little scope; the HTTP transport
// answers it with 403 and a challenge (auth.ResourceServer.WriteError),
// or, on a stream already open, with the JSON-RPC error.
type scopeError struct {
	err error       // the *auth.Error
	rpc *wire.Error // the answer on an open stream
}

func (e *scopeError) Error() string { return e.rpc.Error() }
func (e *scopeError) Unwrap() error { return e.rpc }

// requiredScopes are the scopes the item a request names needs: the tool
// or prompt of that name, the resource (or template) serving that URI,
// also for a 2025-11-25 subscription to it.
func (s *Server) requiredScopes(method, name string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch method {
	case mcp.MethodCallTool:
		if t, ok := s.tools.get(name); ok {
			return t.scopes
		}
	case mcp.MethodGetPrompt:
		if p, ok := s.prompts.get(name); ok {
			return p.scopes
		}
	case mcp.MethodReadResource, mcp20251125.MethodSubscribe:
		if r, ok := s.resources.get(name); ok {
			return r.scopes
		}
		for _, n := range s.templates.names {
			if t := s.templates.items[n]; t.match.MatchString(name) {
				return t.scopes
			}
		}
	}
	return nil
}

// authorize checks that the caller of ex holds the scopes of the item
// name: nil without authorization.
func (s *Server) authorize(ex *exchange, method, name string) error {
	if ex.authz == nil {
		return nil
	}
	scopes := s.requiredScopes(method, name)
	if len(scopes) == 0 {
		return nil
	}
	if err := ex.authz.RequireScopes(ex.caller, scopes...); err != nil {
		msg := "Forbidden: insufficient scope"
		var ae *auth.Error
		if errors.As(err, &ae) && ae.Description != "" {
			msg = "Forbidden: " + ae.Description
		}
		return &scopeError{err: err, rpc: &wire.Error{Code: wire.CodeInvalidRequest, Message: msg}}
	}
	return nil
}

// Principal returns who the request's access token speaks for, when the
// server checks tokens (HTTPOptions.Auth); nil otherwise. It holds no
// token (AUTHS-9).
func (r *Request) Principal() *auth.Principal { return r.ex.caller }

// callerKey names a verified principal for binding requestState and
// sessions: its issuer and subject.
func callerKey(p *auth.Principal) string {
	return p.Issuer + "\x00" + p.Subject
}
