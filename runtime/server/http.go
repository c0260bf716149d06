package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
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
	// Principal names the caller for binding requestState (MRTR-17).
	// Default: a digest of the Authorization header, if any.
	Principal func(r *http.Request) string
}

// Handler returns the Streamable HTTP transport (§5.3) as an http.Handler
// to mount at the MCP endpoint: POST only (GET and DELETE get 405), one
// JSON-RPC message per body, answered with application/json or, when the
// request can produce notifications, text/event-stream.
//
// Requests are cancelled when the client closes the response (HCAN-1).
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
	return h
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
	s    *Server
	opts HTTPOptions
}

func isLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (h *httpHandler) hostAllowed(host string) bool {
	if isLoopbackHost(host) || slices.Contains(h.opts.AllowedHosts, "*") {
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
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && isLoopbackHost(u.Host)
}

// httpStatus maps a JSON-RPC error to the status the digest requires
// (§3.1); where the spec leaves it open (A8), protocol-level failures get
// 400 and failures inside a handler 200.
func httpStatus(err *wire.Error) int {
	switch err.Code {
	case wire.CodeMethodNotFound:
		return http.StatusNotFound
	case wire.CodeParseError, wire.CodeInvalidRequest, mcp.CodeHeaderMismatch,
		mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	case wire.CodeInvalidParams:
		if metaViolation(err) {
			return http.StatusBadRequest // META-2: missing or invalid _meta
		}
	}
	return http.StatusOK
}

// metaViolation reports a -32602 caused by params or params._meta.
func metaViolation(err *wire.Error) bool {
	return strings.HasPrefix(err.Message, "Invalid params: params: ") ||
		strings.HasPrefix(err.Message, "Invalid params: params._meta")
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
	if r.Method != http.MethodPost {
		// GET streams and DELETE of sessions are gone in this revision (COMPAT-11).
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "Method Not Allowed: this MCP endpoint accepts POST only", http.StatusMethodNotAllowed)
		return
	}
	if !h.hostAllowed(r.Host) {
		http.Error(w, "Forbidden: host not allowed", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !h.originAllowed(o) {
		writeJSONError403(w)
		return
	}
	body, err := readBody(w, r, h.opts.MaxBodyBytes)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			e := &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: body larger than the limit"}
			w.Header()["Content-Type"] = contentTypeJSON
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			enc := jx.GetEncoder()
			jsonrpc.WriteError(enc, wire.ID{}, e)
			_, _ = w.Write(enc.Bytes())
			jx.PutEncoder(enc)
			return
		}
		return // the client went away
	}
	m, derr := jsonrpc.Decode(body)
	if derr != nil {
		writeJSONError(w, m.ID, derr.(*wire.Error))
		return
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
	pk := peekParams(m.Method, m.Params)
	if rpcErr := h.s.checkHeaders(r.Header, m, pk); rpcErr != nil {
		writeJSONError(w, m.ID, rpcErr)
		return
	}
	// The exchange and its sink share one allocation.
	x := &struct {
		exchange
		httpSink
	}{
		exchange: exchange{id: m.ID, method: m.Method, header: r.Header, principal: h.principal(r), peek: pk, peeked: true},
		httpSink: httpSink{w: w, enabled: m.Method == mcp.MethodSubscriptionsListen || acceptsSSE(r) && pk.notify},
	}
	ex, out := &x.exchange, &x.httpSink
	ex.out = out
	if m.Method == mcp.MethodSubscriptionsListen {
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

func writeJSONError403(w http.ResponseWriter) {
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	jsonrpc.WriteError(e, wire.ID{}, &wire.Error{Code: wire.CodeInvalidRequest, Message: "Forbidden: origin not allowed"})
	w.Header()["Content-Type"] = contentTypeJSON
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(e.Bytes())
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

// checkHeaders enforces the request metadata headers (§5.3.2, HDR-2):
// present, well-formed and equal to the body, else 400 with -32020.
func (s *Server) checkHeaders(hdr http.Header, m *jsonrpc.Message, pk peeked) *wire.Error {
	if m.Method == "initialize" && !pk.hasVersion && !s.supports(hdr.Get(mcpheader.ProtocolVersion)) {
		// Legacy clients send none of these headers on initialize: tell them
		// which versions are served instead (COMPAT-10).
		return s.legacyInitialize(m.Params)
	}
	mismatch := func(msg string) *wire.Error {
		return &wire.Error{Code: mcp.CodeHeaderMismatch, Message: "Header mismatch: " + msg}
	}
	pv := hdr.Get(mcpheader.ProtocolVersion)
	if pv == "" {
		return mismatch(mcpheader.ProtocolVersion + " header is missing")
	}
	if pk.hasVersion && pk.version != pv {
		return mismatch(mcpheader.ProtocolVersion + " header value '" + pv + "' does not match body value '" + pk.version + "'")
	}
	mv := hdr.Get(mcpheader.Method)
	switch {
	case mv == "":
		return mismatch(mcpheader.Method + " header is missing")
	case mv != m.Method:
		return mismatch(mcpheader.Method + " header value '" + mv + "' does not match body value '" + m.Method + "'")
	}
	if nameMember(m.Method) != "" {
		raw, present := hdr[canonical(mcpheader.Name)]
		if !present {
			return mismatch(mcpheader.Name + " header is missing")
		}
		nv, err := mcpheader.Decode(raw[0])
		if err != nil {
			return mismatch(mcpheader.Name + " header has invalid characters")
		}
		if pk.hasName && pk.name != nv {
			return mismatch(mcpheader.Name + " header value '" + nv + "' does not match body value '" + pk.name + "'")
		}
	}
	if !s.supports(pv) {
		return s.unsupportedVersion(pv)
	}
	return nil
}

// httpSink writes a request's notifications as SSE events when the
// response is a stream; a JSON response carries only the final answer.
type httpSink struct {
	w       http.ResponseWriter
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
