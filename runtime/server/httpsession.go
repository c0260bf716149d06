package server

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The 2025-11-25 side of the Streamable HTTP transport: sessions named by
// Mcp-Session-Id (LHTTP-5..9), POSTs of a session's requests,
// notifications and responses, the GET stream (LSSE-1, LSSE-2) with
// resumption by Last-Event-ID (LSSE-7), and DELETE (LHTTP-8).

// headerSessionID is the session header of the 2025-11-25 transport.
const headerSessionID = "Mcp-Session-Id"

// Defaults of the session limits (HTTPOptions).
const (
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultMaxSessions        = 10000
	DefaultRetryInterval      = time.Second
)

// httpSession is a session of the HTTP transport.
type httpSession struct {
	*session
	store *sessionStore
	timer *time.Timer
	busy  atomic.Int32 // requests and GET streams in progress: an idle timeout waits for them
	last  atomic.Int64 // when the last of them ended, unix nanoseconds

	smu        sync.Mutex
	nextStream int64
	streams    map[int64]*eventStream // POST streams not yet delivered
	get        *eventStream           // the GET stream, once opened
	getOpen    bool                   // a connection carries the GET stream
}

// sessionStore holds the sessions of one Handler.
type sessionStore struct {
	idle time.Duration
	max  int

	mu   sync.Mutex
	byID map[string]*httpSession
}

func newSessionStore(idle time.Duration, max int) *sessionStore {
	return &sessionStore{idle: idle, max: max, byID: map[string]*httpSession{}}
}

var errTooManySessions = errors.New("server: too many sessions")

// open registers a new session under an unguessable id (LHTTP-5: 128
// random bits, base64url: visible ASCII only).
func (st *sessionStore) open(sess *session) (*httpSession, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	hs := &httpSession{session: sess, store: st, streams: map[int64]*eventStream{}}
	sess.id = base64.RawURLEncoding.EncodeToString(b[:])
	st.mu.Lock()
	if len(st.byID) >= st.max {
		st.mu.Unlock()
		return nil, errTooManySessions
	}
	st.byID[sess.id] = hs
	st.mu.Unlock()
	hs.timer = time.AfterFunc(st.idle, hs.expire)
	sess.whenEnded(func() {
		hs.timer.Stop()
		st.mu.Lock()
		delete(st.byID, sess.id)
		st.mu.Unlock()
		hs.smu.Lock()
		streams := hs.streams
		hs.streams = nil
		get := hs.get
		hs.smu.Unlock()
		for _, s := range streams {
			s.finish(nil)
		}
		if get != nil {
			get.finish(nil)
		}
	})
	return hs, nil
}

// lookup finds the session of id for principal; a session opened by
// another principal is not found (LHTTP-12).
func (st *sessionStore) lookup(id, principal string) *httpSession {
	st.mu.Lock()
	hs := st.byID[id]
	st.mu.Unlock()
	if hs == nil || hs.principal != principal {
		return nil
	}
	return hs
}

func (st *sessionStore) count() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.byID)
}

// expire ends an idle session: one still busy, or active within the
// idle timeout, is looked at again when it could next be idle.
func (hs *httpSession) expire() {
	idle := hs.store.idle
	if hs.busy.Load() > 0 {
		hs.timer.Reset(idle)
		return
	}
	if since := time.Duration(time.Now().UnixNano() - hs.last.Load()); since < idle {
		hs.timer.Reset(idle - since)
		return
	}
	hs.end()
}

// enter marks the session busy (and not idle) until leave.
func (hs *httpSession) enter() { hs.busy.Add(1) }

// leave ends what enter began, and records the activity.
func (hs *httpSession) leave() {
	hs.last.Store(time.Now().UnixNano())
	hs.busy.Add(-1)
}

// newStream makes a POST stream.
func (hs *httpSession) newStream(retry time.Duration) *eventStream {
	hs.smu.Lock()
	defer hs.smu.Unlock()
	hs.nextStream++
	st := &eventStream{id: hs.nextStream, retryMs: retry.Milliseconds()}
	if hs.streams != nil {
		hs.streams[st.id] = st
		if len(hs.streams) > maxKeptStreams {
			oldest := st.id
			for id := range hs.streams {
				oldest = min(oldest, id)
			}
			delete(hs.streams, oldest)
		}
	}
	return st
}

// maxKeptStreams bounds the POST streams a session keeps for resumption.
const maxKeptStreams = 64

func (hs *httpSession) forgetStream(st *eventStream) {
	hs.smu.Lock()
	if hs.streams != nil {
		delete(hs.streams, st.id)
	}
	hs.smu.Unlock()
}

// handshake answers initialize over HTTP: the result as JSON, with the new
// session's id in Mcp-Session-Id.
func (h *httpHandler) handshake(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, who identity) {
	sess, res, err := h.s.handshake(m, who.key)
	if err != nil {
		rpc := h.s.toRPCError(m.Method, err)
		writeJSONError(w, m.ID, rpc)
		return
	}
	hs, err := h.sessions.open(sess)
	if err != nil {
		sess.end()
		msg := "Service unavailable: the server has as many sessions as it keeps; retry later"
		if !errors.Is(err, errTooManySessions) {
			msg = "Internal error: no session id"
		}
		e := jx.GetEncoder()
		defer jx.PutEncoder(e)
		jsonrpc.WriteError(e, m.ID, &wire.Error{Code: wire.CodeInternalError, Message: msg})
		w.Header()["Content-Type"] = contentTypeJSON
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write(e.Bytes())
		return
	}
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	jsonrpc.WriteResult(e, m.ID, res.EncodeJSON)
	w.Header().Set(headerSessionID, hs.id)
	w.Header()["Content-Type"] = contentTypeJSON
	_, _ = w.Write(e.Bytes())
}

// session finds the session a request names, answering it when there is
// none: 400 without the header, 404 for an unknown or ended one (LHTTP-7),
// 400 for a protocol version other than the session's (LHTTP-9).
func (h *httpHandler) session(w http.ResponseWriter, r *http.Request, who identity) *httpSession {
	id := r.Header.Get(headerSessionID)
	if id == "" {
		writeHTTPError(w, http.StatusBadRequest, "Bad request: "+headerSessionID+" header is missing; a 2025-11-25 client must send initialize first")
		return nil
	}
	hs := h.sessions.lookup(id, who.key)
	if hs == nil {
		writeHTTPError(w, http.StatusNotFound, "Session not found: it ended or never existed; send initialize again")
		return nil
	}
	if v := r.Header.Get(mcpheader.ProtocolVersion); v != "" && v != hs.version {
		writeHTTPError(w, http.StatusBadRequest, "Bad request: "+mcpheader.ProtocolVersion+" is "+v+" but this session uses "+hs.version)
		return nil
	}
	return hs
}

// writeHTTPError answers with status and a JSON-RPC error without id.
func writeHTTPError(w http.ResponseWriter, status int, msg string) {
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	jsonrpc.WriteError(e, wire.ID{}, &wire.Error{Code: wire.CodeInvalidRequest, Message: msg})
	w.Header()["Content-Type"] = contentTypeJSON
	w.WriteHeader(status)
	_, _ = w.Write(e.Bytes())
}

// serveSession handles a POST of a session: a notification or a response
// is taken (202, LHTTP-3); a request is served in the session, its answer
// sent as JSON or, when it may send notifications or requests first
// (LPROG-5, LS2C-2), on an SSE stream of its own.
func (h *httpHandler) serveSession(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, who identity) {
	hs := h.session(w, r, who)
	if hs == nil {
		return
	}
	hs.enter()
	defer hs.leave()
	switch m.Kind {
	case jsonrpc.KindNotification:
		hs.notified(m)
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.KindResult, jsonrpc.KindError:
		hs.deliver(m)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	ctx, done, err := hs.begin(m.ID)
	if err != nil {
		var rpc *wire.Error
		errors.As(err, &rpc)
		writeJSONResponse(w, m.ID, rpc)
		return
	}
	ex := &exchange{id: m.ID, method: m.Method, principal: hs.principal, sess: hs.session, out: nopSink{}, caller: who.p, authz: h.opts.Auth, httpReq: r}
	if !acceptsSSE(r) || !mayStream(m) {
		defer done()
		e := jx.GetEncoder()
		defer jx.PutEncoder(e)
		rpc, err := h.s.respond(ctx, ex, m, e)
		if err != nil {
			w.WriteHeader(http.StatusAccepted) // cancelled (LCAN-3): no answer
			return
		}
		if se := (*scopeError)(nil); errors.As(rpc, &se) {
			h.opts.Auth.WriteError(w, se.err)
			return
		}
		w.Header()["Content-Type"] = contentTypeJSON
		_, _ = w.Write(e.Bytes()) // JSON-RPC errors too: 200 in this revision
		return
	}
	// The scopes of what the request names are checked before its stream
	// opens, so that too little scope is still a 403 (AUTHS-5).
	if d := modern.rev.Lookup(m.Method); d != nil && d.NameMember != "" && h.opts.Auth != nil {
		if name, ok := topString(m.Params, d.NameMember); ok {
			if err := h.s.authorize(ex, m.Method, name); err != nil {
				done()
				h.opts.Auth.WriteError(w, err.(*scopeError).err)
				return
			}
		}
	}
	st := hs.newStream(h.opts.RetryInterval)
	ex.out = streamSink{st}
	conn := newSSEConn(w)
	st.open(conn)
	hs.enter() // the request may outlive this POST
	workers.run(func() {
		defer hs.leave()
		defer done()
		e := jx.GetEncoder()
		defer jx.PutEncoder(e)
		var last []byte
		if _, err := h.s.respond(ctx, ex, m, e); err == nil {
			last = e.Bytes()
		}
		if st.finish(last) {
			hs.forgetStream(st)
		}
	})
	// A request still running after primeAfter gets its SSE stream and
	// priming event, so that a client whose connection then drops can
	// resume (LSSE-4, LSSE-7); a quick one answers as plain JSON.
	prime := getTimer(primeAfter)
	defer putTimer(prime)
	for {
		select {
		case <-conn.gone:
			return
		case <-r.Context().Done():
			st.detach(conn) // not a cancellation (LCAN-6): the stream waits for the client
			return
		case <-prime.C:
			st.prime()
		}
	}
}

// primeAfter is how long a session request may run before its response
// becomes an SSE stream (see serveSession).
const primeAfter = 50 * time.Millisecond

// timers are reused: one per request would be a good part of what a quick
// request allocates. A stopped timer's channel is empty (Go 1.23 timers).
var timers sync.Pool

func getTimer(d time.Duration) *time.Timer {
	if t, ok := timers.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

func putTimer(t *time.Timer) {
	t.Stop()
	timers.Put(t)
}

// writeJSONResponse writes a JSON-RPC error response with 200.
func writeJSONResponse(w http.ResponseWriter, id wire.ID, err *wire.Error) {
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	jsonrpc.WriteError(e, id, err)
	w.Header()["Content-Type"] = contentTypeJSON
	_, _ = w.Write(e.Bytes())
}

// mayStream reports a request that may send notifications or requests
// before its answer: one whose method may ask the client for input, or
// that asked for progress.
func mayStream(m *jsonrpc.Message) bool {
	if d := modern.rev.Lookup(m.Method); d != nil && d.InputRequired {
		return true
	}
	return bytes.Contains(m.Params, progressTokenKey)
}

var progressTokenKey = []byte(`"progressToken"`)

// serveGet opens the session's GET stream (LSSE-1), or resumes a stream
// after the event Last-Event-ID names (LSSE-7).
func (h *httpHandler) serveGet(w http.ResponseWriter, r *http.Request, who identity) {
	hs := h.session(w, r, who)
	if hs == nil {
		return
	}
	if !acceptsSSE(r) {
		writeHTTPError(w, http.StatusNotAcceptable, "Not acceptable: the GET stream is text/event-stream; list it in Accept")
		return
	}
	hs.enter()
	defer hs.leave()
	after := int64(0)
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		if id, seq, ok := parseEventID(last); ok && id != 0 {
			hs.smu.Lock()
			st := hs.streams[id]
			hs.smu.Unlock()
			if st != nil {
				h.resume(w, r, hs, st, seq)
				return
			}
			// A POST stream that was delivered, cancelled or dropped: there
			// is nothing to resume. 405 (LSSE-1) ends a client's attempts
			// without it falling back to the session's GET stream, whose
			// events belong to no POST (LSSE-7).
			w.Header().Set("Allow", "GET, POST, DELETE")
			writeHTTPError(w, http.StatusMethodNotAllowed, "Method not allowed: stream "+strconv.FormatInt(id, 10)+" has ended; there is nothing to resume")
			return
		} else if ok {
			after = seq
		}
	}
	hs.smu.Lock()
	if hs.get == nil {
		hs.get = &eventStream{id: 0, retryMs: h.opts.RetryInterval.Milliseconds()}
	}
	st, busy := hs.get, hs.getOpen
	if !busy {
		hs.getOpen = true
	}
	hs.smu.Unlock()
	if busy {
		writeHTTPError(w, http.StatusConflict, "Conflict: this session's GET stream is open on another connection")
		return
	}
	defer func() {
		hs.smu.Lock()
		hs.getOpen = false
		hs.smu.Unlock()
	}()
	conn := newSSEConn(w)
	st.attach(conn, after)
	keepAlive := time.NewTicker(h.opts.KeepAlive)
	defer keepAlive.Stop()
	var wake <-chan struct{}
	if hs.listener != nil {
		wake = hs.listener.wake
		hs.changes(streamSink{st}.notify) // what changed while no stream was open
	}
	for {
		select {
		case <-conn.gone:
			return
		case <-r.Context().Done():
			st.detach(conn)
			return
		case <-hs.ctx.Done():
			return
		case <-keepAlive.C:
			st.comment()
		case <-wake:
			hs.changes(streamSink{st}.notify)
		}
	}
}

// resume carries a POST stream on a GET: what followed event seq first,
// then the rest until the answer.
func (h *httpHandler) resume(w http.ResponseWriter, r *http.Request, hs *httpSession, st *eventStream, seq int64) {
	conn := newSSEConn(w)
	if st.attach(conn, seq) {
		hs.forgetStream(st)
		return
	}
	select {
	case <-conn.gone:
		st.mu.Lock()
		delivered := st.done && st.kept == nil
		st.mu.Unlock()
		if delivered {
			hs.forgetStream(st)
		}
	case <-r.Context().Done():
		st.detach(conn)
	}
}

// serveDelete ends a session (LHTTP-8).
func (h *httpHandler) serveDelete(w http.ResponseWriter, r *http.Request, who identity) {
	hs := h.session(w, r, who)
	if hs == nil {
		return
	}
	hs.end()
	w.WriteHeader(http.StatusNoContent)
}
