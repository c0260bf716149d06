package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/textproto"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// errCancelled marks a request whose client went away: nothing is sent
// for it (CAN-3, HCAN-1).
var errCancelled = errors.New("server: request cancelled")

// serve answers one request (after the transport's own checks) by writing
// the result into e, or returns the error to answer with. errCancelled
// means: send nothing.
func (s *Server) serve(ctx context.Context, ex *exchange, m *jsonrpc.Message, e *jx.Encoder) (err error) {
	if legacyInitialize(m) {
		return s.legacyInitialize(m.Params)
	}
	if !ex.peeked {
		ex.peek, ex.peeked = peekParams(m.Method, m.Params), true
	}
	if ex.peek.hasVersion && !s.supports(ex.peek.version) {
		return s.unsupportedVersion(ex.peek.version)
	}
	ctx = withExchange(ctx, ex)
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("handler panicked", "method", m.Method, "panic", r, "stack", string(debug.Stack()))
			err = &wire.Error{Code: wire.CodeInternalError, Message: "Internal error"}
		}
	}()
	err = mcp.DispatchServer(ctx, handler{s}, m.Method, m.Params, e)
	if err != nil && ctx.Err() != nil {
		return errCancelled
	}
	return err
}

// respond serves m and writes its whole response into e: the result, or
// the error response, whose error it then returns too (HTTP derives its
// status from it). errCancelled means nothing is to be sent.
func (s *Server) respond(ctx context.Context, ex *exchange, m *jsonrpc.Message, e *jx.Encoder) (*wire.Error, error) {
	e.ObjStart()
	e.FieldStart("jsonrpc")
	e.RawStr(`"2.0"`)
	e.FieldStart("id")
	m.ID.EncodeJSON(e)
	e.FieldStart("result")
	err := s.serve(ctx, ex, m, e)
	switch {
	case errors.Is(err, errCancelled):
		return nil, errCancelled
	case err != nil:
		rpc := s.toRPCError(m.Method, err)
		e.Reset()
		jsonrpc.WriteError(e, m.ID, rpc)
		return rpc, nil
	}
	e.ObjEnd()
	return nil, nil
}

// toRPCError turns a handler error into the JSON-RPC error to send. Errors
// that are not *wire.Error are logged and answered with a bare -32603, so
// internals do not leak to the client.
func (s *Server) toRPCError(method string, err error) *wire.Error {
	var rpc *wire.Error
	if errors.As(err, &rpc) {
		return rpc
	}
	s.log.Error("request failed", "method", method, "error", err)
	return &wire.Error{Code: wire.CodeInternalError, Message: "Internal error"}
}

func (s *Server) unsupportedVersion(requested string) *wire.Error {
	return wire.NewError(mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version: "+requested, func(e *jx.Encoder) {
		e.ObjStart()
		e.FieldStart("supported")
		e.ArrStart()
		for _, v := range s.opts.Versions {
			e.Str(v)
		}
		e.ArrEnd()
		e.FieldStart("requested")
		e.Str(requested)
		e.ObjEnd()
	})
}

// legacyInitialize reports an initialize request from a pre-2026 client:
// one without the per-request _meta of this revision. An initialize that
// carries modern markers is an unknown method like any other (-32601).
func legacyInitialize(m *jsonrpc.Message) bool {
	if m.Method != "initialize" {
		return false
	}
	return !peekParams(m.Method, m.Params).hasVersion
}

// legacyInitialize answers the initialize request of a pre-2026 client.
// There is no handshake in this revision, so the answer names the versions
// served, in data and in the message a legacy client may only be able to
// show (COMPAT-10); -32022 also tells a dual-era client it reached a
// modern server (digest §3.3).
func (s *Server) legacyInitialize(params wire.Raw) *wire.Error {
	requested, _ := topString(params, "protocolVersion")
	err := s.unsupportedVersion(requested)
	err.Message += "; this server supports " + strings.Join(s.opts.Versions, ", ") + " and has no initialize handshake"
	return err
}

// peeked is what the server reads from a request's params before
// decoding them: the protocol version (for -32022 and the header check),
// the name or URI mirrored into Mcp-Name, and whether _meta opts into
// progress or log notifications (which need an SSE response).
type peeked struct {
	version    string
	hasVersion bool
	name       string
	hasName    bool
	notify     bool
}

// nameMember is the params member a method mirrors into Mcp-Name.
func nameMember(method string) string {
	switch method {
	case mcp.MethodCallTool, mcp.MethodGetPrompt:
		return "name"
	case mcp.MethodReadResource:
		return "uri"
	}
	return ""
}

// peekParams reads those members in one pass, checking only JSON syntax
// on the way: params are validated in full when they are decoded.
func peekParams(method string, params wire.Raw) peeked {
	var pk peeked
	if params == nil {
		return pk
	}
	nameKey := nameMember(method)
	d := wireimpl.GetDecoder(params)
	defer wireimpl.PutDecoder(d)
	_ = d.Obj(func(k []byte) error {
		switch {
		case string(k) == "_meta" && d.Next() == wire.KindObject:
			return d.Obj(func(k []byte) error {
				switch string(k) {
				case "io.modelcontextprotocol/protocolVersion":
					if d.Next() == wire.KindString {
						v, err := d.Str()
						pk.version, pk.hasVersion = v, err == nil
						return err
					}
				case "progressToken", "io.modelcontextprotocol/logLevel":
					pk.notify = true
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

func (s *Server) resultMeta() *mcp.ResultMetaObject {
	if s.opts.OmitServerInfo {
		return nil
	}
	return &mcp.ResultMetaObject{ServerInfo: &s.info}
}

func (s *Server) ttl() int64 { return s.opts.CacheTTL.Milliseconds() }

// cursors are opaque to clients (PAG-2); here they encode an offset.
func encodeCursor(offset int) wire.Opt[string] {
	if offset < 0 {
		return wire.Opt[string]{}
	}
	return wire.Some(base64.RawURLEncoding.EncodeToString([]byte("o" + strconv.Itoa(offset))))
}

var errBadCursor = &wire.Error{Code: wire.CodeInvalidParams, Message: "Invalid params: invalid cursor"}

func decodeCursor(c wire.Opt[string]) (int, error) {
	if !c.Set {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(b) < 2 || b[0] != 'o' {
		return 0, errBadCursor
	}
	n, err := strconv.Atoi(string(b[1:]))
	if err != nil || n < 0 {
		return 0, errBadCursor
	}
	return n, nil
}

// notSupported is -32601 for a method whose capability is not advertised
// (GATE-1).
func notSupported(method, capability string) error {
	return wire.NewError(wire.CodeMethodNotFound, "Method not found: "+method, func(e *jx.Encoder) {
		e.ObjStart()
		e.FieldStart("reason")
		e.Str("Server does not support the " + capability + " capability")
		e.ObjEnd()
	})
}

// outcome sorts a handler's error for the three methods that may ask for
// input (MRTR-1): ErrInputRequired becomes the InputRequiredResult to send;
// other errors are returned as they are.
func (s *Server) outcome(r *Request, err error) (*mcp.InputRequiredResult, error) {
	if errors.Is(err, ErrInputRequired) {
		return s.inputRequired(r)
	}
	return nil, err
}

// listPage returns one page of r's definitions for a paginated method
// (PAG-1), or -32601 when the capability has nothing registered (GATE-1;
// resources and templates count together).
func listPage[T, D any](s *Server, cursor wire.Opt[string], r *registry[T], method, capability string, def func(T) D) ([]D, wire.Opt[string], error) {
	off, err := decodeCursor(cursor)
	if err != nil {
		return nil, wire.Opt[string]{}, err
	}
	s.mu.RLock()
	n := r.len()
	if capability == "resources" {
		n = s.resources.len() + s.templates.len()
	}
	items, next := r.page(off, s.opts.PageSize)
	s.mu.RUnlock()
	if n == 0 {
		return nil, wire.Opt[string]{}, notSupported(method, capability)
	}
	out := make([]D, 0, len(items))
	for _, it := range items {
		out = append(out, def(it))
	}
	return out, encodeCursor(next), nil
}

// handler adapts Server to the generated mcp.ServerHandler.
type handler struct{ s *Server }

func (h handler) Discover(ctx context.Context, p *mcp.RequestParams) (*mcp.DiscoverResult, error) {
	s := h.s
	r := &mcp.DiscoverResult{
		SupportedVersions: s.opts.Versions,
		Capabilities:      s.capabilities(),
		TTLMs:             s.ttl(),
		CacheScope:        s.opts.CacheScope,
		ResultType:        "complete",
		Meta:              s.resultMeta(),
	}
	if s.opts.Instructions != "" {
		r.Instructions = wire.Some(s.opts.Instructions)
	}
	return r, nil
}

func (h handler) ListTools(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	tools, next, err := listPage(h.s, p.Cursor, &h.s.tools, mcp.MethodListTools, "tools", func(t *tool) mcp.Tool { return t.def })
	if err != nil {
		return nil, err
	}
	s := h.s
	return &mcp.ListToolsResult{Tools: tools, NextCursor: next,
		TTLMs: s.ttl(), CacheScope: s.opts.CacheScope, ResultType: "complete", Meta: s.resultMeta()}, nil
}

func (h handler) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResultResponseResult, error) {
	s := h.s
	s.mu.RLock()
	t, ok := s.tools.get(p.Name)
	n := s.tools.len()
	s.mu.RUnlock()
	switch {
	case n == 0:
		return nil, notSupported(mcp.MethodCallTool, "tools")
	case !ok:
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: "Unknown tool: " + p.Name}
	}
	req := &ToolRequest{Name: p.Name, Arguments: p.Arguments}
	req.init(ctx, s, mcp.MethodCallTool, &p.Meta)
	if err := checkParamHeaders(req.ex, t, p.Arguments); err != nil {
		return nil, err
	}
	target := func() string { return p.Name + "\x00" + argumentsDigest(p.Arguments) }
	if err := s.beginInputs(&req.Request, target, p.InputResponses, p.RequestState); err != nil {
		return nil, err
	}
	defer req.finish()
	// Arguments that break the tool's inputSchema are a tool execution
	// error (isError), as the tools page prescribes for input validation;
	// the schema's InvalidParamsError doc would use -32602 (digest TOOL-10,
	// Appendix A3: we side with the tools page).
	if err := t.checkArguments(p.Arguments); err != nil {
		return &mcp.CallToolResultResponseResult{CallToolResult: s.stamp(ErrorResult("Invalid arguments for tool " + p.Name + ": " + err.Error()))}, nil
	}
	res, err := t.handler(ctx, req)
	if ir, err := s.outcome(&req.Request, err); ir != nil || err != nil {
		return &mcp.CallToolResultResponseResult{InputRequiredResult: ir}, err
	}
	if res == nil {
		return nil, fmt.Errorf("tool %q returned no result", p.Name)
	}
	return &mcp.CallToolResultResponseResult{CallToolResult: s.stamp(res)}, nil
}

// stamp marks a tool result with resultType and serverInfo.
func (s *Server) stamp(r *mcp.CallToolResult) *mcp.CallToolResult {
	r.ResultType = "complete"
	if r.Meta == nil {
		r.Meta = s.resultMeta()
	}
	return r
}

// checkParamHeaders enforces Mcp-Param-* against the arguments on HTTP
// (XMH-9): a recognised header must decode to the body's value, and an
// argument present in the body needs its header.
func checkParamHeaders(ex *exchange, t *tool, args wire.Raw) error {
	if ex.header == nil || len(t.params) == 0 {
		return nil
	}
	for _, prm := range t.params {
		name := mcpheader.ParamPrefix + prm.Header
		hv, hasHeader := ex.header[canonical(name)]
		body, present, err := prm.Value(args)
		if err != nil {
			return headerMismatch(name + ": " + err.Error())
		}
		switch {
		case !present && hasHeader:
			return headerMismatch(name + " is sent but the argument is absent")
		case !present:
			continue
		case !hasHeader:
			return headerMismatch(name + " header is missing")
		}
		got, err := mcpheader.Decode(hv[0])
		if err != nil {
			return headerMismatch(name + " header has invalid characters")
		}
		if !prm.Equal(got, body) {
			return headerMismatch(name + " header value does not match the body")
		}
	}
	return nil
}

func headerMismatch(msg string) error {
	return &wire.Error{Code: mcp.CodeHeaderMismatch, Message: "Header mismatch: " + msg}
}

func (h handler) ListPrompts(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListPromptsResult, error) {
	prompts, next, err := listPage(h.s, p.Cursor, &h.s.prompts, mcp.MethodListPrompts, "prompts", func(x *prompt) mcp.Prompt { return x.def })
	if err != nil {
		return nil, err
	}
	s := h.s
	return &mcp.ListPromptsResult{Prompts: prompts, NextCursor: next,
		TTLMs: s.ttl(), CacheScope: s.opts.CacheScope, ResultType: "complete", Meta: s.resultMeta()}, nil
}

func (h handler) GetPrompt(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResultResponseResult, error) {
	s := h.s
	s.mu.RLock()
	pr, ok := s.prompts.get(p.Name)
	n := s.prompts.len()
	s.mu.RUnlock()
	switch {
	case n == 0:
		return nil, notSupported(mcp.MethodGetPrompt, "prompts")
	case !ok:
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: "Unknown prompt: " + p.Name}
	}
	for _, a := range pr.def.Arguments {
		if _, given := p.Arguments[a.Name]; a.Required.Value && !given {
			return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: "Missing required argument " + strconv.Quote(a.Name) + " for prompt " + p.Name}
		}
	}
	req := &PromptRequest{Name: p.Name, Arguments: p.Arguments}
	req.init(ctx, s, mcp.MethodGetPrompt, &p.Meta)
	target := func() string {
		args, _ := json.Marshal(p.Arguments)
		return p.Name + "\x00" + argumentsDigest(args)
	}
	if err := s.beginInputs(&req.Request, target, p.InputResponses, p.RequestState); err != nil {
		return nil, err
	}
	defer req.finish()
	res, err := pr.handler(ctx, req)
	if ir, err := s.outcome(&req.Request, err); ir != nil || err != nil {
		return &mcp.GetPromptResultResponseResult{InputRequiredResult: ir}, err
	}
	if res == nil {
		return nil, fmt.Errorf("prompt %q returned no result", p.Name)
	}
	res.ResultType = "complete"
	if res.Meta == nil {
		res.Meta = s.resultMeta()
	}
	return &mcp.GetPromptResultResponseResult{GetPromptResult: res}, nil
}

func (h handler) ListResources(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListResourcesResult, error) {
	resources, next, err := listPage(h.s, p.Cursor, &h.s.resources, mcp.MethodListResources, "resources", func(x *resource) mcp.Resource { return x.def })
	if err != nil {
		return nil, err
	}
	s := h.s
	return &mcp.ListResourcesResult{Resources: resources, NextCursor: next,
		TTLMs: s.ttl(), CacheScope: s.opts.CacheScope, ResultType: "complete", Meta: s.resultMeta()}, nil
}

func (h handler) ListResourceTemplates(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListResourceTemplatesResult, error) {
	templates, next, err := listPage(h.s, p.Cursor, &h.s.templates, mcp.MethodListResourceTemplates, "resources", func(x *template) mcp.ResourceTemplate { return x.def })
	if err != nil {
		return nil, err
	}
	s := h.s
	return &mcp.ListResourceTemplatesResult{ResourceTemplates: templates, NextCursor: next,
		TTLMs: s.ttl(), CacheScope: s.opts.CacheScope, ResultType: "complete", Meta: s.resultMeta()}, nil
}

func (h handler) ReadResource(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResultResponseResult, error) {
	s := h.s
	s.mu.RLock()
	n := s.resources.len() + s.templates.len()
	var handle ResourceHandler
	var vars map[string]string
	if res, ok := s.resources.get(p.URI); ok {
		handle = res.handler
	} else {
		for _, name := range s.templates.names {
			t := s.templates.items[name]
			if m := t.match.FindStringSubmatch(p.URI); m != nil {
				handle, vars = t.handler, map[string]string{}
				for i, v := range t.vars {
					vars[v] = m[i+1]
				}
				break
			}
		}
	}
	s.mu.RUnlock()
	switch {
	case n == 0:
		return nil, notSupported(mcp.MethodReadResource, "resources")
	case handle == nil:
		return nil, ResourceNotFound(p.URI)
	}
	req := &ResourceRequest{URI: p.URI, Vars: vars}
	req.init(ctx, s, mcp.MethodReadResource, &p.Meta)
	if err := s.beginInputs(&req.Request, func() string { return p.URI }, p.InputResponses, p.RequestState); err != nil {
		return nil, err
	}
	defer req.finish()
	contents, err := handle(ctx, req)
	if ir, err := s.outcome(&req.Request, err); ir != nil || err != nil {
		return &mcp.ReadResourceResultResponseResult{InputRequiredResult: ir}, err
	}
	if len(contents) == 0 { // RES-5: never an empty list for a resource that is not there
		return nil, ResourceNotFound(p.URI)
	}
	return &mcp.ReadResourceResultResponseResult{ReadResourceResult: &mcp.ReadResourceResult{
		Contents: contents, TTLMs: s.ttl(), CacheScope: s.opts.CacheScope, ResultType: "complete", Meta: s.resultMeta(),
	}}, nil
}

func (h handler) Complete(ctx context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	s := h.s
	s.mu.RLock()
	c := s.completer
	s.mu.RUnlock()
	if c == nil {
		return nil, notSupported(mcp.MethodComplete, "completions")
	}
	req := &CompletionRequest{Params: p}
	req.init(ctx, s, mcp.MethodComplete, &p.Meta)
	defer req.finish()
	res, err := c(ctx, req)
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &mcp.CompleteResultCompletion{}
	}
	if res.Values == nil {
		res.Values = []string{}
	}
	if len(res.Values) > 100 {
		res.Values = res.Values[:100]
		res.HasMore = wire.Some(true)
	}
	return &mcp.CompleteResult{Completion: *res, ResultType: "complete", Meta: s.resultMeta()}, nil
}

func (h handler) SubscriptionsListen(ctx context.Context, p *mcp.SubscriptionsListenRequestParams) (*mcp.SubscriptionsListenResult, error) {
	return h.s.listen(ctx, p)
}

// canonical is the canonical form of an HTTP header name.
func canonical(name string) string { return textproto.CanonicalMIMEHeaderKey(name) }

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
