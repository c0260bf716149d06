package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// MaxMessageBytes bounds one message from the server.
const MaxMessageBytes = 16 << 20

// ProbeTimeout bounds the server/discover probe ConnectCommand sends; a
// server that does not answer in time is taken for a legacy one (COMPAT-4
// leaves the length open). It also bounds (to at most 5 s) the initialize
// request that then asks a legacy server which version it speaks.
var ProbeTimeout = 10 * time.Second

// ConnectCommand starts cmd and speaks MCP over its stdin and stdout
// (§5.2). cmd.Stderr is left as the caller set it (nil discards it): the
// server's stderr is logging, never an error signal (STDIO-3).
//
// ConnectCommand probes the server with server/discover (COMPAT-1): a
// result or a recognised modern error means a 2026-07-28-era server; any
// other answer, or none within ProbeTimeout, means a legacy server, which
// this client cannot talk to yet: it returns a *VersionError with Legacy set.
func ConnectCommand(ctx context.Context, cmd *exec.Cmd, info mcp.Implementation, opts *Options) (*Client, error) {
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
	t := &stdioTransport{cmd: cmd, stdin: stdin, pending: map[wire.ID]*stdioCall{}, tokens: map[string]*stdioCall{}, done: make(chan struct{})}
	c := newClient(t, info, opts)
	t.onLog = func(m *jsonrpc.Message) { c.deliver(&callOptions{}, m) }
	t.log = c.log
	go t.read(stdout)
	if err := c.probe(ctx); err != nil {
		_ = t.close()
		return nil, err
	}
	return c, nil
}

// probe tells a modern server from a legacy one (COMPAT-1..5).
func (c *Client) probe(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	_, err := c.Discover(pctx, WithTimeout(ProbeTimeout)) // not Options.Timeout: a slow start is no legacy sign
	var rpc *wire.Error
	var ve *VersionError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		return err
	case errors.As(err, &rpc) && isModernError(rpc):
		return nil // modern, but this request was refused: calls will say why
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return c.legacyError(ctx, err)
}

// isModernError: the error codes only 2026-07-28-era servers send (§3.3).
func isModernError(e *wire.Error) bool {
	switch e.Code {
	case mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return true
	}
	return false
}

type stdioTransport struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	wmu   sync.Mutex
	onLog func(*jsonrpc.Message)
	log   interface {
		Warn(msg string, args ...any)
	}

	mu      sync.Mutex
	pending map[wire.ID]*stdioCall
	tokens  map[string]*stdioCall
	done    chan struct{}
	readErr error

	closeOnce sync.Once
}

type stdioCall struct {
	resp chan *jsonrpc.Message
	fail chan error // a response that could not be read
	note func(*jsonrpc.Message)
}

func (t *stdioTransport) http() bool { return false }

func (t *stdioTransport) write(b []byte) error {
	if bytes.ContainsAny(b, "\r\n") {
		// Only verbatim members can hold line breaks, as whitespace; one
		// message is one line (STDIO-1).
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return err
		}
		b = buf.Bytes()
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if _, err := t.stdin.Write(b); err != nil {
		return err
	}
	_, err := t.stdin.Write([]byte{'\n'})
	return err
}

func (t *stdioTransport) do(ctx context.Context, req *outbound, note func(*jsonrpc.Message)) (*jsonrpc.Message, error) {
	call := &stdioCall{resp: make(chan *jsonrpc.Message, 1), fail: make(chan error, 1), note: note}
	t.mu.Lock()
	select {
	case <-t.done:
		t.mu.Unlock()
		return nil, t.brokenErr()
	default:
	}
	t.pending[req.id] = call
	if req.token != "" {
		t.tokens[req.token] = call
	}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.pending, req.id)
		if req.token != "" {
			delete(t.tokens, req.token)
		}
		t.mu.Unlock()
	}()
	if err := t.write(req.body); err != nil {
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
		p := mcp.CancelledNotificationParams{RequestID: req.id, Reason: wire.Some(ctx.Err().Error())}
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

func (t *stdioTransport) brokenErr() error {
	if t.readErr != nil && !errors.Is(t.readErr, io.EOF) {
		return fmt.Errorf("%w: %v", ErrServerGone, t.readErr)
	}
	return ErrServerGone
}

// read demultiplexes the server's output (STDIO-5): responses by id,
// progress by token, listen notifications by subscriptionId. Lines that
// are not valid messages are logged and skipped.
func (t *stdioTransport) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var err error
	for {
		var line []byte
		line, err = readLine(br)
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
// than MaxMessageBytes is skipped: readLine then returns its beginning
// and errTooLong.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxMessageBytes {
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
func (t *stdioTransport) tooLong(head []byte) {
	id, ok := headID(head)
	t.mu.Lock()
	call := t.pending[id]
	t.mu.Unlock()
	if !ok || call == nil {
		t.log.Warn("skipping a server message larger than MaxMessageBytes")
		return
	}
	select {
	case call.fail <- fmt.Errorf("client: the server's response is larger than MaxMessageBytes (%d bytes)", MaxMessageBytes):
	default:
	}
}

var errStop = errors.New("stop")

// headID reads the top-level "id" of a message cut short, if it comes
// before the cut.
func headID(head []byte) (wire.ID, bool) {
	var id wire.ID
	found := false
	d := jx.DecodeBytes(head)
	_ = d.ObjBytes(func(d *jx.Decoder, key []byte) error {
		if string(key) != "id" {
			return d.Skip()
		}
		switch d.Next() {
		case jx.String:
			s, err := d.Str()
			if err != nil {
				return err
			}
			id, found = wire.StringID(s), true
		case jx.Number:
			n, err := d.Int64()
			if err != nil {
				return err
			}
			id, found = wire.IntID(n), true
		}
		return errStop
	})
	return id, found
}

func (t *stdioTransport) dispatch(line []byte) {
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
		t.log.Warn("ignoring a request from the server (MSG-3)", "method", m.Method)
	}
}

func (t *stdioTransport) route(m *jsonrpc.Message) {
	switch m.Method {
	case mcp.NotificationProgress:
		var p mcp.ProgressNotificationParams
		if wireimpl.Decode(m.Params, &p) != nil {
			return
		}
		key := p.ProgressToken.String.Value
		t.mu.Lock()
		call := t.tokens[key]
		t.mu.Unlock()
		if call != nil && p.ProgressToken.String.Set {
			call.note(m)
		}
	case mcp.NotificationLoggingMessage:
		t.onLog(m) // no correlation on stdio (STDIO-5 gap)
	case mcp.NotificationCancelled:
		// The server ending a listen stream (SUB-11): complete that call.
		var p mcp.CancelledNotificationParams
		if wireimpl.Decode(m.Params, &p) != nil {
			return
		}
		t.mu.Lock()
		call := t.pending[p.RequestID]
		t.mu.Unlock()
		if call != nil {
			select {
			case call.resp <- &jsonrpc.Message{Kind: jsonrpc.KindResult, Result: wire.Raw(`{"resultType":"complete","_meta":{}}`)}:
			default:
			}
		}
	default:
		var p mcp.NotificationParams
		if wireimpl.Decode(m.Params, &p) != nil || p.Meta == nil || p.Meta.SubscriptionID.IsZero() {
			return
		}
		t.mu.Lock()
		call := t.pending[p.Meta.SubscriptionID]
		t.mu.Unlock()
		if call != nil {
			call.note(m)
		}
	}
}

// close shuts the server down the polite way (STDIO-7): close its stdin,
// wait, then SIGTERM, then SIGKILL.
func (t *stdioTransport) close() error {
	var err error
	t.closeOnce.Do(func() {
		_ = t.stdin.Close()
		exited := make(chan error, 1)
		go func() { exited <- t.cmd.Wait() }()
		select {
		case err = <-exited:
			return
		case <-time.After(2 * time.Second):
		}
		_ = t.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err = <-exited:
			return
		case <-time.After(2 * time.Second):
		}
		_ = t.cmd.Process.Kill()
		err = <-exited
	})
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // the server was asked to stop; how it exited is its business
	}
	return err
}
