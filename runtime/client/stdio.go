package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// CommandTransport starts cmd and speaks MCP over its stdin and stdout
// (§5.2). cmd.Stderr is left as the caller set it (nil discards it): the
// server's stderr is logging, never an error signal (STDIO-3). Close
// shuts the process down: stdin closed, then SIGTERM, then SIGKILL
// (STDIO-7).
func CommandTransport(cmd *exec.Cmd) (Transport, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("client: start %s: %w", cmd.Path, err)
	}
	t := newStream(stdout, stdin)
	t.stop = func() error { return stopProcess(cmd, stdin) }
	return t, nil
}

// StreamTransport speaks the stdio framing — one JSON-RPC message per
// line — over r (the server's output) and w (its input), e.g. a pipe, a
// socket (TR-3). Close closes w.
func StreamTransport(r io.Reader, w io.WriteCloser) Transport {
	t := newStream(r, w)
	t.stop = w.Close
	return t
}

// InMemory connects to a server in the same process: serve is a stdio
// serving function such as (*server.Server).ServeStdio, run on a pair of
// pipes for the life of the transport. Messages are encoded and decoded
// as on a real connection, so tests exercise the same paths.
func InMemory(serve func(ctx context.Context, r io.Reader, w io.Writer) error) Transport {
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := serve(ctx, toServer, toClient)
		_ = toClient.Close()
		done <- err
	}()
	t := newStream(fromServer, fromClient)
	t.stop = func() error {
		_ = fromClient.Close() // the server sees the end of its input (STDIO-8)
		select {
		case err := <-done:
			cancel()
			return err
		case <-time.After(stopGrace):
			cancel()
			return <-done
		}
	}
	return t
}

// stopGrace is how long a stdio server gets at each step of shutting down.
const stopGrace = 2 * time.Second

// stopProcess shuts the server down the polite way (STDIO-7): close its
// stdin, wait, then SIGTERM, then SIGKILL.
func stopProcess(cmd *exec.Cmd, stdin io.Closer) error {
	_ = stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(stopGrace):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err = <-exited:
		case <-time.After(stopGrace):
			_ = cmd.Process.Kill()
			err = <-exited
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // the server was asked to stop; how it exited is its business
	}
	return err
}

// stream is the stdio framing over a reader and a writer.
type stream struct {
	w    io.Writer
	wmu  sync.Mutex
	stop func() error
	// log and unsolicited are set by the client before its first call.
	log         *slog.Logger
	unsolicited func(*jsonrpc.Message) // messages that belong to no request
	maxMessage  int
	// legacy is set once a legacy session (initialize) runs on the
	// stream: notifications/cancelled then names the server's requests,
	// not listen streams of ours.
	legacy atomic.Bool

	mu      sync.Mutex
	pending map[wire.ID]*streamCall
	tokens  map[string]*streamCall
	done    chan struct{}
	readErr error

	closeOnce sync.Once
	closeErr  error
}

type streamCall struct {
	resp chan *jsonrpc.Message
	fail chan error // a response that could not be read
	note func(*jsonrpc.Message)
}

func newStream(r io.Reader, w io.Writer) *stream {
	t := &stream{w: w, pending: map[wire.ID]*streamCall{}, tokens: map[string]*streamCall{}, done: make(chan struct{}),
		log: discardLogger, maxMessage: jsonrpc.MaxMessageBytes}
	go t.read(r)
	return t
}

// configure is called by the client it belongs to.
func (t *stream) configure(log *slog.Logger, maxMessage int, unsolicited func(*jsonrpc.Message)) {
	t.mu.Lock()
	t.log, t.unsolicited = log, unsolicited
	if maxMessage > 0 {
		t.maxMessage = maxMessage
	}
	t.mu.Unlock()
}

// write sends one message as one line, in one write (a reader never sees
// half a message).
func (t *stream) write(b []byte) error {
	if bytes.ContainsAny(b, "\r\n") {
		// Only verbatim members can hold line breaks, as whitespace; one
		// message is one line (STDIO-1).
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return err
		}
		b = buf.Bytes()
	}
	line := make([]byte, 0, len(b)+1)
	line = append(append(line, b...), '\n')
	t.wmu.Lock()
	defer t.wmu.Unlock()
	_, err := t.w.Write(line)
	return err
}

// Notify writes a notification.
func (t *stream) Notify(ctx context.Context, msg []byte) error {
	if err := t.write(msg); err != nil {
		return fmt.Errorf("client: write to server: %w", err)
	}
	return nil
}

// Call writes the request and waits for its response (see Transport).
func (t *stream) Call(ctx context.Context, c *Call) (*jsonrpc.Message, error) {
	call := &streamCall{resp: make(chan *jsonrpc.Message, 1), fail: make(chan error, 1), note: c.OnMessage}
	t.mu.Lock()
	select {
	case <-t.done:
		t.mu.Unlock()
		return nil, t.brokenErr()
	default:
	}
	t.pending[c.ID] = call
	if c.Token != "" {
		t.tokens[c.Token] = call
	}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.pending, c.ID)
		if c.Token != "" {
			delete(t.tokens, c.Token)
		}
		t.mu.Unlock()
	}()
	if err := t.write(c.Body); err != nil {
		return nil, fmt.Errorf("client: write to server: %w", err)
	}
	select {
	case m := <-call.resp:
		return m, nil
	case err := <-call.fail:
		return nil, err
	case <-t.done:
		return nil, t.brokenErr()
	case <-ctx.Done():
		// STDIO-6: cancel with notifications/cancelled naming the request.
		e := jx.GetEncoder()
		p := mcp.CancelledNotificationParams{RequestID: c.ID, Reason: wire.Some(ctx.Err().Error())}
		jsonrpc.WriteNotification(e, mcp.NotificationCancelled, p.EncodeJSON)
		_ = t.write(e.Bytes())
		jx.PutEncoder(e)
		return nil, ctx.Err()
	}
}

// ErrServerGone reports that the server process ended or closed stdout;
// in-flight requests are lost and may be sent again after reconnecting
// (STDIO-9).
var ErrServerGone = errors.New("client: the server closed the connection")

func (t *stream) brokenErr() error {
	t.mu.Lock()
	err := t.readErr
	t.mu.Unlock()
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
		return fmt.Errorf("%w: %v", ErrServerGone, err)
	}
	return ErrServerGone
}

// read demultiplexes the server's output (STDIO-5): responses by id,
// progress by token, listen notifications by subscriptionId. Lines that
// are not valid messages are logged and skipped.
func (t *stream) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var err error
	for {
		var line []byte
		line, err = t.readLine(br)
		if errors.Is(err, errTooLong) {
			t.tooLong(line)
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			t.dispatch(line)
		}
		if err != nil {
			break
		}
	}
	t.mu.Lock()
	t.readErr = err
	close(t.done)
	t.mu.Unlock()
}

var errTooLong = errors.New("message too long")

// readLine returns the next line without its terminator. A line longer
// than the limit is skipped: readLine then returns its beginning and
// errTooLong.
func (t *stream) readLine(br *bufio.Reader) ([]byte, error) {
	return readLine(br, t.maxMessage)
}

func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil {
				return nil, err
			}
			return buf, errTooLong
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}

// tooLong handles a skipped oversized message: when it is the response
// to a pending request (its "id" leads, as usual), that request fails with
// an error saying so instead of waiting for its timeout.
func (t *stream) tooLong(head []byte) {
	id, ok := headID(head)
	t.mu.Lock()
	call := t.pending[id]
	t.mu.Unlock()
	if !ok || call == nil {
		t.log.Warn("skipping a server message larger than the message size limit", "limit", t.maxMessage)
		return
	}
	select {
	case call.fail <- fmt.Errorf("client: the server's response is larger than the message size limit (%d bytes, Options.MaxMessageBytes)", t.maxMessage):
	default:
	}
}

var errStop = errors.New("stop")

// headID reads the top-level "id" of a message cut short, if it comes
// before the cut.
func headID(head []byte) (wire.ID, bool) {
	var id wire.ID
	found := false
	d := wireimpl.NewDecoder(head)
	_ = d.Obj(func(key []byte) error {
		if string(key) != "id" {
			return d.Pass()
		}
		v, err := d.ID()
		if err != nil {
			return err
		}
		id, found = v, true
		return errStop
	})
	return id, found
}

func (t *stream) dispatch(line []byte) {
	m, err := jsonrpc.Decode(line)
	if err != nil {
		t.log.Warn("skipping a line from the server that is not a JSON-RPC message", "error", err.Error())
		return
	}
	switch m.Kind {
	case jsonrpc.KindResult, jsonrpc.KindError:
		t.mu.Lock()
		call := t.pending[m.ID]
		t.mu.Unlock()
		if call != nil {
			select {
			case call.resp <- m:
			default:
			}
		} // else: a late answer to a cancelled request (CAN-5)
	case jsonrpc.KindNotification:
		t.route(m)
	case jsonrpc.KindRequest:
		t.toClient(m) // a legacy server's request; a modern one's is logged (MSG-3)
	}
}

// toClient hands a message that belongs to no request to the client.
func (t *stream) toClient(m *jsonrpc.Message) {
	t.mu.Lock()
	f := t.unsolicited
	t.mu.Unlock()
	if f != nil {
		f(m)
	}
}

// route hands a notification to the request it belongs to: progress by its
// token, a listen stream's by its subscriptionId; the server ending a
// listen stream completes that call (SUB-11). Others go to the client.
func (t *stream) route(m *jsonrpc.Message) {
	var call *streamCall
	switch m.Method {
	case mcp.NotificationProgress:
		var p mcp.ProgressNotificationParams
		if wireimpl.Decode(m.Params, &p) != nil || !p.ProgressToken.String.Set {
			return
		}
		t.mu.Lock()
		call = t.tokens[p.ProgressToken.String.Value]
		t.mu.Unlock()
	case mcp.NotificationCancelled:
		if t.legacy.Load() {
			break // the server cancels a request of its own (LCAN-1)
		}
		var p mcp.CancelledNotificationParams
		if wireimpl.Decode(m.Params, &p) != nil {
			return
		}
		t.mu.Lock()
		call := t.pending[p.RequestID]
		t.mu.Unlock()
		if call != nil {
			select {
			case call.resp <- listenEnded:
			default:
			}
		}
		return
	default:
		var p mcp.NotificationParams
		if wireimpl.Decode(m.Params, &p) == nil && p.Meta != nil && !p.Meta.SubscriptionID.IsZero() {
			t.mu.Lock()
			call = t.pending[p.Meta.SubscriptionID]
			t.mu.Unlock()
		}
	}
	if call != nil {
		call.note(m)
		return
	}
	t.toClient(m) // no correlation (notifications/message on stdio, STDIO-5 gap)
}

// listenEnded stands for the result of a listen stream the server ended
// with notifications/cancelled.
var listenEnded = &jsonrpc.Message{Kind: jsonrpc.KindResult, Result: wire.Raw(`{"resultType":"` + mcp.ResultTypeComplete + `","_meta":{}}`)}

// Close shuts the connection down.
func (t *stream) Close() error {
	t.closeOnce.Do(func() { t.closeErr = t.stop() })
	return t.closeErr
}
