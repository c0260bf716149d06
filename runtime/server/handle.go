package server

import (
	"context"
	"errors"
	"runtime/debug"
	"strings"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// One request, after its transport has read the JSON-RPC envelope:
//
//	lookup the method in the revision's table (mcp.Revision)
//	decode its params once, into the method's generated type
//	transport checks (HTTP: the mirrored headers against the decoded body)
//	protocol version (-32022), then schema validation (-32602)
//	the server capability that gates the method (-32601)
//	middleware, then the generated dispatch to the handler
//
// Nothing downstream decodes the params again: handlers get the value.

// incoming is a request's params as the server read them, for the checks
// that precede the handler.
type incoming struct {
	method    string
	desc      *wireimpl.Method // nil for a method the revision does not define
	params    wireimpl.Codec   // decoded (possibly partly, when decodeErr is set)
	hasParams bool             // the message carried params
	// decodeErr is the params' decoding failure; the version and name below
	// then come from a syntax-only look at the params.
	decodeErr  error
	version    string // the request's protocol version, when readable
	hasVersion bool
	name       string // the member mirrored into Mcp-Name, when readable
	hasName    bool
	ext        bool // a method of the tasks extension (tasks_methods.go)
}

// verifier is a transport's own check of a request against what the
// server read from its body (HTTP: the request metadata headers).
type verifier interface {
	verify(in *incoming) error
}

// paramVerifier is a transport's check of a tool call's arguments against
// what it carried beside them (HTTP: Mcp-Param-* headers).
type paramVerifier interface {
	verifyParams(params []mcpheader.Param, args *arguments) error
}

// errCancelled marks a request whose client went away: nothing is sent
// for it (CAN-3, HCAN-1).
var errCancelled = errors.New("server: request cancelled")

// read decodes m's params for desc into in, keeping the outcome for the
// checks.
func (s *Server) read(in *incoming, desc *wireimpl.Method, m *jsonrpc.Message) {
	*in = incoming{method: m.Method, desc: desc, params: desc.NewParams(), hasParams: m.Params != nil}
	if m.Params != nil {
		d := wireimpl.GetDecoder(m.Params)
		err := in.params.DecodeJSON(d)
		if err == nil {
			err = d.Finish()
		}
		wireimpl.PutDecoder(d)
		in.decodeErr = err
	}
	if in.decodeErr != nil {
		// The params did not decode: read what the checks need, checking
		// only JSON syntax (the decode error is answered after them).
		pk := peekParams(desc.NameMember, m.Params)
		in.version, in.hasVersion, in.name, in.hasName = pk.version, pk.hasVersion, pk.name, pk.hasName
		return
	}
	if rm, ok := in.params.(interface{ RequestMeta() *mcp.RequestMetaObject }); ok && m.Params != nil {
		if meta := rm.RequestMeta(); meta != nil && metaHas(in.params, meta) {
			in.version, in.hasVersion = meta.ProtocolVersion, true
		}
	}
	if desc.MirroredName != nil && m.Params != nil {
		in.name, in.hasName = desc.MirroredName(in.params), true
	}
}

// metaHas reports whether the decoded _meta carried a protocol version:
// a required member that was absent decodes to "" and is reported by
// validation, not compared with a header.
func metaHas(params wireimpl.Codec, meta *mcp.RequestMetaObject) bool {
	return meta.ProtocolVersion != "" || !missingVersion(params)
}

// missingVersion reports whether params lack _meta's protocol version; it
// validates only when the version is empty, which valid requests never are.
func missingVersion(params wireimpl.Codec) bool {
	var ve *wire.ValidationError
	if errors.As(params.Validate(), &ve) {
		for _, v := range ve.Violations {
			if v.Path == "_meta" || v.Path == `_meta["`+mcp.MetaKeyProtocolVersion+`"]` {
				return true
			}
		}
	}
	return false
}

// serve answers one request after the transport read it: the result to
// send, or the error to answer with. errCancelled means: send nothing.
func (s *Server) serve(ctx context.Context, ex *exchange, m *jsonrpc.Message) (wireimpl.Codec, error) {
	if ex.sess != nil {
		return s.serveLegacy(ctx, ex, m)
	}
	if isHandshake(m) {
		// Transports that open sessions answer initialize before serve.
		return nil, s.noHandshake(topVersion(m.Params))
	}
	desc := s.rev.Lookup(m.Method)
	if desc != nil && (desc.Kind != wireimpl.Request || desc.Direction&wireimpl.ClientToServer == 0) {
		desc = nil // not a request a client sends
	}
	ext := false
	if desc == nil && s.tasks != nil {
		desc = s.tasks.lookup(m.Method)
		ext = desc != nil
	}
	in := &ex.in
	if desc != nil {
		s.read(in, desc, m)
		if in.ext = ext; ext {
			readVersion(in, m.Params)
		}
	} else {
		pk := peekParams("", m.Params)
		*in = incoming{method: m.Method, version: pk.version, hasVersion: pk.hasVersion}
	}
	if v, ok := ex.out.(verifier); ok {
		if err := v.verify(in); err != nil {
			return nil, err
		}
	}
	if in.hasVersion && !s.supports(in.version) {
		return nil, s.unsupportedVersion(in.version)
	}
	if desc == nil {
		return nil, s.unknownMethod(m.Method)
	}
	return s.dispatch(ctx, ex, in)
}

// dispatch runs the checks that follow the transport's (validation, the
// capability gate) and then the handler, for a request of either era.
func (s *Server) dispatch(ctx context.Context, ex *exchange, in *incoming) (result wireimpl.Codec, err error) {
	desc := in.desc
	if in.ext {
		if err := s.tasks.check(in); err != nil {
			return nil, err
		}
	} else if err := s.check(in); err != nil {
		return nil, err
	}
	if desc.ServerCapability != "" && !s.advertised().Has(desc.ServerCapability) {
		return nil, notSupported(in.method, desc.ServerCapability)
	}
	if in.hasName {
		if err := s.authorize(ex, in.method, in.name); err != nil {
			return nil, err
		}
	}
	ctx = withExchange(ctx, ex)
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("handler panicked", "method", in.method, "panic", r, "stack", string(debug.Stack()))
			result, err = nil, &wire.Error{Code: wire.CodeInternalError, Message: "Internal error"}
		}
	}()
	result, err = s.call(ctx, in.method, in.params)
	if err != nil && ctx.Err() != nil {
		return nil, errCancelled
	}
	if err == nil && desc.Cacheable && !s.pages.shared(result) {
		s.stampCacheHints(result) // a shared page has its hints already
	}
	if err == nil {
		if err := s.checkResult(in.method, in.name, result); err != nil {
			return nil, err // nothing invalid leaves (check.go)
		}
	}
	return result, err
}

// topVersion is the protocolVersion member of initialize params.
func topVersion(params wire.Raw) string {
	v, _ := topString(params, "protocolVersion")
	return v
}

// topString reads the top-level string member key of params.
func topString(params wire.Raw, key string) (string, bool) {
	if params == nil {
		return "", false
	}
	d := wireimpl.GetDecoder(params)
	defer wireimpl.PutDecoder(d)
	v, found, err := d.PeekMember(key)
	return v, found && err == nil
}

// cacheable is a result carrying caching hints (CACHE-1).
type cacheable interface {
	SetCacheHints(cacheScope mcp.CacheScope, ttlMs int64)
}

// stampCacheHints sets the caching hints of a result of a cacheable method
// (the union member that is set, for methods with several result types;
// an input-required result has none).
func (s *Server) stampCacheHints(result wireimpl.Codec) {
	var v any = result
	if u, ok := v.(interface{ Member() any }); ok {
		v = u.Member()
	}
	if c, ok := v.(cacheable); ok {
		c.SetCacheHints(s.opts.CacheScope, s.ttl())
	}
}

// check turns a params decoding or validation failure into -32602. A fault
// in params themselves or in their _meta is a malformed request (HTTP 400,
// META-2); other faults are the handler's kind of invalid params.
func (s *Server) check(in *incoming) error {
	err := in.decodeErr
	if err == nil && !in.hasParams && in.desc.ParamsRequired {
		err = &wire.ValidationError{Violations: []wire.Violation{{Message: "required member is missing"}}}
	}
	if err == nil {
		err = in.params.Validate()
	}
	if err == nil {
		return nil
	}
	rpc := wireimpl.InvalidParams(err)
	if metaFault(err) {
		return &statusError{rpc: rpc, status: 400}
	}
	return rpc
}

// metaFault reports a failure located at params or inside params._meta.
func metaFault(err error) bool {
	var ve *wire.ValidationError
	var de *wire.DecodeError
	var path string
	switch {
	case errors.As(err, &ve) && len(ve.Violations) > 0:
		path = ve.Violations[0].Path
	case errors.As(err, &de):
		path = de.Path
	}
	return path == "" || path == "_meta" || strings.HasPrefix(path, "_meta.") || strings.HasPrefix(path, "_meta[")
}

// statusError is a JSON-RPC error whose HTTP status the spec fixes beyond
// what its code says (META-2: a malformed _meta is 400).
type statusError struct {
	rpc    *wire.Error
	status int
}

func (e *statusError) Error() string { return e.rpc.Error() }
func (e *statusError) Unwrap() error { return e.rpc }

// respond serves m and writes its whole response into e: the result, or
// the error response, whose error it then returns too (HTTP derives its
// status from it). errCancelled means nothing is to be sent.
func (s *Server) respond(ctx context.Context, ex *exchange, m *jsonrpc.Message, e *jx.Encoder) (error, error) {
	result, err := s.serve(ctx, ex, m)
	switch {
	case errors.Is(err, errCancelled):
		return nil, errCancelled
	case err != nil:
		rpc := s.toRPCError(m.Method, err)
		if ex.sess != nil {
			rpc = legacyError(err, rpc)
		}
		jsonrpc.WriteError(e, m.ID, rpc)
		if se := (*statusError)(nil); errors.As(err, &se) {
			return se, nil
		}
		if se := (*scopeError)(nil); errors.As(err, &se) {
			return se, nil
		}
		return rpc, nil
	}
	e.ObjStart()
	e.FieldStart("jsonrpc")
	e.RawStr(`"2.0"`)
	e.FieldStart("id")
	m.ID.EncodeJSON(e)
	e.FieldStart("result")
	s.pages.encode(e, result)
	e.ObjEnd()
	return nil, nil
}

// toRPCError turns a handler error into the JSON-RPC error to send. Errors
// that are not *wire.Error values are logged and answered with a bare
// -32603, so internals do not leak to the client.
func (s *Server) toRPCError(method string, err error) *wire.Error {
	var rpc *wire.Error
	if errors.As(err, &rpc) {
		return rpc
	}
	s.log.Error("request failed", "method", method, "error", err)
	return &wire.Error{Code: wire.CodeInternalError, Message: "Internal error"}
}

// call runs the middleware chain around the generated dispatch.
func (s *Server) call(ctx context.Context, method string, params wireimpl.Codec) (wireimpl.Codec, error) {
	if s.chain == nil {
		return s.dispatchRequest(ctx, method, params)
	}
	res, err := s.chain(ctx, method, params)
	if err != nil {
		return nil, err
	}
	c, ok := res.(wireimpl.Codec)
	if !ok || c == nil {
		return nil, wireimpl.NilResult(method)
	}
	return c, nil
}

// dispatchRequest is the innermost handler: the tasks extension's
// requests and the calls of task tools (tasks_methods.go), else the
// generated dispatch.
func (s *Server) dispatchRequest(ctx context.Context, method string, params wireimpl.Codec) (wireimpl.Codec, error) {
	if s.tasks != nil {
		if res, err, ok := s.tasks.dispatch(ctx, method, params); ok {
			return res, err
		}
	}
	return mcp.DispatchServer(ctx, handler{s}, method, params)
}

// peeked is what a syntax-only look at params finds (used when params do
// not decode, so that transport checks still see the body's values): the
// protocol version and the member mirrored into Mcp-Name.
type peeked struct {
	version    string
	hasVersion bool
	name       string
	hasName    bool
}

// peekParams reads those members in one pass, checking only JSON syntax
// on the way.
func peekParams(nameKey string, params wire.Raw) peeked {
	var pk peeked
	if params == nil {
		return pk
	}
	d := wireimpl.GetDecoder(params)
	defer wireimpl.PutDecoder(d)
	_ = d.Obj(func(k []byte) error {
		switch {
		case string(k) == "_meta" && d.Next() == wire.KindObject:
			return d.Obj(func(k []byte) error {
				if string(k) == mcp.MetaKeyProtocolVersion && d.Next() == wire.KindString {
					v, err := d.Str()
					pk.version, pk.hasVersion = v, err == nil
					return err
				}
				return d.Pass()
			})
		case nameKey != "" && string(k) == nameKey && d.Next() == wire.KindString:
			v, err := d.Str()
			pk.name, pk.hasName = v, err == nil
			return err
		}
		return d.Pass()
	})
	return pk
}
