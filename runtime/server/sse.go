package server

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/go-faster/jx"
)

// An eventStream is one SSE stream of a 2025-11-25 HTTP session: the
// response stream of a POST, or the session's GET stream. Every event has
// an id, "<stream>-<n>", unique within the session (LSSE-6), and is kept
// until the client has surely had it, so that a client that reconnects
// with Last-Event-ID gets what followed on that stream and nothing of
// another (LSSE-7). A stream outlives its connection: the request goes on
// when the client's connection drops (LCAN-6) or when the handler lets it
// go (Request.CloseStream, SEP-1699 polling), and its events wait for the
// client to come back.
type eventStream struct {
	id      int64
	retryMs int64 // the SSE retry field of the priming event

	mu      sync.Mutex
	seq     int64
	kept    []keptEvent // not known to be received, oldest first, at most maxKeptEvents
	conn    *sseConn    // the connection writing the stream; nil while there is none
	started bool        // the POST's response is an SSE stream (its header and priming event are out)
	done    bool        // a POST stream whose last event (the response) is written or kept
}

type keptEvent struct {
	seq  int64
	data []byte
}

// maxKeptEvents bounds what a stream keeps for a client to resume: older
// events are dropped (and are then lost to a client that resumes late).
const maxKeptEvents = 256

// sseConn is one HTTP response carrying a stream.
type sseConn struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	gone chan struct{} // closed when the stream lets go of the connection
}

func newSSEConn(w http.ResponseWriter) *sseConn {
	return &sseConn{w: w, rc: http.NewResponseController(w), gone: make(chan struct{})}
}

// start writes the SSE response header.
func (c *sseConn) start() {
	h := c.w.Header()
	h["Content-Type"] = contentTypeSSE
	h["Cache-Control"] = noCache
	h["X-Accel-Buffering"] = noBuffering // SSE-4
	c.w.WriteHeader(http.StatusOK)
}

var (
	contentTypeSSE = []string{"text/event-stream"}
	noCache        = []string{"no-cache"}
	noBuffering    = []string{"no"}
)

// write writes one event and flushes it.
func (c *sseConn) write(stream, seq int64, data []byte) error {
	buf := make([]byte, 0, len(data)+40)
	buf = append(buf, "id: "...)
	buf = appendEventID(buf, stream, seq)
	buf = append(buf, "\ndata: "...)
	buf = append(buf, data...)
	buf = append(buf, "\n\n"...)
	if _, err := c.w.Write(buf); err != nil {
		return err
	}
	return c.rc.Flush()
}

func appendEventID(b []byte, stream, seq int64) []byte {
	b = strconv.AppendInt(b, stream, 10)
	b = append(b, '-')
	return strconv.AppendInt(b, seq, 10)
}

// parseEventID reads a Last-Event-ID of this server.
func parseEventID(id string) (stream, seq int64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	if !found {
		return 0, 0, false
	}
	s, err1 := strconv.ParseInt(a, 10, 64)
	n, err2 := strconv.ParseInt(b, 10, 64)
	return s, n, err1 == nil && err2 == nil && s >= 0 && n >= 0
}

// open gives a POST's stream its connection. The response becomes an SSE
// stream at the first event, at CloseStream or when the request has run
// for a while (prime): its header, then the priming event, an id with
// empty data and the retry interval (LSSE-4, LSSE-5). A request that sends
// nothing before a quick answer gets it as plain JSON.
func (st *eventStream) open(c *sseConn) {
	st.mu.Lock()
	st.conn = c
	st.mu.Unlock()
}

// prime makes the POST's response an SSE stream now.
func (st *eventStream) prime() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.conn != nil && !st.done {
		st.startLocked()
	}
}

// startLocked makes the POST's response an SSE stream, if it is not yet.
func (st *eventStream) startLocked() bool {
	if st.started {
		return true
	}
	st.started = true
	c := st.conn
	c.start()
	buf := append([]byte("id: "), appendEventID(nil, st.id, 0)...)
	buf = append(buf, "\nretry: "...)
	buf = strconv.AppendInt(buf, st.retryMs, 10)
	buf = append(buf, "\ndata: \n\n"...)
	if _, err := c.w.Write(buf); err != nil || c.rc.Flush() != nil {
		st.letGo()
		return false
	}
	return true
}

// send adds an event; it is written at once when a connection is there.
// It reports false only for a finished stream.
func (st *eventStream) send(data []byte) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return false
	}
	st.sendLocked(data)
	return true
}

func (st *eventStream) sendLocked(data []byte) {
	st.seq++
	if st.conn != nil && !st.startLocked() {
		st.keep(data)
		return
	}
	if c := st.conn; c != nil && c.write(st.id, st.seq, data) == nil {
		if st.id == 0 {
			st.keep(data) // the GET stream keeps its recent events
		}
		return
	} else if c != nil {
		st.letGo()
	}
	st.keep(data)
}

func (st *eventStream) keep(data []byte) {
	if len(st.kept) == maxKeptEvents {
		st.kept = append(st.kept[:0], st.kept[1:]...)
	}
	st.kept = append(st.kept, keptEvent{st.seq, append([]byte(nil), data...)})
}

// finish sends the stream's last event (the response; nil for none) and
// ends the stream. It reports whether the client surely has everything:
// the stream can then be forgotten.
func (st *eventStream) finish(data []byte) (delivered bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return false
	}
	if c := st.conn; c != nil && !st.started {
		// Nothing was sent before the answer: plain JSON (LHTTP-4), or 202
		// for a cancelled request, which gets no answer (LCAN-3).
		st.done = true
		if data == nil {
			c.w.WriteHeader(http.StatusAccepted)
		} else {
			c.w.Header()["Content-Type"] = contentTypeJSON
			_, _ = c.w.Write(data)
		}
		st.letGo()
		return true
	}
	if data != nil {
		st.sendLocked(data)
	}
	st.done = true
	if st.conn != nil {
		st.letGo()
		st.kept = nil
		return true
	}
	return false
}

// attach resumes the stream on c after event seq: what is kept beyond it
// is written, and c carries what follows. A finished stream lets c go once
// it is replayed. It reports whether the whole stream has been delivered.
func (st *eventStream) attach(c *sseConn, after int64) (delivered bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.conn != nil {
		st.letGo() // one connection per stream: the newer one wins
	}
	st.started = true
	c.start()
	for _, ev := range st.kept {
		if ev.seq <= after {
			continue
		}
		if c.write(st.id, ev.seq, ev.data) != nil {
			close(c.gone)
			return false
		}
	}
	if st.id != 0 {
		st.kept = nil // the client has it now
	}
	if st.done {
		close(c.gone)
		return true
	}
	if err := c.rc.Flush(); err != nil {
		close(c.gone)
		return false
	}
	st.conn = c
	return false
}

// release lets the connection go while the stream goes on (polling,
// LSSE-5): the client reconnects after the retry interval of the priming
// event and resumes.
func (st *eventStream) release() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.conn == nil || st.done || !st.startLocked() {
		return false
	}
	st.letGo()
	return true
}

// detach forgets c when its client went away.
func (st *eventStream) detach(c *sseConn) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.conn == c {
		st.letGo()
	}
}

func (st *eventStream) letGo() {
	close(st.conn.gone)
	st.conn = nil
}

// comment writes an SSE comment (keep-alive) when a connection is there.
func (st *eventStream) comment() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if c := st.conn; c != nil {
		if _, err := c.w.Write([]byte(": keep-alive\n\n")); err != nil || c.rc.Flush() != nil {
			st.letGo()
		}
	}
}

// streamSink carries a session request's notifications and requests to
// the client on the request's stream.
type streamSink struct {
	st *eventStream
}

func (k streamSink) notify(write func(e *jx.Encoder)) bool {
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	write(e)
	return k.st.send(e.Bytes())
}

// release implements Request.CloseStream.
func (k streamSink) release() bool { return k.st.release() }
