package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// HTTPOptions configure a Streamable HTTP transport. The zero value is
// usable.
type HTTPOptions struct {
	// Client sends the requests. Default: a client without timeout
	// (listen streams are long-lived; Options.Timeout bounds ordinary
	// requests).
	Client *http.Client
	// Header is added to every request. It may be changed between calls,
	// not during one.
	Header http.Header
	// Authorizer, when set, supplies every request's credentials and is
	// asked what to do when the server refuses one with 401 or 403 (see
	// Authorizer).
	Authorizer Authorizer
}

// An Authorizer authorizes Streamable HTTP requests (the MCP
// authorization spec; package runtime/client/oauth implements it).
type Authorizer interface {
	// Authorize adds credentials to req (e.g. Authorization: Bearer, a
	// DPoP proof) just before it is sent; it runs for every attempt.
	Authorize(ctx context.Context, req *http.Request) error
	// Challenge is told of a 401 or 403 answer to req (resp's body is
	// unread; the transport closes it). Returning nil means "try again":
	// the request is sent anew, through Authorize; an error ends the call
	// with it. The Authorizer bounds its own retries (e.g. step-up on
	// insufficient_scope); the transport gives up after maxAuthAttempts.
	Challenge(ctx context.Context, req *http.Request, resp *http.Response) error
}

// A ResponseObserver is an Authorizer that is also shown the responses it
// is not asked about (all but the 401s and 403s passed to Challenge)
// before the transport reads them: a server may hand out a new DPoP nonce
// on any response (RFC 9449 §9), and an accepted request ends a step-up.
// ObserveResponse must not read or close the body.
type ResponseObserver interface {
	ObserveResponse(req *http.Request, resp *http.Response)
}

// maxAuthAttempts bounds the attempts of one request an Authorizer may ask for.
const maxAuthAttempts = 4

// HTTPTransport is Streamable HTTP (§5.3) to the MCP endpoint url: every
// request is a POST, answered with JSON or with an SSE stream for that
// request; closing the stream cancels it (HCAN-2).
func HTTPTransport(url string, opts *HTTPOptions) Transport {
	t := &httpConn{url: url, client: http.DefaultClient, log: discardLogger, maxMessage: jsonrpc.MaxMessageBytes}
	if opts != nil {
		if opts.Client != nil {
			t.client = opts.Client
		}
		t.header = opts.Header
		t.auth = opts.Authorizer
	}
	return t
}

type httpConn struct {
	url        string
	client     *http.Client
	header     http.Header
	auth       Authorizer
	log        *slog.Logger
	maxMessage int
}

// MirrorsHeaders reports that requests carry the metadata headers.
func (t *httpConn) MirrorsHeaders() bool { return true }

func (t *httpConn) configure(log *slog.Logger, maxMessage int, _ func(*jsonrpc.Message)) {
	t.log = log
	if maxMessage > 0 {
		t.maxMessage = maxMessage
	}
}

// credential is the credential requests carry now (private cache entries
// are keyed by it, CACHE-5): the Authorizer's, when it names one, else the
// Authorization header.
func (t *httpConn) credential() string {
	if cr, ok := t.auth.(interface{ Credential() string }); ok {
		return cr.Credential()
	}
	return t.header.Get("Authorization")
}

// Close does nothing: each request is its own exchange.
func (t *httpConn) Close() error { return nil }

// Notify is refused: this revision defines no client notification on
// Streamable HTTP (HTTP-7); a request is cancelled by closing its stream.
func (t *httpConn) Notify(ctx context.Context, msg []byte) error {
	return errors.New("client: Streamable HTTP carries no client notifications in this revision (HTTP-7)")
}

// Header values shared by every request (net/http does not modify them).
var (
	contentTypeJSON = []string{"application/json"}
	acceptBoth      = []string{"application/json, text/event-stream"}
)

// HTTPError is a non-JSON-RPC answer from the server (e.g. 403, 405, 502).
type HTTPError struct {
	Status int
	Body   string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("client: HTTP %d %s: %s", e.Status, http.StatusText(e.Status), strings.TrimSpace(e.Body))
}

// Call POSTs the request and reads the answer: one JSON response, or an
// SSE stream of the request's notifications ending with its response.
func (t *httpConn) Call(ctx context.Context, c *Call) (*jsonrpc.Message, error) {
	resp, err := t.post(ctx, c)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close() // closing the stream cancels the request (HCAN-2)
	return t.read(ctx, c, resp)
}

// post sends the request, through the Authorizer's challenges.
func (t *httpConn) post(ctx context.Context, c *Call) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		hr, err := t.request(ctx, c)
		if err != nil {
			return nil, err
		}
		if t.auth != nil {
			if err := t.auth.Authorize(ctx, hr); err != nil {
				return nil, fmt.Errorf("client: %s: authorize: %w", c.Method, err)
			}
		}
		resp, err := t.client.Do(hr)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("client: %s: %w", c.Method, err)
		}
		if t.auth == nil {
			return resp, nil
		}
		refused := resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
		if !refused || attempt >= maxAuthAttempts {
			if o, ok := t.auth.(ResponseObserver); ok {
				o.ObserveResponse(hr, resp)
			}
			return resp, nil
		}
		err = t.auth.Challenge(ctx, hr, resp)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("client: %s: %w", c.Method, err)
		}
	}
}

// request builds one attempt's HTTP request.
func (t *httpConn) request(ctx context.Context, c *Call) (*http.Request, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(c.Body))
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	switch {
	case c.Header == nil:
		hr.Header["Content-Type"] = contentTypeJSON
		hr.Header["Accept"] = acceptBoth // HTTP-3
	case len(t.header) == 0 && t.auth == nil:
		hr.Header = c.Header // shared and read-only: net/http does not modify it
	default:
		hr.Header = c.Header.Clone() // headers and the Authorizer add to it
	}
	for k, vs := range t.header {
		if _, set := hr.Header[k]; !set {
			hr.Header[k] = vs
		}
	}
	return hr, nil
}

// read reads the answer to c.
func (t *httpConn) read(ctx context.Context, c *Call, resp *http.Response) (*jsonrpc.Message, error) {
	c.Status = resp.StatusCode
	ct := mediaType(resp.Header.Get("Content-Type"))
	switch {
	case ct == "text/event-stream" && resp.StatusCode == http.StatusOK:
		return t.readStream(ctx, resp.Body, c)
	case ct == "application/json":
		body, err := t.readBody(resp)
		if err != nil {
			return nil, t.broken(ctx, c, err)
		}
		if len(body) > t.maxMessage {
			return nil, fmt.Errorf("client: %s: response larger than %d bytes (Options.MaxMessageBytes)", c.Method, t.maxMessage)
		}
		m := &c.resp
		var derr error
		if c.Result != nil {
			derr = jsonrpc.DecodeResponse(body, m, c.Result)
			var rpc *wire.Error
			if derr != nil && !errors.As(derr, &rpc) {
				return nil, &ResultError{Method: c.Method, Err: derr}
			}
		} else {
			derr = jsonrpc.DecodeInto(body, m)
		}
		if err := answers(c, resp, body, m, derr); err != nil {
			return nil, err
		}
		return m, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return nil, &HTTPError{Status: resp.StatusCode, Body: string(body)}
}

// answers checks that m, decoded from the JSON body of resp with error
// derr, is the response to c: a body that is no JSON-RPC response is the
// server's HTTP error (or, with 200, a broken server), and the id must be
// c's.
func answers(c *Call, resp *http.Response, body []byte, m *jsonrpc.Message, derr error) error {
	if derr != nil || m.Kind != jsonrpc.KindResult && m.Kind != jsonrpc.KindError {
		if resp.StatusCode != http.StatusOK {
			return &HTTPError{Status: resp.StatusCode, Body: string(body)}
		}
		return fmt.Errorf("client: %s: the server sent something that is not a JSON-RPC response", c.Method)
	}
	if m.ID.IsValid() && m.ID != c.ID {
		return fmt.Errorf("client: %s: the response answers id %s, not %s", c.Method, m.ID, c.ID)
	}
	return nil
}

// ErrStreamBroken reports a response stream that ended before the
// response: the request is lost and may be sent again as a new request
// (SSE-6).
var ErrStreamBroken = errors.New("client: the response stream ended before the response")

func (t *httpConn) broken(ctx context.Context, c *Call, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w (%s): %v", ErrStreamBroken, c.Method, err)
}

// readStream reads SSE events (comment lines are skipped, SSE-5) until the
// response to c arrives.
func (t *httpConn) readStream(ctx context.Context, body io.Reader, c *Call) (*jsonrpc.Message, error) {
	br := getReader(body)
	defer putReader(br)
	var data []byte
	for {
		line, err := readLine(br, t.maxMessage)
		if errors.Is(err, errTooLong) {
			return nil, fmt.Errorf("client: %s: an event is larger than %d bytes (Options.MaxMessageBytes)", c.Method, t.maxMessage)
		}
		switch {
		case len(line) == 0 && err == nil: // end of event
			if len(data) > 0 {
				m, derr := jsonrpc.Decode(data)
				data = nil
				if derr != nil {
					t.log.Warn("skipping an SSE event that is not a JSON-RPC message", "error", derr.Error())
					break
				}
				switch m.Kind {
				case jsonrpc.KindNotification:
					if c.OnMessage != nil {
						c.OnMessage(m)
					}
				case jsonrpc.KindResult, jsonrpc.KindError:
					if m.ID == c.ID {
						return m, nil
					}
				}
			}
		case bytes.HasPrefix(line, []byte(":")):
			// comment: keep-alive
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, d...)
		}
		if err != nil {
			return nil, t.broken(ctx, c, err)
		}
	}
}

// readBody reads a JSON response of at most the message limit plus one
// byte: into one buffer of the announced length when there is one.
func (t *httpConn) readBody(resp *http.Response) ([]byte, error) {
	if n := resp.ContentLength; n > 0 && n <= int64(t.maxMessage) {
		buf := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	return io.ReadAll(io.LimitReader(resp.Body, int64(t.maxMessage)+1))
}
