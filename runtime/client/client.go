package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Options configure a Client. The zero value is usable: no optional client
// capabilities, caching on, 8 multi round-trip rounds, 60 s per request.
type Options struct {
	// Versions lists the protocol revisions the client speaks, preferred
	// first. Default: mcp.ProtocolVersion (2026-07-28), then the
	// initialize-based revisions 2025-11-25, 2025-06-18 and 2025-03-26, so
	// that Connect reaches legacy servers too (see Connect). A list without
	// legacy versions makes a modern-only client, one with only legacy
	// versions a client that opens every connection with initialize.
	Versions []string

	// Elicit answers elicitation input requests (and a legacy server's
	// elicitation/create requests); setting it declares the elicitation
	// capability (form mode, and URL mode when ElicitURL is also true). An
	// accepted form gets the schema's default for every field the result
	// leaves out (ELI-5, LELIC-2).
	Elicit    func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error)
	ElicitURL bool
	// Sample answers sampling input requests (deprecated feature), and a
	// legacy server's sampling/createMessage requests; setting it declares
	// sampling. SamplingTools also declares sampling.tools.
	Sample        func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error)
	SamplingTools bool
	// Roots answers roots input requests (deprecated feature), and a legacy
	// server's roots/list requests; setting it declares roots.
	Roots func(ctx context.Context) ([]mcp.Root, error)

	// MaxRounds bounds the multi round-trip retries of one call. Default 8.
	MaxRounds int
	// Timeout bounds each request (CAN-8); 0 means 60 s, negative none.
	Timeout time.Duration
	// ProbeTimeout bounds the server/discover probe Connect sends: over
	// stdio, a server that does not answer in time is taken for a legacy
	// one (COMPAT-4 leaves the length open). It also bounds the initialize
	// request that opens a legacy session (which is never cancelled,
	// LLIFE-7: Connect gives up and closes the connection). Default 10 s.
	ProbeTimeout time.Duration
	// DisableCache turns off the result cache.
	DisableCache bool
	// DisableOutputValidation turns off the check of tool results: by
	// default CallTool checks the structuredContent of a result that is not
	// an isError result against the outputSchema of the tool as this client
	// last listed it (tools/list; the check needs the listing), and
	// reports a missing or nonconforming one with an *OutputError
	// (TOOL-7), as the TypeScript SDK does.
	DisableOutputValidation bool
	// MaxMessageBytes bounds one message from the server. Default
	// jsonrpc.MaxMessageBytes (16 MiB).
	MaxMessageBytes int

	// OnLog receives notifications/message the server sends for requests
	// made with WithLogLevel (a legacy server: every log message of the
	// session). On stdio it runs on the connection's reader: it must return
	// promptly and must not wait for calls on this Client.
	OnLog func(p *mcp.LoggingMessageNotificationParams)

	// Header is added to every HTTP request ConnectURL makes (e.g.
	// Authorization). Private cache entries are keyed by its Authorization
	// value (CACHE-5). It may be changed between calls (e.g. to a refreshed
	// token), not during one.
	Header http.Header
	// HTTPClient sends ConnectURL's HTTP requests. Default: a client
	// without timeout (listen streams are long-lived; Timeout bounds
	// ordinary requests).
	HTTPClient *http.Client
	// Authorizer authorizes ConnectURL's HTTP requests (OAuth: package
	// runtime/client/oauth); see HTTPOptions.Authorizer.
	Authorizer Authorizer

	// Middleware wraps every request the client sends, outermost first:
	// each sees the method, its params (with _meta filled in) and the
	// decoded result or error (see jsonrpc.Middleware). A multi round-trip
	// call passes through once per round.
	Middleware []jsonrpc.Middleware

	// Logger receives diagnostics, e.g. tools dropped for invalid
	// x-mcp-header annotations (XMH-6). Default: discard.
	Logger *slog.Logger

	// Tasks declares the tasks extension (io.modelcontextprotocol/tasks,
	// docs/tasks.md) on every request: a server may then answer tools/call
	// with a task, which CallTool follows to its result (see Task).
	Tasks bool
}

// Client is a connection to one MCP server. Its methods are safe for
// concurrent use.
type Client struct {
	info mcp.Implementation
	opts Options
	log  *slog.Logger
	t    Transport
	http bool // t mirrors headers (Streamable HTTP)
	rev  *wireimpl.Revision
	send jsonrpc.Handler // Options.Middleware around c.exchange

	ids  atomic.Int64
	sess atomic.Pointer[sessionRef] // the era in use (session.go)

	eraMu sync.Mutex // serialises switching sessions

	mu sync.Mutex
	// toolHdrs holds the x-mcp-header params of every tool the client has
	// learned (an entry, nil or not, per tool looked up).
	toolHdrs map[string][]mcpheader.Param
	hdrCache map[string]http.Header // shared request headers by version, method and name
	// toolOut holds the outputSchema of every listed tool that has one
	// (output.go).
	toolOut map[string]*outputSchema

	cache *cache
}

// HeaderMirror is implemented by transports that mirror body members into
// request headers (Streamable HTTP, §5.3.2): the client then fills in
// Call.Header and applies the x-mcp-header rules (XMH-6).
type HeaderMirror interface {
	MirrorsHeaders() bool
}

// configurer is implemented by the built-in transports: the client hands
// them its logger, its message bound and a receiver for messages that
// belong to no request.
type configurer interface {
	configure(log *slog.Logger, maxMessage int, unsolicited func(*jsonrpc.Message))
}

// credentialer is implemented by transports whose requests carry a
// credential (the Authorization header), which private cache entries are
// keyed by (CACHE-5).
type credentialer interface {
	credential() string
}

var discardLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// Connect returns a client speaking MCP over t, in the era of the server
// (BC-4). It first probes the server with server/discover (COMPAT-1,
// COMPAT-7): a DiscoverResult or a recognised modern error means a
// 2026-07-28-era server, spoken to statelessly from then on. Any other
// answer — another error (COMPAT-5), something that is not a
// DiscoverResult, a 400 whose body is no modern error, or, over stdio,
// silence within Options.ProbeTimeout (COMPAT-4) — means a legacy server:
// Connect then opens a 2025-11-25 session on the same connection
// (initialize, accepting an older version the server proposes from
// Options.Versions, LVER-7; then notifications/initialized, LLIFE-3) and the
// client speaks that revision until Close; see docs/dual-era-client.md.
//
// A modern-only client (no legacy version in Options.Versions) reports a
// legacy server with a *VersionError with Legacy set, and over HTTP sends
// nothing until the first call (DISC-4). A legacy-only client skips the
// probe. Connect closes t when it fails.
func Connect(ctx context.Context, t Transport, info mcp.Implementation, opts *Options) (*Client, error) {
	c := newClient(t, info, opts)
	if err := c.detect(ctx); err != nil {
		_ = t.Close()
		return nil, err
	}
	return c, nil
}

// ConnectCommand starts cmd and connects to it over stdio (§5.2); see
// CommandTransport and Connect.
func ConnectCommand(ctx context.Context, cmd *exec.Cmd, info mcp.Implementation, opts *Options) (*Client, error) {
	t, err := CommandTransport(cmd)
	if err != nil {
		return nil, err
	}
	return Connect(ctx, t, info, opts)
}

// ConnectURL returns a client for the Streamable HTTP endpoint url (§5.3),
// using Options.HTTPClient and Options.Header, in the era of the server (see
// Connect). With a legacy server the client keeps an HTTP session: it
// echoes the Mcp-Session-Id the server mints (LHTTP-6), starts over with
// initialize when the session ends (LHTTP-7), listens on the GET stream
// (LSSE-1), resumes broken streams with Last-Event-ID after the server's
// retry delay (LSSE-5, LSSE-7) and ends the session with DELETE on Close
// (LHTTP-8).
func ConnectURL(ctx context.Context, url string, info mcp.Implementation, opts *Options) (*Client, error) {
	var ho HTTPOptions
	if opts != nil {
		ho.Client, ho.Header, ho.Authorizer = opts.HTTPClient, opts.Header, opts.Authorizer
	}
	return Connect(ctx, HTTPTransport(url, &ho), info, opts)
}

func newClient(t Transport, info mcp.Implementation, opts *Options) *Client {
	c := &Client{info: info, t: t, rev: mcp.Revision, toolHdrs: map[string][]mcpheader.Param{}, hdrCache: map[string]http.Header{}, toolOut: map[string]*outputSchema{}}
	if opts != nil {
		c.opts = *opts
	}
	if len(c.opts.Versions) == 0 {
		c.opts.Versions = defaultVersions()
	}
	if c.opts.MaxRounds <= 0 {
		c.opts.MaxRounds = 8
	}
	if c.opts.Timeout == 0 {
		c.opts.Timeout = 60 * time.Second
	}
	if c.opts.ProbeTimeout <= 0 {
		c.opts.ProbeTimeout = 10 * time.Second
	}
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = discardLogger
	}
	if hm, ok := t.(HeaderMirror); ok {
		c.http = hm.MirrorsHeaders()
	}
	c.setSession(newModernSession(c))
	if cf, ok := t.(configurer); ok {
		cf.configure(c.log, c.opts.MaxMessageBytes, func(m *jsonrpc.Message) { c.session().unsolicited(m) })
	}
	// Read at each use: a header updated between calls (a new token) must
	// not see private entries cached under the old one (CACHE-5).
	credential := func() string { return "" }
	if cr, ok := t.(credentialer); ok {
		credential = cr.credential
	}
	c.cache = newCache(!c.opts.DisableCache, credential)
	c.send = c.exchange
	for i := len(c.opts.Middleware) - 1; i >= 0; i-- {
		c.send = c.opts.Middleware[i](c.send)
	}
	return c
}

// Close ends the connection (see Transport.Close); with a legacy server
// over HTTP it first ends the session (DELETE, LHTTP-8).
func (c *Client) Close() error { return c.session().close() }

// ProtocolVersion is the revision the client speaks: the version its
// requests carry (2026-07-28 era), or the version initialize negotiated
// with a legacy server (e.g. "2025-11-25", "2025-06-18").
func (c *Client) ProtocolVersion() string { return c.session().version() }

// capabilities declares what the callbacks can answer (ELI-1, SMP-2, ROOT-2).
func (c *Client) capabilities() mcp.ClientCapabilities {
	var caps mcp.ClientCapabilities
	if c.opts.Elicit != nil {
		caps.Elicitation = &mcp.ClientCapabilitiesElicitation{Form: mcp.JSONObject("{}")}
		if c.opts.ElicitURL {
			caps.Elicitation.URL = mcp.JSONObject("{}")
		}
	}
	if c.opts.Sample != nil {
		caps.Sampling = &mcp.ClientCapabilitiesSampling{}
		if c.opts.SamplingTools {
			caps.Sampling.Tools = mcp.JSONObject("{}")
		}
	}
	if c.opts.Roots != nil {
		caps.Roots = wire.Raw("{}")
	}
	if c.opts.Tasks {
		caps.Extensions = extensionCapability // TASK-1
	}
	return caps
}

// modernMeta builds the per-request _meta (META-1): version, capabilities
// and identity, plus what the call options add.
func (c *Client) modernMeta(o *callOptions, version string) mcp.RequestMetaObject {
	m := mcp.RequestMetaObject{
		ProtocolVersion:    version,
		ClientCapabilities: c.capabilities(),
		ClientInfo:         &c.info,
	}
	if o.logLevel != "" {
		m.LogLevel = wire.Some(o.logLevel)
	}
	addMeta(&m, o)
	return m
}

// addMeta adds the progress token and the WithMeta members to m.
func addMeta(m *mcp.RequestMetaObject, o *callOptions) {
	if o.progress != nil {
		m.ProgressToken = mcp.ProgressToken{String: wire.Some(o.token)}
	}
	for _, kv := range o.meta {
		if m.Declares(kv.Key) {
			// A member the client writes itself: an Extra copy would be a
			// duplicate key, which servers reject.
			continue
		}
		m.Extra.Set(kv.Key, kv.Value)
	}
}

// CallOption configures one call.
type CallOption func(*callOptions)

type callOptions struct {
	progress func(p *mcp.ProgressNotificationParams)
	token    string
	logLevel mcp.LoggingLevel
	meta     wire.Members
	timeout  time.Duration
	// listenNote receives a listen stream's notifications.
	listenNote func(m *jsonrpc.Message)
	// probing marks Connect's era probe: a legacy sign is returned to it,
	// not acted on.
	probing bool
}

// WithProgress asks for progress notifications (PROG-1) and passes each to
// f. On stdio f runs on the connection's reader: it must return promptly
// and must not wait for calls on the same Client.
func WithProgress(f func(p *mcp.ProgressNotificationParams)) CallOption {
	return func(o *callOptions) { o.progress = f }
}

// WithLogLevel asks the server for log messages at or above level for this
// call (deprecated logging, LOG-3); they go to Options.OnLog. With a legacy
// server the level is the session's: it is set with logging/setLevel
// (LLOG-2) when it changes, for this call and the ones after.
func WithLogLevel(level mcp.LoggingLevel) CallOption {
	return func(o *callOptions) { o.logLevel = level }
}

// WithMeta adds a member to the request's _meta (e.g. "traceparent").
// Members the client sets itself cannot be overridden.
func WithMeta(key string, value wire.Raw) CallOption {
	return func(o *callOptions) { o.meta = append(o.meta, wire.Member{Key: key, Value: value}) }
}

// WithTimeout overrides Options.Timeout for this call.
func WithTimeout(d time.Duration) CallOption {
	return func(o *callOptions) { o.timeout = d }
}

var tokens atomic.Int64

func buildOptions(opts []CallOption) *callOptions {
	o := &callOptions{}
	for _, f := range opts {
		f(o)
	}
	if o.progress != nil {
		o.token = "p" + strconv.FormatInt(tokens.Add(1), 10)
	}
	return o
}

// callKey carries a call's options to the exchange through the middleware.
type callKey struct{}

// request sends method with params p, whose _meta it fills in, and returns
// the decoded result. It retries once with another version on -32022
// (VER-3), and once on a legacy session when a modern request met a legacy
// server (the cached era was wrong, §4.4).
func (c *Client) request(ctx context.Context, o *callOptions, method string, p wireimpl.Codec) (wireimpl.Codec, error) {
	if len(c.opts.Middleware) > 0 {
		ctx = context.WithValue(ctx, callKey{}, o)
	}
	versionRetried, eraRetried := false, false
	for {
		s := c.session()
		if rm, ok := p.(interface{ RequestMeta() *mcp.RequestMetaObject }); ok {
			*rm.RequestMeta() = s.meta(o)
		}
		var res wire.Value
		var err error
		if len(c.opts.Middleware) > 0 {
			res, err = c.send(ctx, method, p)
		} else {
			res, err = c.exchangeWith(ctx, o, method, p)
		}
		var rpc *wire.Error
		var legacy *legacySign
		switch {
		case !versionRetried && errors.As(err, &rpc) && rpc.Code == mcp.CodeUnsupportedProtocolVersion:
			versionRetried = true
			if ms, ok := s.(*modernSession); ok {
				if v, ok := c.pickVersion(rpc); ok {
					ms.v.Store(v)
					continue
				}
				return nil, &VersionError{Ours: c.opts.Versions, Theirs: supportedOf(rpc)}
			}
		case errors.As(err, &legacy) && o.probing:
			return nil, err // Connect's probe decides
		case errors.As(err, &legacy):
			if eraRetried || len(c.legacyVersions()) == 0 {
				return nil, c.legacyError(ctx, legacy.cause)
			}
			eraRetried = true
			if err := c.startLegacy(ctx, s); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		r, ok := res.(wireimpl.Codec)
		if !ok || r == nil {
			return nil, fmt.Errorf("client: %s: middleware returned %T, not the method's result type", method, res)
		}
		return r, nil
	}
}

type requestIDKey struct{}

// OnRequestID returns a context whose requests report to f the JSON-RPC
// id each is sent with. Middleware (Options.Middleware) runs before the id
// is chosen; one that needs it (tracing records jsonrpc.request.id) passes
// such a context to its next handler. f runs once per message sent: a
// retry (a new version, a multi round-trip round) has an id of its own.
func OnRequestID(ctx context.Context, f func(id wire.ID)) context.Context {
	return context.WithValue(ctx, requestIDKey{}, f)
}

// reportID tells the OnRequestID function of ctx, if any, the id sent.
func reportID(ctx context.Context, id wire.ID) {
	if f, ok := ctx.Value(requestIDKey{}).(func(wire.ID)); ok && f != nil {
		f(id)
	}
}

// VersionError reports that client and server share no protocol version.
type VersionError struct {
	Ours, Theirs []string
	// Legacy: the server speaks only initialize-based revisions (2025-11-25
	// and earlier); Theirs then holds the version it offered to an
	// initialize probe, when it answered one.
	Legacy bool
	cause  error
}

func (e *VersionError) Unwrap() error { return e.cause }

func (e *VersionError) Error() string {
	if e.Legacy {
		theirs := "an initialize-based revision (2025-11-25 or earlier)"
		if len(e.Theirs) > 0 {
			theirs = strings.Join(e.Theirs, ", ")
		}
		return fmt.Sprintf("client: the server speaks only legacy MCP %s, not %s (Options.Versions)",
			theirs, strings.Join(e.Ours, ", "))
	}
	return fmt.Sprintf("client: no common protocol version: server supports %s, client supports %s",
		strings.Join(e.Theirs, ", "), strings.Join(e.Ours, ", "))
}

func supportedOf(rpc *wire.Error) []string {
	var data mcp.UnsupportedProtocolVersionErrorErrorData
	if rpc.Data == nil || wireimpl.Decode(rpc.Data, &data) != nil {
		return nil
	}
	return data.Supported
}

// pickVersion chooses our most preferred modern version the server
// supports (VER-5 leaves the choice open; a legacy version would mean an
// initialize handshake, which Connect's probe chooses, not this retry).
// It may be the version just refused: a server that lists it as supported
// is given one retry with it.
func (c *Client) pickVersion(rpc *wire.Error) (string, bool) {
	theirs := supportedOf(rpc)
	for _, v := range c.modernVersions() {
		if slices.Contains(theirs, v) {
			return v, true
		}
	}
	return "", false
}

// exchange performs one request on the transport, a new id every time
// (ID-3), and decodes its result: the innermost jsonrpc.Handler of the
// middleware chain.
func (c *Client) exchange(ctx context.Context, method string, params wire.Value) (wire.Value, error) {
	o, _ := ctx.Value(callKey{}).(*callOptions)
	if o == nil {
		o = &callOptions{}
	}
	p, ok := params.(wireimpl.Codec)
	if !ok {
		return nil, fmt.Errorf("client: %s: params of type %T are not a generated type", method, params)
	}
	return c.exchangeWith(ctx, o, method, p)
}

// exchangeWith is exchange with the call's options at hand: the session
// in use carries the request.
func (c *Client) exchangeWith(ctx context.Context, o *callOptions, method string, p wireimpl.Codec) (wireimpl.Codec, error) {
	return c.session().exchange(ctx, o, method, p)
}

// exchangeModern performs one 2026-07-28 request (modernSession).
func (c *Client) exchangeModern(ctx context.Context, o *callOptions, method string, p wireimpl.Codec) (wireimpl.Codec, error) {
	desc := c.lookup(method)
	if desc == nil || desc.NewResult == nil {
		return nil, fmt.Errorf("client: %s is not a request of revision %s", method, c.rev.Version)
	}
	timeout := c.opts.Timeout
	if o.timeout != 0 {
		timeout = o.timeout
	}
	listen := method == mcp.MethodSubscriptionsListen
	if timeout > 0 && !listen {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	id := wire.IntID(c.ids.Add(1))
	reportID(ctx, id)
	e := jx.GetEncoder()
	jsonrpc.WriteRequest(e, id, method, p.EncodeJSON)
	call := &Call{ID: id, Method: method, Body: slices.Clone(e.Bytes()), Token: o.token, Listen: listen}
	jx.PutEncoder(e)
	// Verbatim members (arguments, WithMeta values) are the caller's JSON;
	// a server could not even tell which request a broken one was.
	if err := checkJSON(call.Body); err != nil {
		return nil, fmt.Errorf("client: %s: the request is not valid JSON (check the arguments and WithMeta values): %w", method, err)
	}
	if c.http {
		call.Header = c.headers(desc, p)
	}
	call.OnMessage = func(m *jsonrpc.Message) { c.deliver(o, m) }
	result := c.newResult(desc)
	call.Result = result
	resp, err := c.t.Call(ctx, call)
	if err != nil {
		return nil, c.legacyFromHTTP(ctx, err)
	}
	if c.http {
		if err := c.eraOf(ctx, call, resp); err != nil {
			return nil, err
		}
	}
	if resp.Kind == jsonrpc.KindError {
		return nil, resp.Error
	}
	if !resp.Decoded {
		if err := wireimpl.DecodeOwned(resp.Result, result); err != nil {
			return nil, &ResultError{Method: method, Err: err}
		}
	}
	return result, nil
}

// checkJSON checks the syntax of an encoded request whose verbatim members
// came from the caller.
func checkJSON(b []byte) error {
	d := wireimpl.GetDecoder(b)
	defer wireimpl.PutDecoder(d)
	if err := d.Pass(); err != nil {
		return err
	}
	return d.Finish()
}

// ResultError reports a result the client cannot accept: malformed, or
// with a resultType it does not know (RT-3).
type ResultError struct {
	Method string
	Err    error
}

func (e *ResultError) Error() string {
	return "client: invalid " + e.Method + " result: " + e.Err.Error()
}
func (e *ResultError) Unwrap() error { return e.Err }

// deliver routes a notification that belongs to a request.
func (c *Client) deliver(o *callOptions, m *jsonrpc.Message) {
	switch m.Method {
	default:
		if o.listenNote != nil {
			o.listenNote(m)
		}
	case mcp.NotificationProgress:
		if o.progress == nil {
			return
		}
		var p mcp.ProgressNotificationParams
		if wireimpl.Decode(m.Params, &p) == nil {
			o.progress(&p)
		}
	case mcp.NotificationLoggingMessage:
		if c.opts.OnLog == nil {
			return
		}
		var p mcp.LoggingMessageNotificationParams
		if wireimpl.Decode(m.Params, &p) == nil {
			c.opts.OnLog(&p)
		}
	}
}

// headers mirrors the body into the request metadata headers (§5.3.2):
// the version and method always, the member the method's descriptor names
// into Mcp-Name, and for tools/call the arguments the tool annotates with
// x-mcp-header; with the content negotiation headers, so that the
// transport sends them as they are. The headers of requests without
// Mcp-Param-* headers are the same for every call of the same method and
// name: they are built once and shared (read-only).
func (c *Client) headers(desc *wireimpl.Method, p wireimpl.Codec) http.Header {
	name := ""
	if desc.MirroredName != nil {
		if tp, ok := p.(*taskParams); ok {
			name = desc.MirroredName(tp.params())
		} else {
			name = desc.MirroredName(p)
		}
	}
	var prms []mcpheader.Param
	if cp, ok := p.(*mcp.CallToolRequestParams); ok {
		c.mu.Lock()
		prms = c.toolHdrs[cp.Name]
		c.mu.Unlock()
	}
	version := c.ProtocolVersion()
	key := version + "\x00" + desc.Name + "\x00" + name
	if len(prms) == 0 {
		c.mu.Lock()
		h := c.hdrCache[key]
		c.mu.Unlock()
		if h != nil {
			return h
		}
	}
	h := make(http.Header, 6)
	h["Content-Type"] = contentTypeJSON
	h["Accept"] = acceptBoth // HTTP-3
	h[canonicalProtocolVersion] = []string{version}
	h[canonicalMethod] = []string{desc.Name}
	if desc.MirroredName != nil {
		h[canonicalName] = []string{mcpheader.Encode(name)}
	}
	if len(prms) > 0 {
		cp := p.(*mcp.CallToolRequestParams)
		for _, prm := range prms {
			v, present, err := prm.Value(cp.Arguments)
			if err != nil || !present {
				continue // absent or null: no header (XMH-7)
			}
			h.Set(mcpheader.ParamPrefix+prm.Header, mcpheader.Encode(v))
		}
		return h
	}
	c.mu.Lock()
	if len(c.hdrCache) < maxHeaderCache {
		c.hdrCache[key] = h
	}
	c.mu.Unlock()
	return h
}

// maxHeaderCache bounds the shared header sets (one per method and name).
const maxHeaderCache = 256

// Canonical forms of the standard header names (HDR-1).
var (
	canonicalProtocolVersion = http.CanonicalHeaderKey(mcpheader.ProtocolVersion)
	canonicalMethod          = http.CanonicalHeaderKey(mcpheader.Method)
	canonicalName            = http.CanonicalHeaderKey(mcpheader.Name)
)

// learnTools records the x-mcp-header parameters of listed tools and
// drops the tools whose annotations are invalid (XMH-6, HTTP only).
func (c *Client) learnTools(tools []mcp.Tool) []mcp.Tool {
	out := tools[:0]
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range tools {
		prms, err := mcpheader.ToolParams(t.InputSchema)
		if err != nil && c.session().mirrorsHeaders() {
			c.log.Warn("dropping tool with invalid x-mcp-header annotations", "tool", t.Name, "reason", err.Error())
			continue
		}
		if old, known := c.toolHdrs[t.Name]; !known || len(old)+len(prms) > 0 {
			c.toolHdrs[t.Name] = prms
		}
		c.learnOutput(t.Name, t.OutputSchema)
		out = append(out, t)
	}
	return out
}
