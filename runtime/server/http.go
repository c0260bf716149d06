package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/internal/uri"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// HTTPOptions configure the Streamable HTTP transport. The zero value is
// usable: loopback hosts and origins only, 4 MiB bodies, keep-alive
// comments every 15 s.
type HTTPOptions struct {
	// AllowedHosts lists the Host header values (host or host:port) served,
	// besides the loopback names localhost, 127.0.0.1 and [::1], which are
	// always allowed. A request for another host is refused with 403: this
	// stops DNS-rebinding attacks on servers bound to loopback (ORG-2).
	// A server reachable under a public name must list it; "*" allows all.
	AllowedHosts []string
	// AllowedOrigins lists the Origin header values (scheme://host[:port])
	// accepted besides loopback origins. A request carrying any other
	// Origin is refused with 403 (ORG-1); a request without Origin
	// (non-browser clients) is accepted.
	AllowedOrigins []string
	// MaxBodyBytes caps a request body. Default 4 MiB; larger bodies get 413.
	MaxBodyBytes int64
	// KeepAlive is the interval of SSE comment lines on subscriptions/listen
	// streams (SSE-5). Default 15 s.
	KeepAlive time.Duration
	// Auth, when set, makes the endpoint an OAuth 2.1 resource server:
	// every request is verified before its body is read and refused with
	// 401 and a challenge naming the protected resource metadata when its
	// token is missing or invalid; items registered with RequireScopes
	// need those scopes (403 insufficient_scope). The verified principal
	// reaches handlers (Request.Principal) and replaces Principal below.
	// Serve the metadata document too: Server.Mux does both.
	Auth *auth.ResourceServer

	// Principal names the caller for binding requestState (MRTR-17) and
	// 2025-11-25 sessions: a session is found only for the principal that
	// opened it (LHTTP-12). Default: a digest of the Authorization header,
	// if any. With Auth, the verified issuer and subject are used instead.
	Principal func(r *http.Request) string

	// SessionIdleTimeout ends a 2025-11-25 session after this long without
	// a request, a running request or an open stream. Default 30 minutes.
	SessionIdleTimeout time.Duration
	// MaxSessions bounds the 2025-11-25 sessions kept at once; an
	// initialize beyond it is refused with 503. Default 10000.
	MaxSessions int
	// RetryInterval is the SSE retry field of 2025-11-25 streams: how long
	// a client waits before it reconnects to a stream that closed (LSSE-5).
	// Default 1 s.
	RetryInterval time.Duration
}

// Handler returns the Streamable HTTP transport (§5.3) as an http.Handler
// to mount at the MCP endpoint. A request carrying the stateless
// revision's _meta is served on its own POST: one JSON-RPC message per
// body, answered with application/json or, when the request can produce
// notifications, text/event-stream; it is cancelled when the client closes
// the response (HCAN-1), and Mcp-Session-Id is ignored on it. A client
// that begins with initialize gets a 2025-11-25 session (Mcp-Session-Id):
// its messages are POSTed with the session id, GET opens its stream of
// server messages or resumes a stream (Last-Event-ID), DELETE ends it; a
// closed connection does not cancel its requests (LCAN-6). Without any
// initialize-based version in Options.Versions, GET and DELETE get 405.
//
// Sessions are bounded by HTTPOptions.MaxSessions and
// SessionIdleTimeout.
// Serve it from an http.Server with ReadHeaderTimeout set (NewHTTPServer
// does); WriteTimeout must stay 0 because listen streams are long-lived.
func (s *Server) Handler(opts *HTTPOptions) http.Handler {
	h := &httpHandler{s: s}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.MaxBodyBytes <= 0 {
		h.opts.MaxBodyBytes = 4 << 20
	}
	if h.opts.KeepAlive <= 0 {
		h.opts.KeepAlive = 15 * time.Second
	}
	if h.opts.SessionIdleTimeout <= 0 {
		h.opts.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if h.opts.MaxSessions <= 0 {
		h.opts.MaxSessions = DefaultMaxSessions
	}
	if h.opts.RetryInterval <= 0 {
		h.opts.RetryInterval = DefaultRetryInterval
	}
	if len(s.sessionVersions) > 0 {
		h.sessions = newSessionStore(h.opts.SessionIdleTimeout, h.opts.MaxSessions)
	}
	return h
}

// Mux returns a ServeMux serving the MCP endpoint, Handler(opts), at path
// and, when opts.Auth is set, the protected resource metadata (RFC 9728)
// at its well-known paths, which the challenges of 401 answers name.
func (s *Server) Mux(path string, opts *HTTPOptions) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(path, s.Handler(opts))
	if opts != nil && opts.Auth != nil {
		for _, p := range opts.Auth.WellKnownPaths() {
			mux.Handle(p, opts.Auth.MetadataHandler())
		}
	}
	return mux
}

// NewHTTPServer returns an http.Server for h with the timeouts an MCP
// endpoint needs: bounded header and idle times, no write timeout (listen
// streams stay open).
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

type httpHandler struct {
	s        *Server
	opts     HTTPOptions
	sessions *sessionStore // nil when no initialize-based version is served
}

func (h *httpHandler) hostAllowed(host string) bool {
	if uri.IsLoopback(host) || slices.Contains(h.opts.AllowedHosts, "*") {
		return true
	}
	for _, a := range h.opts.AllowedHosts {
		if strings.EqualFold(a, host) {
			return true
		}
		if hh, _, err := net.SplitHostPort(host); err == nil && strings.EqualFold(a, hh) {
			return true
		}
	}
	return false
}

func (h *httpHandler) originAllowed(origin string) bool {
	if slices.Contains(h.opts.AllowedOrigins, origin) || slices.Contains(h.opts.AllowedOrigins, "*") {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && uri.IsLoopback(u.Host)
}

// httpStatus is the HTTP status of a JSON-RPC error answer (digest §3.1):
// 404 for -32601, 400 for the errors of a malformed request and for a
// statusError that says so (META-2); where the spec leaves it open (A8),
// other failures inside a handler get 200.
func httpStatus(err error) int {
	var se *statusError
	if errors.As(err, &se) {
		return se.status
	}
	var rpc *wire.Error
	if !errors.As(err, &rpc) {
		return http.StatusInternalServerError
	}
	switch rpc.Code {
	case wire.CodeMethodNotFound:
		return http.StatusNotFound
	case wire.CodeParseError, wire.CodeInvalidRequest, mcp.CodeHeaderMismatch,
		mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

func writeJSONError(w http.ResponseWriter, id wire.ID, err *wire.Error) {
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	jsonrpc.WriteError(e, id, err)
	w.Header()["Content-Type"] = contentTypeJSON
	w.WriteHeader(httpStatus(err))
	_, _ = w.Write(e.Bytes())
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Refusals before the body is read are JSON-RPC errors without an id
	// (ORG-1, HTTP-6 allow them), each naming what was refused and the
	// option that changes it.
	switch {
	case r.Method == http.MethodPost:
	case h.sessions != nil && (r.Method == http.MethodGet || r.Method == http.MethodDelete):
	case h.sessions != nil:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeHTTPError(w, http.StatusMethodNotAllowed, "Method Not Allowed: "+quoteName(r.Method)+"; this MCP endpoint accepts POST, and GET and DELETE with a 2025-11-25 session")
		return
	default:
		// GET streams and DELETE of sessions are gone in this revision (COMPAT-11).
		w.Header().Set("Allow", http.MethodPost)
		writeHTTPError(w, http.StatusMethodNotAllowed, "Method Not Allowed: "+quoteName(r.Method)+"; this MCP endpoint accepts POST only (GET and DELETE serve 2025-11-25 sessions, which Options.Versions leaves out)")
		return
	}
	if !h.hostAllowed(r.Host) {
		writeHTTPError(w, http.StatusForbidden, "Forbidden: Host "+quoteName(r.Host)+" is not allowed; add it to HTTPOptions.AllowedHosts (loopback hosts are always allowed)")
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !h.originAllowed(o) {
		writeHTTPError(w, http.StatusForbidden, "Forbidden: Origin "+quoteName(o)+" is not allowed; add it to HTTPOptions.AllowedOrigins (loopback origins are always allowed)")
		return
	}
	who, ok := h.identify(w, r)
	if !ok {
		return
	}
	switch r.Method {
	case http.MethodGet:
		h.serveGet(w, r, who)
		return
	case http.MethodDelete:
		h.serveDelete(w, r, who)
		return
	}
	body, err := readBody(w, r, h.opts.MaxBodyBytes)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeHTTPError(w, http.StatusRequestEntityTooLarge, "Invalid request: the body is larger than "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes; HTTPOptions.MaxBodyBytes raises the limit")
			return
		}
		return // the client went away
	}
	// The message, the exchange, its sink and what the server reads from
	// the params share one allocation.
	x := &struct {
		msg jsonrpc.Message
		exchange
		httpSink
	}{}
	m := &x.msg
	if h.sessions != nil && jsonrpc.IsBatch(body) {
		h.serveBatchHTTP(w, r, body, who)
		return
	}
	if derr := jsonrpc.DecodeInto(body, m); derr != nil {
		writeJSONError(w, m.ID, derr.(*wire.Error))
		return
	}
	if h.sessions != nil {
		if m.Kind == jsonrpc.KindRequest && isHandshake(m) {
			h.handshake(w, r, m, who) // whatever the headers say (digest §2.1 step 4)
			return
		}
		if _, named := r.Header[canonicalSessionID]; named && (m.Kind != jsonrpc.KindRequest || !modernMeta(m.Params)) {
			h.serveSession(w, r, m, who) // a modern request ignores the header (§2.5)
			return
		}
	}
	switch m.Kind {
	case jsonrpc.KindNotification:
		// Accepted (HTTP-6). Core defines no client notification on HTTP, but
		// clients do POST notifications/cancelled when closing a listen
		// stream; closing the stream already cancelled it, so accepting is
		// enough.
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.KindResult, jsonrpc.KindError:
		writeJSONError(w, wire.ID{}, &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: clients do not send responses in this revision (MSG-4)"})
		return
	}
	listen := m.Method == mcp.MethodSubscriptionsListen
	x.exchange = exchange{id: m.ID, method: m.Method, principal: who.key, caller: who.p, authz: h.opts.Auth, httpReq: r}
	x.httpSink = httpSink{w: w, header: r.Header, srv: h.s, enabled: listen || acceptsSSE(r)}
	ex, out := &x.exchange, &x.httpSink
	ex.out = out
	if listen {
		// The stream opens with the acknowledgement, so that a listen with
		// invalid params still gets its 400 (META-2) as plain JSON.
		stop := out.keepAlive(h.opts.KeepAlive)
		defer stop()
	}
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	rpc, err := h.s.respond(r.Context(), ex, m, e)
	if err != nil {
		out.close()
		return // the client closed the stream: nothing more (HCAN-1)
	}
	if se := (*scopeError)(nil); errors.As(rpc, &se) && !out.started() {
		out.close()
		h.opts.Auth.WriteError(w, se.err) // 403 insufficient_scope (AUTHS-5)
		return
	}
	if rpc != nil && !out.started() {
		out.close()
		w.Header()["Content-Type"] = contentTypeJSON
		w.WriteHeader(httpStatus(rpc))
		_, _ = w.Write(e.Bytes())
		return
	}
	out.final(e.Bytes())
}

// contentTypeJSON is shared by every JSON response: net/http never
// modifies header value slices, so one is enough.
var contentTypeJSON = []string{"application/json"}

// readBody reads a request body of at most max bytes: into one buffer of
// the announced length when there is one, else growing as it reads.
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, max)
	if n := r.ContentLength; n > 0 && n <= max {
		buf := make([]byte, n)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	return io.ReadAll(body)
}

// identity is who sends a request: key binds requestState and sessions;
// p is the verified principal with HTTPOptions.Auth.
type identity struct {
	key string
	p   *auth.Principal
}

// identify verifies r's access token when the server checks tokens
// (every request, either era: AUTHS-3), answering a refused one (401 or
// 403 with its challenge), and names the caller.
func (h *httpHandler) identify(w http.ResponseWriter, r *http.Request) (identity, bool) {
	rs := h.opts.Auth
	if rs == nil {
		return identity{key: h.principal(r)}, true
	}
	p, err := rs.Verify(r.Context(), r)
	if err != nil {
		rs.WriteError(w, err)
		return identity{}, false
	}
	if n := rs.DPoPNonce(r.Context(), p); n != "" {
		w.Header().Set("DPoP-Nonce", n)
	}
	return identity{key: callerKey(p), p: p}, true
}

func (h *httpHandler) principal(r *http.Request) string {
	if h.opts.Principal != nil {
		return h.opts.Principal(r)
	}
	if a := r.Header.Get("Authorization"); a != "" {
		sum := sha256.Sum256([]byte(a))
		return hex.EncodeToString(sum[:])
	}
	return ""
}

func acceptsSSE(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(v, "text/event-stream") {
			return true
		}
	}
	return false
}

// verify enforces the request metadata headers against what the server
// read from the body (§5.3.2, HDR-2): present, well-formed and equal, else
// 400 with -32020; a header naming a version the server does not serve is
// -32022.
func (k *httpSink) verify(in *incoming) error {
	hdr := k.header
	pv := hdr.Get(mcpheader.ProtocolVersion)
	if !in.hasVersion && len(k.srv.sessionVersions) > 0 && !k.srv.supports(pv) {
		// Neither a modern request nor one of a session: a 2025-11-25
		// client that did not initialize (digest §2.1 step 7).
		return &statusError{status: http.StatusBadRequest, rpc: &wire.Error{Code: wire.CodeInvalidRequest,
			Message: "Bad request: no session; a 2025-11-25 client sends initialize first, then " + headerSessionID + " on every request"}}
	}
	if pv == "" {
		return headerMismatch(mcpheader.ProtocolVersion + " header is missing")
	}
	if in.hasVersion && in.version != pv {
		return headerMismatch(mcpheader.ProtocolVersion + " header value '" + pv + "' does not match body value '" + in.version + "'")
	}
	mv := hdr.Get(mcpheader.Method)
	switch {
	case mv == "":
		return headerMismatch(mcpheader.Method + " header is missing")
	case mv != in.method:
		return headerMismatch(mcpheader.Method + " header value '" + mv + "' does not match body value '" + in.method + "'")
	}
	if in.desc != nil && in.desc.NameMember != "" {
		raw, present := hdr[canonicalName]
		if !present {
			return headerMismatch(mcpheader.Name + " header is missing")
		}
		nv, err := mcpheader.Decode(raw[0])
		if err != nil {
			return headerMismatch(mcpheader.Name + " header has invalid characters")
		}
		if in.hasName && in.name != nv {
			return headerMismatch(mcpheader.Name + " header value '" + nv + "' does not match body value '" + in.name + "'")
		}
	}
	if !k.srv.supports(pv) {
		return k.srv.unsupportedVersion(pv)
	}
	return nil
}

// verifyParams enforces Mcp-Param-* against a tool call's arguments
// (XMH-9): a recognised header must decode to the body's value, and an
// argument present in the body needs its header.
func (k *httpSink) verifyParams(params []mcpheader.Param, args *arguments) error {
	tree, err := args.value()
	if err != nil {
		return headerMismatch("the arguments are not JSON: " + err.Error())
	}
	for _, prm := range params {
		name := mcpheader.ParamPrefix + prm.Header
		hv, hasHeader := k.header[textproto.CanonicalMIMEHeaderKey(name)]
		body, present, err := prm.ValueIn(tree)
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

// canonicalName is the canonical form of the Mcp-Name header (HDR-1).
var canonicalName = textproto.CanonicalMIMEHeaderKey(mcpheader.Name)

// canonicalSessionID is the canonical form of Mcp-Session-Id.
var canonicalSessionID = textproto.CanonicalMIMEHeaderKey(headerSessionID)

// httpSink writes a request's notifications as SSE events when the
// response is a stream; a JSON response carries only the final answer.
type httpSink struct {
	w       http.ResponseWriter
	header  http.Header // the request's headers
	srv     *Server
	rc      *http.ResponseController // made when the stream starts
	enabled bool

	mu     sync.Mutex
	isOpen bool
	closed bool
}

func (k *httpSink) startLocked() {
	if k.isOpen {
		return
	}
	k.isOpen = true
	k.rc = http.NewResponseController(k.w)
	h := k.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // SSE-4
	k.w.WriteHeader(http.StatusOK)
	_ = k.rc.Flush()
}

func (k *httpSink) started() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.isOpen
}

func (k *httpSink) notify(write func(e *jx.Encoder)) bool {
	if !k.enabled {
		return false
	}
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	write(e)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return false
	}
	k.startLocked()
	return k.event(e.Bytes()) == nil
}

func (k *httpSink) event(data []byte) error {
	if _, err := io.WriteString(k.w, "event: message\ndata: "); err != nil {
		return err
	}
	if _, err := k.w.Write(data); err != nil {
		return err
	}
	if _, err := io.WriteString(k.w, "\n\n"); err != nil {
		return err
	}
	return k.rc.Flush()
}

// final writes the response, ending the stream (SSE-3).
func (k *httpSink) final(resp []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return
	}
	k.closed = true
	if k.isOpen {
		_ = k.event(resp)
		return
	}
	k.w.Header()["Content-Type"] = contentTypeJSON
	k.w.WriteHeader(http.StatusOK)
	_, _ = k.w.Write(resp)
}

func (k *httpSink) close() {
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
}

// keepAlive writes an SSE comment every interval until stopped.
func (k *httpSink) keepAlive(interval time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				k.mu.Lock()
				if k.isOpen && !k.closed {
					_, _ = io.WriteString(k.w, ": keep-alive\n\n")
					_ = k.rc.Flush()
				}
				k.mu.Unlock()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}
