package server

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// A request of an initialize-based session, after its transport found the
// session:
//
//	lookup the method in the legacy revision's table (mcp20251125.Revision)
//	decode and validate its params as that revision's type (-32602)
//	the server capability that gates it (-32601)
//	session methods (ping, logging/setLevel, resources/subscribe and
//	  unsubscribe) are answered by the session
//	any other method crosses its bridge: the params become the modern
//	  params, with the session's version, capabilities, client info and
//	  log level in _meta, and go down the modern pipeline to the same
//	  handlers; the result comes back as the legacy revision's result
//
// Handlers that ask the client for input get real requests on the
// session's stream (session.ask) instead of a multi round-trip result.

// isHandshake reports an initialize request of an initialize-based
// client: one without the per-request _meta of the stateless revision. An
// initialize that carries modern markers is an unknown method like any
// other (-32601).
func isHandshake(m *jsonrpc.Message) bool {
	return m.Method == mcp20251125.MethodInitialize && !modernMeta(m.Params)
}

// modernMeta reports params carrying the stateless revision's protocol
// version in _meta: a modern request, whatever transport state it meets.
// Params that do not even contain the key are not scanned.
func modernMeta(params wire.Raw) bool {
	return bytes.Contains(params, modernVersionKey) && peekParams("", params).hasVersion
}

var modernVersionKey = []byte(mcp.MetaKeyProtocolVersion)

// handshake answers initialize (LLIFE-2): it negotiates the version
// (LVER-2) and opens the session, which the transport keeps.
func (s *Server) handshake(m *jsonrpc.Message, principal string) (*session, wireimpl.Codec, error) {
	var p mcp20251125.InitializeRequestParams
	if err := decodeParams(m.Params, &p, true); err != nil {
		return nil, nil, wireimpl.InvalidParams(err)
	}
	version, ok := s.negotiate(p.ProtocolVersion)
	if !ok {
		return nil, nil, s.noHandshake(p.ProtocolVersion)
	}
	sess, err := s.newSession(&p, version, principal)
	if err != nil {
		return nil, nil, err
	}
	res := &mcp20251125.InitializeResult{ProtocolVersion: version}
	if err := reshapeInto(s.advertised(), modern.shapes["ServerCapabilities"], legacy.shapes["ServerCapabilities"], &res.Capabilities); err != nil {
		sess.end()
		return nil, nil, err
	}
	if err := reshapeInto(&s.info, modern.shapes["Implementation"], legacy.shapes["Implementation"], &res.ServerInfo); err != nil {
		sess.end()
		return nil, nil, err
	}
	if s.opts.Instructions != "" {
		res.Instructions = wire.Some(s.opts.Instructions)
	}
	return sess, res, nil
}

// noHandshake answers initialize on a server that serves no
// initialize-based revision. The answer names the versions served, in
// data and in the message a legacy client may only be able to show
// (COMPAT-10); -32022 also tells a dual-era client it reached a modern
// server (digest §3.3).
func (s *Server) noHandshake(requested string) *wire.Error {
	err := s.unsupportedVersion(requested)
	err.Message += "; this server supports " + strings.Join(s.opts.Versions, ", ") + " and has no initialize handshake"
	return err
}

// decodeParams decodes and validates params into v; required says the
// message must carry them.
func decodeParams(params wire.Raw, v wireimpl.Codec, required bool) error {
	if params == nil {
		if required {
			return &wire.ValidationError{Violations: []wire.Violation{{Message: "required member is missing"}}}
		}
		return nil
	}
	return decodeAnswer(params, v)
}

// serveLegacy answers one request of a session (see the top of this file).
func (s *Server) serveLegacy(ctx context.Context, ex *exchange, m *jsonrpc.Message) (wireimpl.Codec, error) {
	sess := ex.sess
	old := legacy.rev.Lookup(m.Method)
	if old == nil || old.Kind != wireimpl.Request || old.Direction&wireimpl.ClientToServer == 0 {
		return nil, wireimpl.MethodNotFound(m.Method)
	}
	params := old.NewParams()
	if err := decodeParams(m.Params, params, old.ParamsRequired); err != nil {
		return nil, wireimpl.InvalidParams(err)
	}
	if old.ServerCapability != "" && !s.advertised().Has(old.ServerCapability) {
		return nil, notSupported(m.Method, old.ServerCapability)
	}
	switch p := params.(type) {
	case *mcp20251125.InitializeRequestParams:
		return nil, &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: this connection is initialized already"}
	case *mcp20251125.SetLevelRequestParams: // LLOG-2
		sess.mu.Lock()
		sess.level = wire.Some(p.Level)
		sess.setMeta()
		sess.mu.Unlock()
		return &mcp20251125.Result{}, nil
	case *mcp20251125.SubscribeRequestParams: // LSUB-1
		if err := s.authorize(ex, m.Method, p.URI); err != nil {
			return nil, err
		}
		sess.subscribe(p.URI, true)
		return &mcp20251125.Result{}, nil
	case *mcp20251125.UnsubscribeRequestParams: // LSUB-3
		sess.subscribe(p.URI, false)
		return &mcp20251125.Result{}, nil
	}
	if m.Method == mcp20251125.MethodPing { // LPING-1: exactly {}
		return &mcp20251125.Result{}, nil
	}
	b := bridgeOf(m.Method)
	if b == nil {
		return nil, wireimpl.MethodNotFound(m.Method) // tasks/*: not served
	}
	raw, err := b.upParams(m.Params, *sess.meta.Load())
	if err != nil {
		return nil, wireimpl.InvalidParams(err)
	}
	in := &ex.in
	s.read(in, b.now, &jsonrpc.Message{Method: m.Method, Params: raw})
	result, err := s.dispatch(ctx, ex, in)
	if err != nil {
		return nil, err
	}
	out, dropped, err := b.downResult(result)
	if len(dropped) > 0 {
		s.log.Warn("parts of an answer cannot be expressed in "+sess.version+" and were left out", "method", m.Method, "dropped", dropped)
	}
	return out, err
}

// legacyError is the answer to a legacy client for err (rpc: the answer a
// modern client would get). A condition both revisions name gets the
// legacy code (ResourceNotFound is -32002, LERR-2); a code only the modern
// revision defines (-32020, -32021, -32022) means nothing to a legacy
// client (LERR-6) and becomes -32603, keeping its message and data.
func legacyError(err error, rpc *wire.Error) *wire.Error {
	var c *conditionError
	if errors.As(err, &c) {
		if code, ok := legacy.rev.ErrorCodes[c.name]; ok {
			return &wire.Error{Code: code, Message: rpc.Message, Data: rpc.Data}
		}
	}
	if modernOnlyCode(rpc.Code) {
		return &wire.Error{Code: wire.CodeInternalError, Message: rpc.Message, Data: rpc.Data}
	}
	return rpc
}

// modernOnlyCode reports a code the modern revision defines and neither
// JSON-RPC nor the legacy revision does.
func modernOnlyCode(code int64) bool {
	switch code {
	case wire.CodeParseError, wire.CodeInvalidRequest, wire.CodeMethodNotFound, wire.CodeInvalidParams, wire.CodeInternalError:
		return false
	}
	in := func(codes map[string]int64) bool {
		for _, c := range codes {
			if c == code {
				return true
			}
		}
		return false
	}
	return in(modern.rev.ErrorCodes) && !in(legacy.rev.ErrorCodes)
}
