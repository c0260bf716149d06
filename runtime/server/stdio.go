package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// stdioGrace is how long requests still running when stdin ends may take
// to finish before they are cancelled.
const stdioGrace = 5 * time.Second

// ServeStdio serves the stdio transport (§5.2): newline-delimited JSON-RPC
// read from r, answers and notifications written to w, one message per
// line and nothing else (STDIO-1, STDIO-2). Requests run concurrently;
// notifications/cancelled stops one (STDIO-6). It returns nil when r ends
// (STDIO-8) — after listen streams are closed and other requests have had
// a short grace period — or ctx.Err() when ctx ends first.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	c := &stdioConn{s: s, w: w, ctx: ctx, inflight: map[wire.ID]*stdioCall{}, readErr: make(chan error, 1)}
	br := bufio.NewReaderSize(r, 64<<10)
	workers.run(func() { c.read(ctx, br) })
	var err error
	select {
	case err = <-c.readErr:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	// stdin is gone: end listen streams now, give other requests a moment.
	c.cancelListens()
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(stdioGrace):
		cancelAll()
		<-done
	}
	cancelAll()
	if sess := c.sess.Load(); sess != nil {
		sess.end()
	}
	c.pump.Wait()
	return err
}

// readLine returns the next line without its terminator (a trailing \r is
// dropped too, STDIO-10); long reports a line over max bytes, which is
// skipped (and answered with -32600).
func readLine(br *bufio.Reader, max int) (line []byte, long bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			return nil, true, err
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(buf) == 0 && err != nil {
			return nil, false, err
		}
		return bytes.TrimRight(buf, "\r\n"), false, err
	}
}

type stdioConn struct {
	s       *Server
	ctx     context.Context // the connection's: ends when ServeStdio returns
	w       io.Writer
	wg      sync.WaitGroup // requests being served
	readErr chan error     // why reading ended

	wmu sync.Mutex // serializes lines on w

	mu       sync.Mutex
	inflight map[wire.ID]*stdioCall

	// sess is the connection's session once a client sent initialize
	// (LSTDIO-4); requests without modern _meta belong to it.
	sess atomic.Pointer[session]
	pump sync.WaitGroup // the session's change notifications
}

type stdioCall struct {
	cancel    context.CancelFunc
	listen    bool
	mu        sync.Mutex
	cancelled bool
}

func (c *stdioConn) writeLine(write func(e *jx.Encoder)) bool {
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	write(e)
	e.RawStr("\n")
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(e.Bytes())
	return err == nil
}

func (c *stdioConn) cancelListens() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, call := range c.inflight {
		if call.listen {
			call.stop()
		}
	}
}

func (call *stdioCall) stop() {
	call.mu.Lock()
	call.cancelled = true
	call.mu.Unlock()
	call.cancel()
}

// read reads messages until r ends. A request is served on the goroutine
// that read it, so that it begins at once, without waiting for another
// goroutine to be scheduled. Requests still run concurrently: when more
// input is waiting, or the request is still running after inlineFor
// (it may be waiting for an answer only the reader can deliver), the
// reading of what follows goes to another goroutine first. A quick
// request thus costs no hand-over at all. The readers are pooled workers,
// so a request runs on a goroutine whose stack has grown already (a new
// goroutine would copy its stack, a quarter of a quick request's time).
func (c *stdioConn) read(ctx context.Context, br *bufio.Reader) {
	for {
		if ctx.Err() != nil {
			c.readErr <- ctx.Err()
			return
		}
		line, long, err := readLine(br, c.s.maxMessage())
		if long {
			c.writeLine(func(e *jx.Encoder) {
				jsonrpc.WriteError(e, wire.ID{}, &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: message larger than the limit"})
			})
		} else if line != nil {
			if serve := c.handle(ctx, line); serve != nil {
				if err != nil {
					c.readErr <- err
					serve()
					return
				}
				if !c.serveInline(ctx, br, serve) {
					return // another goroutine reads now
				}
				continue
			}
		}
		if err != nil {
			c.readErr <- err
			return
		}
	}
}

// inlineFor is how long a request served on the reading goroutine may run
// before the reading of what follows moves to another goroutine.
const inlineFor = 200 * time.Microsecond

// serveInline runs serve on this goroutine and reports whether this
// goroutine is still the reader afterwards.
func (c *stdioConn) serveInline(ctx context.Context, br *bufio.Reader, serve func()) bool {
	var handedOver atomic.Bool
	handOver := func() {
		if handedOver.CompareAndSwap(false, true) {
			workers.run(func() { c.read(ctx, br) })
		}
	}
	if br.Buffered() > 0 {
		handOver() // the next message is here already
		serve()
		return false
	}
	t := time.AfterFunc(inlineFor, handOver)
	serve()
	t.Stop()
	return handedOver.CompareAndSwap(false, true)
}

// handle handles one line: a notification or a malformed message at once;
// for a request it returns the function serving it.
func (c *stdioConn) handle(ctx context.Context, line []byte) (serve func()) {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	if sess := c.sess.Load(); sess != nil && sess.takesBatches() && jsonrpc.IsBatch(line) {
		return c.batch(sess, line)
	}
	m, err := jsonrpc.Decode(line)
	if err != nil {
		if m.Method == mcp.NotificationCancelled && !m.ID.IsValid() {
			return nil // a malformed cancellation is ignored silently (CAN-4, MSG-5)
		}
		c.writeLine(func(e *jx.Encoder) { jsonrpc.WriteError(e, m.ID, err.(*wire.Error)) })
		return nil
	}
	sess := c.sess.Load()
	switch m.Kind {
	case jsonrpc.KindNotification:
		if m.Method == mcp.NotificationCancelled {
			c.cancel(m.Params) // either era: one id space per connection
		} else if sess != nil {
			sess.notified(m)
		}
		return nil // no notification is answered (MSG-5)
	case jsonrpc.KindResult, jsonrpc.KindError:
		if sess == nil || !sess.deliver(m) {
			c.s.log.Warn("ignoring a response to no request of the server", "id", m.ID.String())
		}
		return nil
	}
	c.mu.Lock()
	if _, dup := c.inflight[m.ID]; dup {
		c.mu.Unlock()
		c.writeLine(func(e *jx.Encoder) {
			jsonrpc.WriteError(e, m.ID, &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: id " + m.ID.String() + " is already in use (ID-2)"})
		})
		return nil
	}
	// Registered before the next line is read, so that a cancellation
	// right behind the request finds it.
	rctx, cancel := context.WithCancel(ctx)
	call := &stdioCall{cancel: cancel, listen: m.Method == mcp.MethodSubscriptionsListen}
	c.inflight[m.ID] = call
	c.mu.Unlock()
	c.wg.Add(1)
	return func() {
		defer c.wg.Done()
		defer func() {
			c.forget(m.ID, call)
			cancel()
		}()
		c.serve(rctx, call, m)
	}
}

// forget drops a finished request from the in-flight table, unless its id
// already belongs to a newer request.
func (c *stdioConn) forget(id wire.ID, call *stdioCall) {
	c.mu.Lock()
	if c.inflight[id] == call {
		delete(c.inflight, id)
	}
	c.mu.Unlock()
}

// cancel handles notifications/cancelled; malformed or unknown ones are
// ignored (CAN-4).
func (c *stdioConn) cancel(params wire.Raw) {
	var p mcp.CancelledNotificationParams
	if wireimpl.Decode(params, &p) != nil {
		return
	}
	c.mu.Lock()
	call := c.inflight[p.RequestID]
	c.mu.Unlock()
	if call != nil {
		call.stop()
	}
}

// stdioSink writes a request's notifications as lines of their own.
type stdioSink struct {
	c    *stdioConn
	call *stdioCall
}

func (k stdioSink) notify(write func(e *jx.Encoder)) bool {
	k.call.mu.Lock()
	defer k.call.mu.Unlock()
	if k.call.cancelled {
		return false
	}
	return k.c.writeLine(write)
}

func (c *stdioConn) serve(ctx context.Context, call *stdioCall, m *jsonrpc.Message) {
	ex := &exchange{id: m.ID, method: m.Method, out: stdioSink{c, call}, stdio: true}
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	var rpc, err error
	switch sess := c.sess.Load(); {
	case sess != nil && !modernMeta(m.Params):
		ex.sess = sess // a request of the session; modern requests stay stateless (§2.2)
		rpc, err = c.s.respond(ctx, ex, m, e)
	case isHandshake(m):
		rpc = c.handshake(m, e)
	default:
		rpc, err = c.s.respond(ctx, ex, m, e)
	}
	// The id is free again once the client sees the answer (ID-2): drop it
	// before writing, so an immediate reuse is not refused as a duplicate.
	c.forget(m.ID, call)
	call.mu.Lock()
	defer call.mu.Unlock()
	if call.cancelled || err != nil {
		return // nothing more for a cancelled request (CAN-3)
	}
	e.RawStr("\n")
	c.wmu.Lock()
	_, _ = c.w.Write(e.Bytes())
	c.wmu.Unlock()
	if rpc == nil && call.listen {
		// A listen stream the server ended: besides the result (SUB-11), the
		// cancellation page wants notifications/cancelled on stdio; we send
		// both, result first (digest Appendix A1).
		c.wmu.Lock()
		defer c.wmu.Unlock()
		n := mcp.CancelledNotificationParams{RequestID: m.ID, Reason: wire.Some("server shutting down")}
		e.Reset()
		jsonrpc.WriteNotification(e, mcp.NotificationCancelled, n.EncodeJSON)
		e.RawStr("\n")
		_, _ = c.w.Write(e.Bytes())
	}
}

// handshake answers initialize and opens the connection's session; a
// second initialize is refused (serveLegacy).
func (c *stdioConn) handshake(m *jsonrpc.Message, e *jx.Encoder) error {
	sess, res, err := c.s.handshake(m, "")
	if err == nil && !c.sess.CompareAndSwap(nil, sess) {
		sess.end()
		sess, err = nil, &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: this connection is initialized already"}
	}
	if err != nil {
		rpc := c.s.toRPCError(m.Method, err)
		jsonrpc.WriteError(e, m.ID, rpc)
		return rpc
	}
	if sess.listener != nil {
		c.pump.Add(1)
		go c.notifyChanges(c.ctx, sess)
	}
	jsonrpc.WriteResult(e, m.ID, res.EncodeJSON)
	return nil
}

// notifyChanges writes the session's list-changed and resource-updated
// notifications (LSUB-2, LSUB-4) until the connection or session ends.
func (c *stdioConn) notifyChanges(ctx context.Context, sess *session) {
	defer c.pump.Done()
	send := func(write func(*jx.Encoder)) bool { return c.writeLine(write) }
	for {
		select {
		case <-ctx.Done():
			return
		case <-sess.ctx.Done():
			return
		case <-sess.listener.wake:
			if !sess.changes(send) {
				return
			}
		}
	}
}

// batch returns the function serving a batch line of a 2025-03-26 session
// (batch.go): its answer is one line holding the array of responses.
func (c *stdioConn) batch(sess *session, line []byte) (serve func()) {
	elems, err := jsonrpc.SplitBatch(line)
	if err == nil && len(elems) == 0 {
		err = &wire.Error{Code: wire.CodeInvalidRequest, Message: "Invalid request: the batch is empty"}
	}
	if err != nil {
		c.writeLine(func(e *jx.Encoder) { jsonrpc.WriteError(e, wire.ID{}, err.(*wire.Error)) })
		return nil
	}
	c.wg.Add(1)
	return func() {
		defer c.wg.Done()
		call := &stdioCall{cancel: func() {}}
		out := c.s.serveBatch(sess, elems, func(m *jsonrpc.Message) *exchange {
			return &exchange{id: m.ID, method: m.Method, out: stdioSink{c, call}, sess: sess}
		})
		if len(out) > 0 {
			c.writeLine(func(e *jx.Encoder) { writeBatch(e, out) })
		}
	}
}
