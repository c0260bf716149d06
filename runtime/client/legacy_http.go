package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// legacyHTTP is the legacy (2025-11-25) Streamable HTTP transport on the
// client's HTTPTransport (same URL, HTTP client, headers and Authorizer):
// an HTTP session opened by initialize, whose id is echoed on every later
// request (LHTTP-6) with the negotiated MCP-Protocol-Version (LVER-8);
// POST for our requests, notifications and responses (LHTTP-2); a GET
// stream for what the server sends unasked (LSSE-1); SSE streams resumed
// with GET and Last-Event-ID after the server's retry delay (LSSE-5,
// LSSE-7); DELETE to end the session (LHTTP-8).
type legacyHTTP struct {
	t *httpConn
	s *legacySession

	mu        sync.Mutex
	sessionID string
	version   string
	postHdr   http.Header // the header set of a POST, shared and read-only; nil when stale
	// pending holds our requests waiting for their response, by id: a
	// response may arrive on any stream of the session (a resumed one).
	pending map[wire.ID]chan *jsonrpc.Message
	getStop context.CancelFunc // ends the current session's GET stream
}

func newLegacyHTTP(t *httpConn, s *legacySession) *legacyHTTP {
	return &legacyHTTP{t: t, s: s, pending: map[wire.ID]chan *jsonrpc.Message{}}
}

const (
	// defaultRetry is how long to wait before reconnecting a stream the
	// server gave no retry field for.
	defaultRetry = time.Second
	// maxResumes bounds the reconnections of one request's stream that
	// bring no event.
	maxResumes = 3
	// maxStreamFailures bounds the consecutive failed (re)connections of
	// the GET stream before the client gives up on it.
	maxStreamFailures = 5
)

var (
	acceptSSE                = []string{"text/event-stream"}
	canonicalSessionID       = http.CanonicalHeaderKey("Mcp-Session-Id")
	canonicalLastEventID     = http.CanonicalHeaderKey("Last-Event-ID")
	canonicalContentType     = http.CanonicalHeaderKey("Content-Type")
	canonicalAccept          = http.CanonicalHeaderKey("Accept")
	errNoResume              = errors.New("the server sent no event id to resume the stream from")
	errStreamNotResumed      = errors.New("the stream could not be resumed")
	errServerStreamRefused   = errors.New("the server refused the GET stream")
	errTooManyEmptyResumes   = errors.New("the resumed stream brought nothing")
	errSessionIDNotPrintable = errors.New("the Mcp-Session-Id is not visible ASCII (LHTTP-5)")
)

// header is the header set of a request of the session: accept (nil for
// none), the negotiated version and the session id once there are.
func (w *legacyHTTP) header(accept []string) http.Header {
	h := make(http.Header, 5)
	if accept != nil {
		h[canonicalAccept] = accept
	}
	w.mu.Lock()
	v, sid := w.version, w.sessionID
	w.mu.Unlock()
	if v != "" {
		h[canonicalProtocolVersion] = []string{v}
	}
	if sid != "" {
		h[canonicalSessionID] = []string{sid}
	}
	return h
}

func (w *legacyHTTP) hasSession() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sessionID != ""
}

// post POSTs one message (LHTTP-2), through the Authorizer.
func (w *legacyHTTP) post(ctx context.Context, method string, body []byte) (*http.Response, error) {
	w.mu.Lock()
	h := w.postHdr
	w.mu.Unlock()
	if h == nil {
		// Made once per version and session id: net/http does not modify
		// a request's header, and the transport clones it before adding
		// to it (httpConn.request).
		h = w.header(acceptBoth)
		h[canonicalContentType] = contentTypeJSON
		w.mu.Lock()
		w.postHdr = h
		w.mu.Unlock()
	}
	return w.t.post(ctx, &Call{Method: method, Body: body, Header: h})
}

// do sends a body-less request (GET, DELETE) of the session, through the
// Authorizer as post does.
func (w *legacyHTTP) do(ctx context.Context, method string, h http.Header) (*http.Response, error) {
	t := w.t
	for attempt := 1; ; attempt++ {
		hr, err := http.NewRequestWithContext(ctx, method, t.url, nil)
		if err != nil {
			return nil, fmt.Errorf("client: %w", err)
		}
		hr.Header = h.Clone()
		for k, vs := range t.header {
			if _, set := hr.Header[k]; !set {
				hr.Header[k] = vs
			}
		}
		if t.auth != nil {
			if err := t.auth.Authorize(ctx, hr); err != nil {
				return nil, fmt.Errorf("client: %s: authorize: %w", method, err)
			}
		}
		resp, err := t.client.Do(hr)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("client: %s: %w", method, err)
		}
		refused := resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
		if t.auth == nil || !refused || attempt >= maxAuthAttempts {
			return resp, nil
		}
		err = t.auth.Challenge(ctx, hr, resp)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("client: %s: %w", method, err)
		}
	}
}

// get opens an SSE stream of the session, resuming after lastID when set
// (LSSE-7).
func (w *legacyHTTP) get(ctx context.Context, lastID string) (*http.Response, error) {
	h := w.header(acceptSSE)
	if lastID != "" {
		h[canonicalLastEventID] = []string{lastID}
	}
	return w.do(ctx, http.MethodGet, h)
}

func isSSE(resp *http.Response) bool {
	ct := mediaType(resp.Header.Get("Content-Type"))
	return resp.StatusCode == http.StatusOK && ct == "text/event-stream"
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// call POSTs our request and reads its answer: one JSON response, or an
// SSE stream carrying the server's related requests and notifications
// and, at last, the response (LHTTP-4, LSSE-3), resumed as often as the
// server closes it early (LSSE-5).
func (w *legacyHTTP) call(ctx context.Context, c *Call) (*jsonrpc.Message, error) {
	ch := make(chan *jsonrpc.Message, 1)
	w.mu.Lock()
	w.pending[c.ID] = ch
	hadSession := w.sessionID != ""
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.pending, c.ID)
		w.mu.Unlock()
	}()
	resp, err := w.post(ctx, c.Method, c.Body)
	if err != nil {
		if ctx.Err() != nil {
			w.cancelRequest(c, ctx.Err())
			return nil, ctx.Err()
		}
		return nil, err
	}
	c.Status = resp.StatusCode
	if c.Method == mcp20251125.MethodInitialize && resp.StatusCode/100 == 2 {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			if !visibleASCII(sid) {
				drain(resp)
				return nil, fmt.Errorf("client: initialize: %w", errSessionIDNotPrintable)
			}
			w.mu.Lock()
			w.sessionID, w.postHdr = sid, nil // LHTTP-5; a secret like a bearer token (LHTTP-12): never logged
			w.mu.Unlock()
		}
	}
	if resp.StatusCode == http.StatusNotFound && hadSession {
		drain(resp)
		return nil, errSessionGone // LHTTP-7
	}
	if isSSE(resp) {
		return w.readCall(ctx, c, resp.Body, ch)
	}
	defer resp.Body.Close()
	ct := mediaType(resp.Header.Get("Content-Type"))
	if ct != "application/json" {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, &HTTPError{Status: resp.StatusCode, Body: string(body)}
	}
	body, err := w.t.readBody(resp)
	if err != nil {
		return nil, w.t.broken(ctx, c, err)
	}
	if len(body) > w.t.maxMessage {
		return nil, fmt.Errorf("client: %s: response larger than %d bytes (Options.MaxMessageBytes)", c.Method, w.t.maxMessage)
	}
	m, derr := jsonrpc.Decode(body)
	if err := answers(c, resp, body, m, derr); err != nil {
		return nil, err
	}
	return m, nil
}

// readCall reads the SSE stream of request c until its response arrives
// on it or on any other stream of the session. A stream that ends first
// is resumed: after the retry delay the server asked for (LSSE-5: never
// sooner), a GET with the last event id seen (LSSE-7).
func (w *legacyHTTP) readCall(ctx context.Context, c *Call, body io.ReadCloser, ch chan *jsonrpc.Message) (*jsonrpc.Message, error) {
	ev := &sseState{retry: defaultRetry}
	empty := 0
	for {
		ended := make(chan error, 1)
		before := ev.events
		go func(b io.Reader) { ended <- w.readEvents(b, ev, c.OnMessage) }(body)
		var rerr error
		select {
		case m := <-ch:
			body.Close()
			return m, nil
		case <-ctx.Done():
			body.Close()
			w.cancelRequest(c, ctx.Err()) // a dropped stream is no cancellation (LCAN-6)
			return nil, ctx.Err()
		case rerr = <-ended:
			body.Close()
		}
		select {
		case m := <-ch:
			return m, nil
		default:
		}
		if ev.lastID == "" {
			return nil, w.t.broken(ctx, c, fmt.Errorf("%v (%w)", rerr, errNoResume))
		}
		if ev.events == before {
			if empty++; empty > maxResumes {
				return nil, w.t.broken(ctx, c, errTooManyEmptyResumes)
			}
		} else {
			empty = 0
		}
		if err := sleep(ctx, ev.retry); err != nil {
			w.cancelRequest(c, err)
			return nil, err
		}
		resp, err := w.get(ctx, ev.lastID)
		if err != nil {
			if ctx.Err() != nil {
				w.cancelRequest(c, ctx.Err())
				return nil, ctx.Err()
			}
			return nil, w.t.broken(ctx, c, err)
		}
		if !isSSE(resp) {
			drain(resp)
			return nil, w.t.broken(ctx, c, fmt.Errorf("%w: HTTP %d", errStreamNotResumed, resp.StatusCode))
		}
		body = resp.Body
	}
}

// sleep waits d unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sseState is what the events of a stream tell about resuming it: the
// last event id (the SSE "last event ID buffer") and the reconnection
// delay.
type sseState struct {
	lastID string
	retry  time.Duration
	events int // events seen (priming events included)
}

// readEvents reads SSE events from r until it ends, keeping ev up to date
// and dispatching every message (SSE comments are keep-alives).
func (w *legacyHTTP) readEvents(r io.Reader, ev *sseState, onMessage func(*jsonrpc.Message)) error {
	br := getReader(r)
	defer putReader(br)
	var data []byte
	hasData := false
	for {
		line, err := readLine(br, w.t.maxMessage)
		if errors.Is(err, errTooLong) {
			w.s.c.log.Warn("skipping an SSE event larger than the message size limit", "limit", w.t.maxMessage)
			data, hasData = nil, false
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch {
		case len(line) == 0 && err == nil: // end of event
			if hasData || data != nil {
				ev.events++
			}
			if len(bytes.TrimSpace(data)) > 0 {
				w.dispatch(data, onMessage)
			}
			data, hasData = nil, false
		case len(field) == 0: // comment
		case string(field) == "id":
			if !bytes.ContainsRune(value, 0) {
				ev.lastID = string(value)
				hasData = true // an id alone makes a (priming) event
			}
		case string(field) == "retry":
			if ms, perr := strconv.ParseUint(string(value), 10, 31); perr == nil {
				ev.retry = time.Duration(ms) * time.Millisecond
			}
		case string(field) == "data":
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		}
		if err != nil {
			return err
		}
	}
}

// dispatch routes one message of a stream: responses to the request they
// answer, whatever stream it was sent on (a late one, after a
// cancellation, is dropped: LCAN-5); the server's requests and
// notifications to onMessage (those on a request's stream relate to it,
// LSSE-3) or else to the session.
func (w *legacyHTTP) dispatch(data []byte, onMessage func(*jsonrpc.Message)) {
	m, err := jsonrpc.Decode(slices.Clone(data))
	if err != nil {
		w.s.c.log.Warn("skipping an SSE event that is not a JSON-RPC message", "error", err.Error())
		return
	}
	switch m.Kind {
	case jsonrpc.KindResult, jsonrpc.KindError:
		w.mu.Lock()
		ch := w.pending[m.ID]
		w.mu.Unlock()
		if ch != nil {
			select {
			case ch <- m:
			default:
			}
		}
	default:
		if onMessage != nil {
			onMessage(m)
		} else {
			w.s.unsolicited(m)
		}
	}
}

// cancelRequest tells the server we no longer wait for c: on legacy HTTP
// only notifications/cancelled does (LCAN-1, LCAN-6). initialize is never
// cancelled (LLIFE-7).
func (w *legacyHTTP) cancelRequest(c *Call, reason error) {
	if c.Method == mcp20251125.MethodInitialize {
		return
	}
	p := mcp20251125.CancelledNotificationParams{RequestID: c.ID, Reason: wire.Some(reason.Error())}
	e := jx.GetEncoder()
	jsonrpc.WriteNotification(e, mcp20251125.NotificationCancelled, p.EncodeJSON)
	body := slices.Clone(e.Bytes())
	jx.PutEncoder(e)
	go func() {
		ctx, cancel := context.WithTimeout(w.s.ctx, responseTimeout)
		defer cancel()
		if err := w.send(ctx, body); err != nil && w.s.ctx.Err() == nil {
			w.s.c.log.Warn("cannot send notifications/cancelled", "error", err.Error())
		}
	}()
}

// send POSTs a notification or a response: accepted with 202 (LHTTP-3).
func (w *legacyHTTP) send(ctx context.Context, msg []byte) error {
	hadSession := w.hasSession()
	resp, err := w.post(ctx, "", msg)
	if err != nil {
		return err
	}
	defer drain(resp)
	switch {
	case resp.StatusCode/100 == 2:
		return nil
	case resp.StatusCode == http.StatusNotFound && hadSession:
		return errSessionGone
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return &HTTPError{Status: resp.StatusCode, Body: string(body)}
}

func (w *legacyHTTP) opened(version string) {
	w.mu.Lock()
	w.version, w.postHdr = version, nil
	w.mu.Unlock()
}

// start opens the GET stream of the session (LSSE-1) and waits, for at
// most streamWait, until the server has answered the GET: servers send
// what is unrelated to a request only on that stream and drop it while
// there is none (a request made right after Connect must not find the
// stream missing).
func (w *legacyHTTP) start() {
	ctx, cancel := context.WithCancel(w.s.ctx)
	w.mu.Lock()
	if w.getStop != nil {
		w.getStop()
	}
	w.getStop = cancel
	w.mu.Unlock()
	answered := make(chan struct{})
	go w.serverStream(ctx, answered)
	t := time.NewTimer(streamWait)
	defer t.Stop()
	select {
	case <-answered:
	case <-t.C:
	}
}

// streamWait bounds how long opening a session waits for the GET stream.
const streamWait = 2 * time.Second

// serverStream reads the GET stream: the server's requests and
// notifications unrelated to a request of ours (LSSE-2). When the server
// closes it, it is reopened after the retry delay, from the last event id
// (LSSE-5, LSSE-7). A server without one answers 405 (LSSE-1). answered
// is closed once the first GET has its answer (or has failed).
func (w *legacyHTTP) serverStream(ctx context.Context, answered chan struct{}) {
	var once sync.Once
	first := func() { once.Do(func() { close(answered) }) }
	defer first()
	ev := &sseState{retry: defaultRetry}
	failures := 0
	for {
		resp, err := w.get(ctx, ev.lastID)
		first()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if failures++; failures > maxStreamFailures {
				w.s.c.log.Warn("giving up on the server's GET stream", "error", err.Error())
				return
			}
			if sleep(ctx, time.Duration(failures)*ev.retry) != nil {
				return
			}
			continue
		}
		if !isSSE(resp) {
			drain(resp)
			if resp.StatusCode != http.StatusMethodNotAllowed && ctx.Err() == nil {
				w.s.c.log.Info("no GET stream from the server", "status", resp.StatusCode, "error", errServerStreamRefused.Error())
			}
			return
		}
		before := ev.events
		_ = w.readEvents(resp.Body, ev, nil)
		resp.Body.Close()
		if ctx.Err() != nil {
			return
		}
		if ev.events == before {
			if failures++; failures > maxStreamFailures {
				return // a stream that keeps ending empty
			}
		} else {
			failures = 0
		}
		if sleep(ctx, ev.retry) != nil {
			return
		}
	}
}

// reset forgets the session the server ended, before a new initialize.
func (w *legacyHTTP) reset() {
	w.mu.Lock()
	stop := w.getStop
	w.getStop, w.sessionID, w.version, w.postHdr = nil, "", "", nil
	w.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// close ends the GET stream and the session: DELETE with its id (LHTTP-8;
// a server that keeps sessions answers 405, which is fine).
func (w *legacyHTTP) close() error {
	w.mu.Lock()
	stop := w.getStop
	w.getStop = nil
	sid := w.sessionID
	w.mu.Unlock()
	if stop != nil {
		stop()
	}
	if sid != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if resp, err := w.do(ctx, http.MethodDelete, w.header(nil)); err == nil {
			drain(resp)
		}
	}
	return w.t.Close()
}

// visibleASCII reports a session id of the characters 0x21–0x7E only
// (LHTTP-5).
func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
