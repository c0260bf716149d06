package server

import (
	"context"
	"net/http"
	"sync"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// exchange is the transport's side of one request.
type exchange struct {
	id        wire.ID
	method    string
	out       sink
	principal string               // who is asking (binds requestState, MRTR-17)
	sess      *session             // the initialize-based session of the request; nil for modern requests
	caller    *auth.Principal      // the verified caller (HTTPOptions.Auth); nil without authorization
	authz     *auth.ResourceServer // HTTPOptions.Auth
	in        incoming
	stdio     bool          // served over stdio (RequestInfo)
	httpReq   *http.Request // served over HTTP: the request carrying it
}

// RequestInfo is what the transport knows of a request beyond its params,
// for middleware (tracing, logging) and handlers.
type RequestInfo struct {
	// ID is the request's JSON-RPC id.
	ID wire.ID
	// Transport is "stdio" or "http".
	Transport string
	// SessionID is the Mcp-Session-Id of the 2025-11-25 session the request
	// belongs to over HTTP; "" for stateless requests and on stdio.
	SessionID string
	// RemoteAddr is the client's network address over HTTP
	// (http.Request.RemoteAddr); "" on stdio.
	RemoteAddr string
}

// RequestInfoFrom returns the RequestInfo of the request that ctx, as
// given to a middleware (Options.Middleware) or a handler, belongs to.
func RequestInfoFrom(ctx context.Context) (RequestInfo, bool) {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return RequestInfo{}, false
	}
	info := RequestInfo{ID: ex.id}
	switch {
	case ex.stdio:
		info.Transport = "stdio"
	case ex.httpReq != nil:
		info.Transport, info.RemoteAddr = "http", ex.httpReq.RemoteAddr
	}
	if ex.sess != nil {
		info.SessionID = ex.sess.id
	}
	return info, true
}

// sink carries request-scoped notifications (progress, log messages) on
// the stream of the request they belong to.
type sink interface {
	// notify writes one notification; false when the stream cannot carry
	// notifications (a JSON response) or is closed.
	notify(write func(e *jx.Encoder)) bool
}

type exchangeKey struct{}

func withExchange(ctx context.Context, ex *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, ex)
}

func exchangeFrom(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	if ex == nil {
		ex = &exchange{out: nopSink{}}
	}
	return ex
}

type nopSink struct{}

func (nopSink) notify(func(*jx.Encoder)) bool { return false }

// Request is what every handler learns about the request it serves.
type Request struct {
	// ID is the JSON-RPC id of this request (a multi round-trip retry has a
	// new one).
	ID wire.ID
	// Method is the JSON-RPC method.
	Method string
	// Meta is the request's _meta: protocol version, client capabilities
	// and, when sent, client identity (unverified, META-9).
	Meta *mcp.RequestMetaObject

	srv *Server
	ex  *exchange
	ctx context.Context // the request's; a session's requests to the client end with it

	mu           sync.Mutex
	progressSent bool
	lastProgress float64
	done         bool

	in inputs // multi round-trip state (in.allowed: the method may ask for input)
}

func (r *Request) init(ctx context.Context, s *Server, method string, meta *mcp.RequestMetaObject) {
	ex := exchangeFrom(ctx)
	r.ID, r.Method, r.Meta, r.srv, r.ex, r.ctx = ex.id, method, meta, s, ex, ctx
	if d := s.rev.Lookup(method); d != nil {
		r.in.allowed = d.InputRequired // MRTR-1
	}
}

// ClientCapabilities returns what the client declared on this request.
func (r *Request) ClientCapabilities() *mcp.ClientCapabilities {
	return &r.Meta.ClientCapabilities
}

// Progress sends notifications/progress for this request when the client
// asked for it with a progressToken; it does nothing otherwise (PROG-1).
// progress must grow with every call (PROG-3); total and message are
// optional (pass 0 and "" to omit). It reports whether the notification
// was sent.
func (r *Request) Progress(progress, total float64, message string) bool {
	if r.Meta.ProgressToken.IsZero() {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.progressSent && progress <= r.lastProgress {
		return false
	}
	r.progressSent, r.lastProgress = true, progress
	p := mcp.ProgressNotificationParams{ProgressToken: r.Meta.ProgressToken, Progress: progress}
	if total > 0 {
		p.Total = wire.Some(total)
	}
	if message != "" {
		p.Message = wire.Some(message)
	}
	return r.ex.out.notify(func(e *jx.Encoder) {
		jsonrpc.WriteNotification(e, mcp.NotificationProgress, p.EncodeJSON)
	})
}

// Log sends a deprecated notifications/message on this request's stream,
// only when the server declares logging (Options.Logging) and the request
// opted in with a logLevel at or below level (LOG-2, LOG-3). data is
// encoded with encoding/json. It reports whether the message was sent.
func (r *Request) Log(level mcp.LoggingLevel, logger string, data any) bool {
	want := r.Meta.LogLevel
	if !r.srv.opts.Logging || !want.Set || level.Severity() < want.Value.Severity() {
		return false
	}
	raw, err := wire.RawOf(data)
	if err != nil {
		return false
	}
	p := mcp.LoggingMessageNotificationParams{Level: level, Data: raw}
	if logger != "" {
		p.Logger = wire.Some(logger)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return false
	}
	return r.ex.out.notify(func(e *jx.Encoder) {
		jsonrpc.WriteNotification(e, mcp.NotificationLoggingMessage, p.EncodeJSON)
	})
}

// finish stops notifications for this request (PROG-4: nothing after the
// final response).
func (r *Request) finish() {
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
}

// CloseStream ends the HTTP response that carries this request's messages
// now, while the request goes on (SEP-1699 polling): the client
// reconnects after the retry interval (HTTPOptions.RetryInterval) with
// Last-Event-ID and gets everything the request sent meanwhile, its
// answer included (LSSE-5, LSSE-7). It applies to requests of 2025-11-25
// sessions over HTTP answered on a stream; elsewhere it does nothing and
// reports false.
func (r *Request) CloseStream() bool {
	if rel, ok := r.ex.out.(interface{ release() bool }); ok {
		return rel.release()
	}
	return false
}
