package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// legacySession speaks an initialize-based revision (2025-11-25, and the
// older 2025-06-18 and 2025-03-26 a server may counter-propose, LVER-7)
// over the client's connection. The typed methods stay those of
// 2026-07-28: requests are converted to 2025-11-25 by the shape tables
// (legacy_convert.go), results decoded and validated with gen/mcp20251125
// and converted back, so a missing resultType reads as "complete" and a
// missing ttlMs as 0 (BC-1).
type legacySession struct {
	c *Client
	w legacyWire

	// ctx lives until close: the server's requests are answered under it.
	ctx    context.Context
	cancel context.CancelFunc

	openMu sync.Mutex // serialises (re)initializing
	subMu  sync.Mutex // orders resources/subscribe and resources/unsubscribe

	mu   sync.Mutex
	v    string // the negotiated version
	init *mcp20251125.InitializeResult
	gen  int // counts handshakes: a 404 re-initializes once per session (LHTTP-7)
	// logLevel is what logging/setLevel last set ("" for nothing).
	logLevel mcp.LoggingLevel
	// subs counts the listeners of each subscribed resource (LSUB-1).
	subs      map[string]int
	listeners map[*legacyListener]struct{}
	// serving holds the server's requests being answered, by id, so that
	// notifications/cancelled can stop them (LCAN-3).
	serving map[wire.ID]context.CancelFunc
	// tokens maps the progress tokens of our requests in flight to their
	// options: progress may arrive on another stream than the request's.
	tokens map[string]*callOptions
}

// A legacyWire carries a legacy connection: requests in both directions,
// and responses from the client too (LSTDIO-2, LS2C-3).
type legacyWire interface {
	// call sends our request and waits for its response. Messages that
	// arrive on the request's own stream go to c.OnMessage; on timeout or
	// cancellation the request is cancelled with notifications/cancelled
	// (LCAN-1), except initialize (LLIFE-7).
	call(ctx context.Context, c *Call) (*jsonrpc.Message, error)
	// send sends a notification or a response of ours.
	send(ctx context.Context, msg []byte) error
	// opened is told the version initialize negotiated: later requests
	// carry it (LVER-8).
	opened(version string)
	// start begins receiving the messages that belong to no request of ours
	// (HTTP: the GET stream, LSSE-1); they go to the session's unsolicited.
	start()
	// reset forgets the session the server ended (LHTTP-7).
	reset()
	// close ends the session (HTTP: DELETE, LHTTP-8) and the connection.
	close() error
}

// errSessionGone reports a 404 to a request that carried a session id:
// the server ended the session (LHTTP-7).
var errSessionGone = errors.New("client: the server ended the session (HTTP 404)")

// streamWire is a legacyWire on a Transport: the stdio framing (the
// server's requests and our responses are lines like any other), or a
// caller's own transport, which passes the server's requests to
// Call.OnMessage and writes our responses with Notify.
type streamWire struct{ t Transport }

func (w streamWire) call(ctx context.Context, c *Call) (*jsonrpc.Message, error) {
	if c.Method != mcp20251125.MethodInitialize {
		return w.t.Call(ctx, c) // cancels with notifications/cancelled (STDIO-6)
	}
	// LLIFE-7: initialize is never cancelled. The call waits on a context
	// of its own; the caller stops waiting (and Connect closes the
	// connection) when ctx ends.
	type res struct {
		m   *jsonrpc.Message
		err error
	}
	done := make(chan res, 1)
	go func() {
		m, err := w.t.Call(context.WithoutCancel(ctx), c)
		done <- res{m, err}
	}()
	select {
	case r := <-done:
		return r.m, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (w streamWire) send(ctx context.Context, msg []byte) error { return w.t.Notify(ctx, msg) }
func (w streamWire) opened(string)                              {}
func (w streamWire) start()                                     {}
func (w streamWire) reset()                                     {}
func (w streamWire) close() error                               { return w.t.Close() }

// legacyListener is one Listen loop on a legacy session.
type legacyListener struct {
	filter mcp.SubscriptionFilter // what it was granted
	note   func(*jsonrpc.Message)
}

func newLegacySession(c *Client) *legacySession {
	s := &legacySession{c: c, subs: map[string]int{}, listeners: map[*legacyListener]struct{}{},
		serving: map[wire.ID]context.CancelFunc{}, tokens: map[string]*callOptions{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	switch t := c.t.(type) {
	case *httpConn:
		s.w = newLegacyHTTP(t, s)
	case *stream:
		t.legacy.Store(true) // the server's requests and cancellations are the session's
		s.w = streamWire{t}
	default:
		s.w = streamWire{c.t}
	}
	return s
}

// open performs the handshake (LLIFE-1..3).
func (s *legacySession) open(ctx context.Context) error {
	s.openMu.Lock()
	defer s.openMu.Unlock()
	return s.handshake(ctx)
}

// handshake sends initialize offering our newest legacy version (LVER-1),
// accepts the version the server answers if it is one of ours (LVER-7) or
// disconnects (LVER-3), then sends notifications/initialized (LLIFE-3).
// openMu is held.
func (s *legacySession) handshake(ctx context.Context) error {
	versions := s.c.legacyVersions()
	if len(versions) == 0 {
		versions = []string{legacyVersion}
	}
	p := &mcp20251125.InitializeRequestParams{ProtocolVersion: versions[0]}
	caps := s.c.capabilities()
	if err := toLegacy(&caps, "ClientCapabilities", &p.Capabilities, "ClientCapabilities"); err != nil {
		return fmt.Errorf("client: initialize: the client capabilities: %w", err)
	}
	if err := toLegacy(&s.c.info, "Implementation", &p.ClientInfo, "Implementation"); err != nil {
		return fmt.Errorf("client: initialize: the client info: %w", err)
	}
	id := wire.IntID(s.c.ids.Add(1))
	e := jx.GetEncoder()
	jsonrpc.WriteRequest(e, id, mcp20251125.MethodInitialize, p.EncodeJSON)
	call := &Call{ID: id, Method: mcp20251125.MethodInitialize, Body: slices.Clone(e.Bytes()),
		OnMessage: func(m *jsonrpc.Message) { s.onMessage(nil, m) }}
	jx.PutEncoder(e)
	ctx, cancel := context.WithTimeout(ctx, s.c.opts.ProbeTimeout)
	defer cancel()
	resp, err := s.w.call(ctx, call)
	if err != nil {
		return fmt.Errorf("client: initialize: %w", err)
	}
	if resp.Kind == jsonrpc.KindError {
		return fmt.Errorf("client: initialize: %w", resp.Error)
	}
	res := new(mcp20251125.InitializeResult)
	if err := wireimpl.Decode(resp.Result, res); err != nil {
		return &ResultError{Method: mcp20251125.MethodInitialize, Err: err}
	}
	if err := res.Validate(); err != nil {
		return &ResultError{Method: mcp20251125.MethodInitialize, Err: err}
	}
	if !isLegacyVersion(res.ProtocolVersion) || !slices.Contains(s.c.opts.Versions, res.ProtocolVersion) {
		// LVER-3: a version we cannot use; the caller disconnects.
		return &VersionError{Ours: s.c.opts.Versions, Theirs: []string{res.ProtocolVersion}, Legacy: true}
	}
	s.mu.Lock()
	s.v, s.init, s.logLevel = res.ProtocolVersion, res, ""
	s.gen++
	s.mu.Unlock()
	s.w.opened(res.ProtocolVersion)
	e = jx.GetEncoder()
	jsonrpc.WriteNotification(e, mcp20251125.NotificationInitialized, nil)
	err = s.w.send(ctx, slices.Clone(e.Bytes()))
	jx.PutEncoder(e)
	if err != nil {
		return fmt.Errorf("client: notifications/initialized: %w", err)
	}
	s.w.start()
	return nil
}

// reopen initializes anew after the server ended the session (LHTTP-7),
// unless another call did so since generation gen, and restores the
// session state the client keeps: resource subscriptions (LSUB-6).
func (s *legacySession) reopen(ctx context.Context, gen int) error {
	s.openMu.Lock()
	s.mu.Lock()
	cur := s.gen
	s.mu.Unlock()
	if cur != gen {
		s.openMu.Unlock()
		return nil
	}
	s.c.log.Info("the server ended the MCP session; initializing a new one (LHTTP-7)")
	s.w.reset()
	err := s.handshake(ctx)
	s.openMu.Unlock()
	if err != nil {
		return err
	}
	s.mu.Lock()
	uris := make([]string, 0, len(s.subs))
	for uri := range s.subs {
		uris = append(uris, uri)
	}
	s.mu.Unlock()
	for _, uri := range uris {
		if err := s.subscribe(ctx, mcp20251125.MethodSubscribe, uri); err != nil {
			s.c.log.Warn("cannot subscribe again after a new session", "uri", uri, "error", err.Error())
		}
	}
	return nil
}

func (s *legacySession) version() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v
}

func (s *legacySession) generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

func (s *legacySession) serverCaps() *mcp20251125.ServerCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &s.init.Capabilities
}

// meta is what a legacy request's _meta holds: the progress token and the
// WithMeta members (the modern keys have no meaning here, and 2025-11-25
// declares none of them).
func (s *legacySession) meta(o *callOptions) mcp.RequestMetaObject {
	var m mcp.RequestMetaObject
	addMeta(&m, o)
	return m
}

func (s *legacySession) mirrorsHeaders() bool { return false }

func (s *legacySession) close() error {
	s.stop()
	return s.w.close()
}

// stop ends what the session runs (server requests being answered, the
// GET stream, Listen loops) without closing the connection.
func (s *legacySession) stop() { s.cancel() }

// exchange performs one request of the typed surface in the legacy era.
func (s *legacySession) exchange(ctx context.Context, o *callOptions, method string, p wireimpl.Codec) (wireimpl.Codec, error) {
	switch method {
	case mcp.MethodDiscover:
		return s.discoverResult()
	case mcp.MethodSubscriptionsListen:
		lp, ok := p.(*mcp.SubscriptionsListenRequestParams)
		if !ok {
			return nil, fmt.Errorf("client: %s: params of type %T", method, p)
		}
		return s.listen(ctx, o, lp)
	}
	md, ld := modernRev.Lookup(method), legacyRev.Lookup(method)
	if md == nil || ld == nil || ld.Kind != wireimpl.Request || ld.Direction == wireimpl.ServerToClient || len(ld.ResultTypes) == 0 {
		return nil, fmt.Errorf("client: %s has no counterpart in MCP %s", method, s.version())
	}
	lp, err := toLegacyRaw(p, md.ParamsType, ld.NewParams(), ld.ParamsType)
	if err != nil {
		return nil, fmt.Errorf("client: %s: the request cannot be expressed in MCP %s: %w", method, s.version(), err)
	}
	if o.logLevel != "" {
		s.setLevel(ctx, o.logLevel)
	}
	raw, err := s.request(ctx, o, method, lp)
	if err != nil {
		return nil, modernError(method, err)
	}
	r := md.NewResult()
	if err := fromLegacy(raw, ld.NewResult(), ld.ResultTypes[0], r, resultDef(md, ld)); err != nil {
		return nil, &ResultError{Method: method, Err: err}
	}
	return r, nil
}

// modernError gives a legacy error the meaning it has in 2026-07-28:
// resource-not-found is -32002 in legacy revisions and -32602 now (BC-1),
// so callers test one code whatever the server's era.
func modernError(method string, err error) error {
	var rpc *wire.Error
	if method == mcp.MethodReadResource && errors.As(err, &rpc) && rpc.Code == mcp20251125.CodeResourceNotFound {
		return &wire.Error{Code: wire.CodeInvalidParams, Message: rpc.Message, Data: rpc.Data}
	}
	return err
}

// request sends a 2025-11-25 request and returns its result, verbatim.
// It times out as Options.Timeout says (LLIFE-9: the wire then sends
// notifications/cancelled), and after the server ended the session it
// initializes anew and sends the request once more (LHTTP-7).
func (s *legacySession) request(ctx context.Context, o *callOptions, method string, p wireimpl.EncodeJSONer) (wire.Raw, error) {
	timeout := s.c.opts.Timeout
	if o.timeout != 0 {
		timeout = o.timeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if o.token != "" {
		s.mu.Lock()
		s.tokens[o.token] = o
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.tokens, o.token)
			s.mu.Unlock()
		}()
	}
	for attempt := 0; ; attempt++ {
		gen := s.generation()
		id := wire.IntID(s.c.ids.Add(1))
		reportID(ctx, id)
		e := jx.GetEncoder()
		jsonrpc.WriteRequest(e, id, method, p.EncodeJSON)
		call := &Call{ID: id, Method: method, Body: slices.Clone(e.Bytes()), Token: o.token,
			OnMessage: func(m *jsonrpc.Message) { s.onMessage(o, m) }}
		jx.PutEncoder(e)
		if _, ok := p.(checked); ok {
			// decoded and validated already (toLegacyRaw)
		} else if err := checkJSON(call.Body); err != nil {
			return nil, fmt.Errorf("client: %s: the request is not valid JSON (check the arguments and WithMeta values): %w", method, err)
		}
		resp, err := s.w.call(ctx, call)
		if errors.Is(err, errSessionGone) && attempt == 0 {
			if err := s.reopen(ctx, gen); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if resp.Kind == jsonrpc.KindError {
			return nil, resp.Error
		}
		return resp.Result, nil
	}
}

// discoverResult describes the server as initialize did, in the shape of
// a DiscoverResult: what Discover returns on a legacy session.
func (s *legacySession) discoverResult() (wireimpl.Codec, error) {
	s.mu.Lock()
	init, v := s.init, s.v
	s.mu.Unlock()
	d := &mcp.DiscoverResult{
		ResultType:        mcp.ResultTypeComplete,
		SupportedVersions: []string{v},
		Instructions:      init.Instructions,
		CacheScope:        mcp.CacheScopePrivate,
	}
	caps, err := wireimpl.Marshal(&init.Capabilities)
	if err == nil {
		err = fromLegacy(caps, new(mcp20251125.ServerCapabilities), "ServerCapabilities", &d.Capabilities, "ServerCapabilities")
	}
	if err != nil {
		return nil, &ResultError{Method: mcp20251125.MethodInitialize, Err: err}
	}
	info := new(mcp.Implementation)
	raw, err := wireimpl.Marshal(&init.ServerInfo)
	if err == nil {
		err = fromLegacy(raw, new(mcp20251125.Implementation), "Implementation", info, "Implementation")
	}
	if err != nil {
		return nil, &ResultError{Method: mcp20251125.MethodInitialize, Err: err}
	}
	d.Meta = &mcp.ResultMetaObject{ServerInfo: info}
	return d, nil
}

// setLevel asks the server for log messages at level and above
// (logging/setLevel, LLOG-2): the legacy form of WithLogLevel, which is
// session-wide. Servers without the logging capability are not asked
// (LLIFE-6).
func (s *legacySession) setLevel(ctx context.Context, level mcp.LoggingLevel) {
	s.mu.Lock()
	same := s.logLevel == level
	s.mu.Unlock()
	if same || !s.serverCaps().Has("logging") {
		return
	}
	p := &mcp20251125.SetLevelRequestParams{Level: mcp20251125.LoggingLevel(level)}
	if _, err := s.request(ctx, &callOptions{}, mcp20251125.MethodSetLevel, p); err != nil {
		s.c.log.Warn("logging/setLevel failed", "level", string(level), "error", err.Error())
		return
	}
	s.mu.Lock()
	s.logLevel = level
	s.mu.Unlock()
}

// unsolicited handles a message that belongs to no request of ours.
func (s *legacySession) unsolicited(m *jsonrpc.Message) { s.onMessage(nil, m) }

// onMessage handles a message from the server: o is the request whose
// stream it came on (nil for none).
func (s *legacySession) onMessage(o *callOptions, m *jsonrpc.Message) {
	switch m.Kind {
	case jsonrpc.KindRequest:
		s.onRequest(m)
	case jsonrpc.KindNotification:
		s.onNotification(o, m)
	}
}

// onNotification handles a notification from the server: progress goes to
// the request it reports on (LPROG-1), log messages to Options.OnLog,
// cancellations stop the server's requests we are answering (LCAN-3), and
// change notifications invalidate the cache (CACHE-7) and feed Listen.
func (s *legacySession) onNotification(o *callOptions, m *jsonrpc.Message) {
	switch m.Method {
	case mcp20251125.NotificationCancelled:
		var p mcp20251125.CancelledNotificationParams
		if wireimpl.Decode(orEmpty(m.Params), &p) != nil || !p.RequestID.IsValid() {
			return // malformed: ignored (LCAN-4)
		}
		s.mu.Lock()
		cancel := s.serving[p.RequestID]
		delete(s.serving, p.RequestID)
		s.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		return
	case mcp20251125.NotificationElicitationComplete, mcp20251125.NotificationTaskStatus:
		return // nothing of ours waits for them (LELIC-7)
	}
	mm, err := modernNotification(m)
	if err != nil {
		s.c.log.Warn("ignoring a malformed notification from the server", "method", m.Method, "error", err.Error())
		return
	}
	switch mm.Method {
	case mcp.NotificationProgress:
		if o == nil || o.progress == nil {
			var p mcp.ProgressNotificationParams
			if wireimpl.Decode(mm.Params, &p) != nil {
				return
			}
			s.mu.Lock()
			o = s.tokens[p.ProgressToken.String.Value]
			s.mu.Unlock()
		}
		if o != nil {
			s.c.deliver(o, mm)
		}
		return
	case mcp.NotificationLoggingMessage:
		s.c.deliver(&callOptions{}, mm)
		return
	}
	var n mcp.ServerNotification
	if wireimpl.Decode(rawNotification(mm), &n) != nil {
		return
	}
	s.c.cache.onNotification(&n)
	s.mu.Lock()
	var to []*legacyListener
	for l := range s.listeners {
		if l.wants(&n) {
			to = append(to, l)
		}
	}
	s.mu.Unlock()
	for _, l := range to {
		l.note(mm)
	}
}

func orEmpty(r wire.Raw) wire.Raw {
	if len(r) == 0 {
		return wire.Raw("{}")
	}
	return r
}

// modernNotification converts a legacy notification into its 2026-07-28
// form, by the methods' descriptors.
func modernNotification(m *jsonrpc.Message) (*jsonrpc.Message, error) {
	ld, md := legacyRev.Lookup(m.Method), modernRev.Lookup(m.Method)
	for _, d := range []**wireimpl.Method{&ld, &md} {
		if *d != nil && (*d).Kind != wireimpl.Notification {
			*d = nil
		}
	}
	if ld == nil || md == nil {
		return nil, fmt.Errorf("no notification %s in both revisions", m.Method)
	}
	p := md.NewParams()
	if err := fromLegacy(m.Params, ld.NewParams(), ld.ParamsType, p, md.ParamsType); err != nil {
		return nil, err
	}
	raw, err := wireimpl.Marshal(p)
	if err != nil {
		return nil, err
	}
	return &jsonrpc.Message{Kind: jsonrpc.KindNotification, Method: m.Method, Params: raw}, nil
}

// wants reports whether the listener asked for n.
func (l *legacyListener) wants(n *mcp.ServerNotification) bool {
	f := &l.filter
	switch {
	case n.ToolListChangedNotification != nil:
		return f.ToolsListChanged.Value
	case n.PromptListChangedNotification != nil:
		return f.PromptsListChanged.Value
	case n.ResourceListChangedNotification != nil:
		return f.ResourcesListChanged.Value
	case n.ResourceUpdatedNotification != nil:
		uri := n.ResourceUpdatedNotification.Params.URI
		// The server may name a sub-resource of a subscribed one (LSUB-2).
		return slices.ContainsFunc(f.ResourceSubscriptions, func(s string) bool { return uri == s || strings.HasPrefix(uri, s) })
	}
	return false
}

// onRequest answers a request from the server (LS2C-3) on a goroutine of
// its own: the callbacks may take long (a user filling a form), and the
// connection must keep flowing meanwhile.
func (s *legacySession) onRequest(m *jsonrpc.Message) {
	ctx, cancel := context.WithCancel(s.ctx)
	s.mu.Lock()
	s.serving[m.ID] = cancel
	s.mu.Unlock()
	go func() {
		defer cancel()
		result, rpcErr := s.answerRequest(ctx, m)
		s.mu.Lock()
		_, live := s.serving[m.ID]
		delete(s.serving, m.ID)
		s.mu.Unlock()
		if !live || s.ctx.Err() != nil {
			return // cancelled by the server: no response (LCAN-3); or closed
		}
		e := jx.GetEncoder()
		if rpcErr != nil {
			jsonrpc.WriteError(e, m.ID, rpcErr)
		} else {
			jsonrpc.WriteResult(e, m.ID, func(e *jx.Encoder) { e.Raw(result) })
		}
		body := slices.Clone(e.Bytes())
		jx.PutEncoder(e)
		sctx, stop := context.WithTimeout(s.ctx, responseTimeout)
		defer stop()
		if err := s.w.send(sctx, body); err != nil {
			s.c.log.Warn("cannot send the response to a server request", "method", m.Method, "error", err.Error())
		}
	}()
}

// responseTimeout bounds sending one response or notification.
const responseTimeout = 30 * time.Second

// answerRequest answers one request from the server: ping at once
// (LPING-1), elicitation, sampling and roots through the Options
// callbacks, as their input-request forms are (LS2C-1); anything else, or
// a request for a capability the client did not declare, is "method not
// found".
func (s *legacySession) answerRequest(ctx context.Context, m *jsonrpc.Message) (wire.Raw, *wire.Error) {
	notFound := &wire.Error{Code: wire.CodeMethodNotFound, Message: "Method not found: " + m.Method}
	switch m.Method {
	case mcp20251125.MethodPing:
		return wire.Raw("{}"), nil
	case mcp20251125.MethodElicit, mcp20251125.MethodCreateMessage, mcp20251125.MethodListRoots:
	default:
		return nil, notFound
	}
	ld, md := legacyRev.Lookup(m.Method), modernRev.Lookup(m.Method)
	if ld == nil || md == nil || md.Kind != wireimpl.InputRequest {
		return nil, notFound
	}
	mp := md.NewParams()
	if err := fromLegacy(m.Params, ld.NewParams(), ld.ParamsType, mp, md.ParamsType); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: "Invalid params: " + err.Error()}
	}
	var req mcp.InputRequest
	switch p := mp.(type) {
	case *mcp.ElicitRequestParams:
		req.ElicitRequest = &mcp.ElicitRequest{Params: *p}
	case *mcp.CreateMessageRequestParams:
		req.CreateMessageRequest = &mcp.CreateMessageRequest{Params: *p}
	case *mcp.ListRootsRequestParams:
		req.ListRootsRequest = &mcp.ListRootsRequest{Params: p}
	default:
		return nil, notFound
	}
	resp, err := s.c.answerOne(ctx, m.Method, req)
	switch {
	case errors.Is(err, ErrNoHandler):
		return nil, notFound
	case err != nil:
		return nil, &wire.Error{Code: wire.CodeInternalError, Message: err.Error()}
	}
	var result wireimpl.Codec
	switch {
	case resp.ElicitResult != nil:
		result = resp.ElicitResult
	case resp.CreateMessageResult != nil:
		result = resp.CreateMessageResult
	case resp.ListRootsResult != nil:
		result = resp.ListRootsResult
	}
	lr := ld.NewResult()
	if err := toLegacy(result, md.ResultTypes[0], lr, ld.ResultTypes[0]); err != nil {
		return nil, &wire.Error{Code: wire.CodeInternalError, Message: fmt.Sprintf("the client's answer cannot be expressed in MCP %s: %v", s.version(), err)}
	}
	raw, err := wireimpl.Marshal(lr)
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeInternalError, Message: err.Error()}
	}
	return raw, nil
}

// listen emulates subscriptions/listen on a legacy session: the server
// sends list-changed notifications unasked when it declared listChanged,
// and resources/updated for the resources subscribed with
// resources/subscribe (LSUB-1, LSUB-4). The acknowledgement says what
// this server can deliver (SUB-4); the loop lasts until ctx ends, when the
// resources this listener alone subscribed are unsubscribed (LSUB-3).
func (s *legacySession) listen(ctx context.Context, o *callOptions, p *mcp.SubscriptionsListenRequestParams) (wireimpl.Codec, error) {
	caps := s.serverCaps()
	want := p.Notifications
	var got mcp.SubscriptionFilter
	if want.ToolsListChanged.Value && caps.Has("tools.listChanged") {
		got.ToolsListChanged = wire.Some(true)
	}
	if want.PromptsListChanged.Value && caps.Has("prompts.listChanged") {
		got.PromptsListChanged = wire.Some(true)
	}
	if want.ResourcesListChanged.Value && caps.Has("resources.listChanged") {
		got.ResourcesListChanged = wire.Some(true)
	}
	if len(want.ResourceSubscriptions) > 0 && caps.Has("resources.subscribe") {
		for _, uri := range want.ResourceSubscriptions {
			if err := s.addSub(ctx, uri); err != nil {
				s.c.log.Warn("resources/subscribe failed", "uri", uri, "error", err.Error())
				continue
			}
			got.ResourceSubscriptions = append(got.ResourceSubscriptions, uri)
		}
	}
	l := &legacyListener{filter: got, note: o.listenNote}
	s.mu.Lock()
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		for _, uri := range got.ResourceSubscriptions {
			s.dropSub(uri)
		}
	}()
	ack := mcp.SubscriptionsAcknowledgedNotificationParams{Notifications: got}
	raw, err := wireimpl.Marshal(&ack)
	if err != nil {
		return nil, err
	}
	if o.listenNote != nil {
		o.listenNote(&jsonrpc.Message{Kind: jsonrpc.KindNotification, Method: mcp.NotificationSubscriptionsAcknowledged, Params: raw})
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.ctx.Done():
		return nil, ErrServerGone
	}
}

// addSub subscribes to uri unless another listener has already. subMu
// orders the subscribe and unsubscribe requests of the session.
func (s *legacySession) addSub(ctx context.Context, uri string) error {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.mu.Lock()
	n := s.subs[uri]
	s.subs[uri] = n + 1
	s.mu.Unlock()
	if n > 0 {
		return nil
	}
	if err := s.subscribe(ctx, mcp20251125.MethodSubscribe, uri); err != nil {
		s.mu.Lock()
		if s.subs[uri]--; s.subs[uri] <= 0 {
			delete(s.subs, uri)
		}
		s.mu.Unlock()
		return err
	}
	return nil
}

// dropSub unsubscribes from uri when the last listener of it is gone, in
// the background: leaving a Listen loop does not wait for the server.
func (s *legacySession) dropSub(uri string) {
	s.mu.Lock()
	s.subs[uri]--
	last := s.subs[uri] <= 0
	if last {
		delete(s.subs, uri)
	}
	s.mu.Unlock()
	if !last {
		return
	}
	go func() {
		s.subMu.Lock()
		defer s.subMu.Unlock()
		s.mu.Lock()
		again := s.subs[uri] > 0 // a new listener came meanwhile
		s.mu.Unlock()
		if again || s.ctx.Err() != nil {
			return
		}
		ctx, cancel := context.WithTimeout(s.ctx, responseTimeout)
		defer cancel()
		if err := s.subscribe(ctx, mcp20251125.MethodUnsubscribe, uri); err != nil && s.ctx.Err() == nil {
			s.c.log.Warn("resources/unsubscribe failed", "uri", uri, "error", err.Error())
		}
	}()
}

// subscribe sends resources/subscribe or resources/unsubscribe.
func (s *legacySession) subscribe(ctx context.Context, method, uri string) error {
	var p wireimpl.EncodeJSONer
	if method == mcp20251125.MethodSubscribe {
		p = &mcp20251125.SubscribeRequestParams{URI: uri}
	} else {
		p = &mcp20251125.UnsubscribeRequestParams{URI: uri}
	}
	_, err := s.request(ctx, &callOptions{}, method, p)
	return err
}
