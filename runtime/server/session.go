package server

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// session is one initialize-based connection: a stdio process after
// initialize (LSTDIO-4) or an HTTP session (Mcp-Session-Id). It holds what
// initialize fixed (version, the client's capabilities and identity), what
// the client set since (log level, resource subscriptions), the requests
// the server sent and waits on, and the client's requests in flight. The
// modern path never sees it (digest §2.4): handlers get the same _meta a
// modern request would carry, built from it.
type session struct {
	srv       *Server
	id        string // Mcp-Session-Id; "" on stdio
	principal string // who opened it (HTTP); requests of anyone else are refused
	version   string // negotiated

	ctx    context.Context // ends with the session
	cancel context.CancelFunc

	initialized atomic.Bool
	fixed       wire.Members                 // protocol version, capabilities, client info
	meta        atomic.Pointer[wire.Members] // fixed, plus the log level

	listener *listener // list changes and subscribed resources (nil once ended)

	mu      sync.Mutex
	level   wire.Opt[mcp20251125.LoggingLevel]
	nextID  int64
	waiting map[wire.ID]chan *jsonrpc.Message // the server's requests
	running map[wire.ID]context.CancelFunc    // the client's requests (HTTP)
	ended   bool
	onEnd   []func()
}

// newSession opens a session for an initialize request whose params p
// passed validation.
func (s *Server) newSession(p *mcp20251125.InitializeRequestParams, version, principal string) (*session, error) {
	caps, err := reshapeRaw(&p.Capabilities, "ClientCapabilities")
	if err != nil {
		return nil, err
	}
	info, err := reshapeRaw(&p.ClientInfo, "Implementation")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	sess := &session{srv: s, principal: principal, version: version, ctx: ctx, cancel: cancel,
		waiting: map[wire.ID]chan *jsonrpc.Message{}, running: map[wire.ID]context.CancelFunc{}}
	sess.fixed = wire.Members{
		{Key: mcp.MetaKeyProtocolVersion, Value: wire.Raw(strconv.Quote(version))},
		{Key: mcp.MetaKeyClientCapabilities, Value: caps},
		{Key: mcp.MetaKeyClientInfo, Value: info},
	}
	sess.setMeta()
	l := &listener{wake: make(chan struct{}, 1)}
	l.filter.ToolsListChanged = someTrue
	l.filter.PromptsListChanged = someTrue
	l.filter.ResourcesListChanged = someTrue
	if s.hub.add(l) {
		sess.listener = l
	}
	return sess, nil
}

// reshapeRaw converts a legacy value of definition def into the modern
// shape, as JSON.
func reshapeRaw(v wireimpl.Codec, def string) (wire.Raw, error) {
	raw, err := wireimpl.Marshal(v)
	if err != nil {
		return nil, err
	}
	return wireimpl.Reshape(raw, legacy.shapes[def], modern.shapes[def], nil)
}

// setMeta rebuilds the _meta handlers see. The log level is the one the
// client set, or every level when it set none (LLOG-5: the customary
// default), when the server declares logging.
func (sess *session) setMeta() {
	m := append(wire.Members(nil), sess.fixed...)
	if sess.srv.opts.Logging {
		level := mcp20251125.LoggingLevelDebug
		if sess.level.Set {
			level = sess.level.Value
		}
		m = append(m, wire.Member{Key: mcp.MetaKeyLogLevel, Value: wire.Raw(strconv.Quote(string(level)))})
	}
	sess.meta.Store(&m)
}

// end ends the session: its requests are cancelled, the server's own
// requests fail, its subscriptions stop. It is safe to call more than once.
func (sess *session) end() {
	sess.mu.Lock()
	if sess.ended {
		sess.mu.Unlock()
		return
	}
	sess.ended = true
	onEnd := sess.onEnd
	sess.onEnd = nil
	sess.waiting = nil
	sess.mu.Unlock()
	sess.cancel()
	if sess.listener != nil {
		sess.srv.hub.remove(sess.listener)
	}
	for _, f := range onEnd {
		f()
	}
}

// whenEnded registers f to run when the session ends (at once if it has).
func (sess *session) whenEnded(f func()) {
	sess.mu.Lock()
	if !sess.ended {
		sess.onEnd = append(sess.onEnd, f)
		sess.mu.Unlock()
		return
	}
	sess.mu.Unlock()
	f()
}

// begin registers a client request so that notifications/cancelled can
// stop it (LCAN-1); the context ends with the request, its cancellation
// or the session. It fails for an id already in flight (LS2C-4).
func (sess *session) begin(id wire.ID) (context.Context, func(), error) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.ended {
		return nil, nil, errSessionEnded
	}
	if _, dup := sess.running[id]; dup {
		return nil, nil, &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: id " + id.String() + " is already in use in this session"}
	}
	ctx, cancel := context.WithCancel(sess.ctx)
	sess.running[id] = cancel
	return ctx, func() {
		sess.mu.Lock()
		delete(sess.running, id)
		sess.mu.Unlock()
		cancel()
	}, nil
}

var errSessionEnded = &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: the session has ended"}

// cancelRequest handles notifications/cancelled from the client; unknown
// or malformed ones are ignored (LCAN-4).
func (sess *session) cancelRequest(params wire.Raw) {
	var p mcp20251125.CancelledNotificationParams
	if wireimpl.Decode(params, &p) != nil || p.RequestID.IsZero() {
		return
	}
	sess.mu.Lock()
	cancel := sess.running[p.RequestID]
	sess.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// notified handles a notification from the client (MSG-5: never answered).
func (sess *session) notified(m *jsonrpc.Message) {
	switch m.Method {
	case mcp20251125.NotificationInitialized:
		sess.initialized.Store(true)
	case mcp20251125.NotificationCancelled:
		sess.cancelRequest(m.Params)
	}
	// notifications/progress (for a request of ours) and
	// notifications/roots/list_changed need nothing: roots are asked for
	// each time.
}

// deliver hands the client's response to the server request waiting for
// it; a response nobody waits for is dropped (LCAN-5).
func (sess *session) deliver(m *jsonrpc.Message) bool {
	sess.mu.Lock()
	ch := sess.waiting[m.ID]
	delete(sess.waiting, m.ID)
	sess.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- m
	return true
}

// ask sends the client a request (elicitation/create, sampling/createMessage,
// roots/list: LS2C-1) on out, the stream of the request being served, and
// waits for the answer, which it converts into result. params and result
// are the modern values; the request goes out as the legacy revision's.
func (sess *session) ask(ctx context.Context, out sink, method string, params, result wireimpl.Codec) error {
	b := bridgeOf(method)
	if b == nil {
		return errors.New("server: " + method + " has no form in " + sess.version)
	}
	var lp wireimpl.Codec
	if params != nil {
		var err error
		if lp, err = b.downParams(params); err != nil {
			return err
		}
	}
	ch := make(chan *jsonrpc.Message, 1)
	sess.mu.Lock()
	if sess.ended {
		sess.mu.Unlock()
		return errSessionEnded
	}
	sess.nextID++
	id := wire.IntID(sess.nextID)
	sess.waiting[id] = ch
	sess.mu.Unlock()
	sent := out.notify(func(e *jx.Encoder) {
		var write func(*jx.Encoder)
		if lp != nil {
			write = lp.EncodeJSON
		}
		jsonrpc.WriteRequest(e, id, method, write)
	})
	if !sent {
		sess.forget(id)
		return &wire.Error{Code: wire.CodeInternalError, Message: "Internal error: " + method + " needs a stream to the client (a 2025-11-25 client over HTTP must accept text/event-stream)"}
	}
	select {
	case m := <-ch:
		if m.Kind == jsonrpc.KindError {
			return m.Error
		}
		if err := b.upResult(m.Result, result); err != nil {
			return wireimpl.InvalidParams(wireimpl.AtKey(err, "result"))
		}
		return nil
	case <-ctx.Done():
		sess.forget(id)
		// The request is abandoned: tell the client (LLIFE-9, LCAN-1).
		n := mcp20251125.CancelledNotificationParams{RequestID: id, Reason: wire.Some("the request it served ended")}
		out.notify(func(e *jx.Encoder) {
			jsonrpc.WriteNotification(e, mcp20251125.NotificationCancelled, n.EncodeJSON)
		})
		return ctx.Err()
	}
}

func (sess *session) forget(id wire.ID) {
	sess.mu.Lock()
	delete(sess.waiting, id)
	sess.mu.Unlock()
}

// subscribe adds (or, with on false, removes) uri to the resources whose
// updates the session receives (LSUB-1, LSUB-3).
func (sess *session) subscribe(uri string, on bool) {
	if sess.listener == nil {
		return
	}
	sess.srv.hub.mu.Lock()
	defer sess.srv.hub.mu.Unlock()
	f := &sess.listener.filter
	i := indexOf(f.ResourceSubscriptions, uri)
	switch {
	case on && i < 0:
		f.ResourceSubscriptions = append(f.ResourceSubscriptions, uri)
	case !on && i >= 0:
		f.ResourceSubscriptions = append(f.ResourceSubscriptions[:i], f.ResourceSubscriptions[i+1:]...)
	}
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// changes writes the notifications for what changed since the last call
// (LSUB-2, LSUB-4) with send; it reports false when send failed.
func (sess *session) changes(send func(write func(*jx.Encoder)) bool) bool {
	c, uris := sess.listener.take()
	for _, n := range listChanges {
		if c&n.bit != 0 && !send(func(e *jx.Encoder) { jsonrpc.WriteNotification(e, n.method, nil) }) {
			return false
		}
	}
	for _, uri := range uris {
		p := mcp20251125.ResourceUpdatedNotificationParams{URI: uri}
		if !send(func(e *jx.Encoder) {
			jsonrpc.WriteNotification(e, mcp20251125.NotificationResourceUpdated, p.EncodeJSON)
		}) {
			return false
		}
	}
	return true
}

// listChanges are the list-changed notifications, by kind of change.
var listChanges = []struct {
	bit    change
	method string
}{
	{changeTools, mcp.NotificationToolListChanged},
	{changePrompts, mcp.NotificationPromptListChanged},
	{changeResources, mcp.NotificationResourceListChanged},
}
