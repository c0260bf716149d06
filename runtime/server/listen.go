package server

import (
	"context"
	"strings"
	"sync"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// change is a kind of change listeners may subscribe to.
type change uint8

const (
	changeTools change = 1 << iota
	changePrompts
	changeResources
	changeResource // one resource's contents
)

// hub fans changes out to subscriptions/listen streams. Publishing never
// blocks: each listener keeps pending change bits and URIs, and its own
// goroutine drains them, so many listeners cannot slow request handling.
type hub struct {
	mu        sync.Mutex
	listeners map[*listener]struct{}
	done      chan struct{}
	closed    bool
}

func newHub() *hub {
	return &hub{listeners: map[*listener]struct{}{}, done: make(chan struct{})}
}

type listener struct {
	filter mcp.SubscriptionFilter
	wake   chan struct{}

	mu      sync.Mutex
	pending change
	uris    []string

	tasks     map[string]bool // the tasks followed (tasks_listen.go); nil for none
	taskNotes []*TaskRecord   // their changes not yet sent
}

func (h *hub) add(l *listener) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.listeners[l] = struct{}{}
	return true
}

func (h *hub) remove(l *listener) {
	h.mu.Lock()
	delete(h.listeners, l)
	h.mu.Unlock()
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.listeners)
}

func (h *hub) publish(c change, uri string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range h.listeners {
		if !l.wants(c, uri) {
			continue
		}
		l.mu.Lock()
		l.pending |= c
		if c == changeResource && !contains(l.uris, uri) {
			l.uris = append(l.uris, uri)
		}
		l.mu.Unlock()
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

func (h *hub) shutdown() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// wants applies the listener's filter (SUB-2); an updated URI also matches
// a subscription to a URI it lies under (SUB-9).
func (l *listener) wants(c change, uri string) bool {
	f := &l.filter
	switch c {
	case changeTools:
		return f.ToolsListChanged.Value
	case changePrompts:
		return f.PromptsListChanged.Value
	case changeResources:
		return f.ResourcesListChanged.Value
	case changeResource:
		for _, s := range f.ResourceSubscriptions {
			if uri == s || strings.HasPrefix(uri, strings.TrimSuffix(s, "/")+"/") {
				return true
			}
		}
	}
	return false
}

func (l *listener) take() (change, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, uris := l.pending, l.uris
	l.pending, l.uris = 0, nil
	return c, uris
}

// Shutdown ends every subscriptions/listen stream gracefully: each gets its
// completion result (SUB-11). Requests already running are not affected.
// Call it before shutting down the transport.
func (s *Server) Shutdown() { s.hub.shutdown() }

// ListenerCount reports how many subscriptions/listen streams are open.
func (s *Server) ListenerCount() int { return s.hub.count() }

// listen serves subscriptions/listen: the acknowledgement first (SUB-3),
// then every change the filter asks for, each tagged with the listen
// request's id (SUB-5), until the client goes away or the server shuts
// down.
func (s *Server) listen(ctx context.Context, p *mcp.SubscriptionsListenRequestParams) (*mcp.SubscriptionsListenResult, error) {
	ex := exchangeFrom(ctx)
	// Every kind of change can be delivered: a server that has no tools yet
	// may add some while the stream is open, so the filter is honoured as
	// asked (SUB-4), not narrowed to what exists now.
	want := p.Notifications
	var honored mcp.SubscriptionFilter
	if want.ToolsListChanged.Value {
		honored.ToolsListChanged = wire.Some(true)
	}
	if want.PromptsListChanged.Value {
		honored.PromptsListChanged = wire.Some(true)
	}
	if want.ResourcesListChanged.Value {
		honored.ResourcesListChanged = wire.Some(true)
	}
	if want.ResourceSubscriptions != nil {
		for _, uri := range want.ResourceSubscriptions {
			// Only what the caller may read (HTTPOptions.Auth).
			if err := s.authorize(ex, mcp.MethodReadResource, uri); err != nil {
				return nil, err
			}
		}
		honored.ResourceSubscriptions = want.ResourceSubscriptions
	}
	taskIDs, err := s.listenTasks(ctx, p)
	if err != nil {
		return nil, err
	}
	sid := ex.id
	meta := &mcp.NotificationMetaObject{SubscriptionID: sid}
	l := &listener{filter: honored, wake: make(chan struct{}, 1)}
	honorTasks(l, &l.filter, taskIDs)
	honored = l.filter
	if !s.hub.add(l) {
		return s.listenClosed(sid), nil
	}
	defer s.hub.remove(l)
	ack := mcp.SubscriptionsAcknowledgedNotificationParams{Notifications: honored, Meta: meta}
	if !ex.out.notify(func(e *jx.Encoder) {
		jsonrpc.WriteNotification(e, mcp.NotificationSubscriptionsAcknowledged, ack.EncodeJSON)
	}) {
		return nil, context.Canceled
	}
	params := mcp.NotificationParams{Meta: meta}
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.hub.done:
			return s.listenClosed(sid), nil
		case <-l.wake:
		}
		c, uris := l.take()
		for _, n := range listChanges {
			if c&n.bit == 0 {
				continue
			}
			if !ex.out.notify(func(e *jx.Encoder) { jsonrpc.WriteNotification(e, n.method, params.EncodeJSON) }) {
				return nil, context.Canceled
			}
		}
		for _, uri := range uris {
			up := mcp.ResourceUpdatedNotificationParams{URI: uri, Meta: meta}
			if !ex.out.notify(func(e *jx.Encoder) {
				jsonrpc.WriteNotification(e, mcp.NotificationResourceUpdated, up.EncodeJSON)
			}) {
				return nil, context.Canceled
			}
		}
		for _, rec := range l.takeTasks() {
			if !ex.out.notify(s.tasks.taskNotification(rec, meta)) {
				return nil, context.Canceled
			}
		}
	}
}

// listenClosed is the graceful end of a listen stream (RT-7, SUB-11).
func (s *Server) listenClosed(sid mcp.RequestId) *mcp.SubscriptionsListenResult {
	r := &mcp.SubscriptionsListenResult{ResultType: mcp.ResultTypeComplete}
	r.Meta.SubscriptionID = sid
	if !s.opts.OmitServerInfo {
		r.Meta.ServerInfo = &s.info
	}
	return r
}

// NotifyToolListChanged tells listeners that asked for it that the tool
// list changed. AddTool and RemoveTool call it themselves; call it when
// what a tools/list returns changes by other means (e.g. authorization).
func (s *Server) NotifyToolListChanged() { s.changed(changeTools, "") }

// NotifyPromptListChanged is NotifyToolListChanged for prompts.
func (s *Server) NotifyPromptListChanged() { s.changed(changePrompts, "") }

// NotifyResourceListChanged is NotifyToolListChanged for resources and
// resource templates.
func (s *Server) NotifyResourceListChanged() { s.changed(changeResources, "") }
