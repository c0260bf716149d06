package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ConnectURL returns a client for the Streamable HTTP endpoint url (§5.3).
// Nothing is sent until the first call: Discover is available but not
// required (DISC-4). A server that answers 400 with anything but a
// recognised modern error is taken for a legacy one (COMPAT-7): calls then
// fail with a *VersionError with Legacy set.
func ConnectURL(ctx context.Context, url string, info mcp.Implementation, opts *Options) (*Client, error) {
	t := &httpTransport{url: url, client: http.DefaultClient}
	c := newClient(t, info, opts)
	if c.opts.HTTPClient != nil {
		t.client = c.opts.HTTPClient
	}
	t.header = c.opts.Header
	t.c = c
	return c, nil
}

type httpTransport struct {
	url    string
	client *http.Client
	header http.Header
	c      *Client
}

func (t *httpTransport) http() bool   { return true }
func (t *httpTransport) close() error { return nil }

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

func (t *httpTransport) do(ctx context.Context, req *outbound, note func(*jsonrpc.Message)) (*jsonrpc.Message, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(req.body))
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if req.header != nil {
		hr.Header = req.header // built for this request only
	}
	for k, vs := range t.header {
		if _, set := hr.Header[k]; !set {
			hr.Header[k] = vs
		}
	}
	hr.Header["Content-Type"] = contentTypeJSON
	hr.Header["Accept"] = acceptBoth // HTTP-3
	resp, err := t.client.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("client: %s: %w", req.method, err)
	}
	defer resp.Body.Close() // closing the stream cancels the request (HCAN-2)
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case ct == "text/event-stream" && resp.StatusCode == http.StatusOK:
		return t.readStream(ctx, resp.Body, req, note)
	case ct == "application/json":
		body, err := readBody(resp)
		if err != nil {
			return nil, t.broken(ctx, req, err)
		}
		if len(body) > MaxMessageBytes {
			return nil, fmt.Errorf("client: %s: response larger than %d bytes", req.method, MaxMessageBytes)
		}
		m, derr := jsonrpc.Decode(body)
		if derr != nil || m.Kind != jsonrpc.KindResult && m.Kind != jsonrpc.KindError {
			if resp.StatusCode != http.StatusOK {
				return nil, t.statusError(ctx, req, resp.StatusCode, body)
			}
			return nil, fmt.Errorf("client: %s: the server sent something that is not a JSON-RPC response", req.method)
		}
		if resp.StatusCode == http.StatusBadRequest && m.Kind == jsonrpc.KindError &&
			!isModernError(m.Error) && m.Error.Code != wire.CodeInvalidParams && req.method != legacyProbeMethod {
			// COMPAT-7: a 400 whose body is not a modern error.
			return nil, t.c.legacyError(ctx, m.Error)
		}
		if m.ID.IsValid() && m.ID != req.id {
			return nil, fmt.Errorf("client: %s: the response answers id %s, not %s", req.method, m.ID, req.id)
		}
		return m, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return nil, t.statusError(ctx, req, resp.StatusCode, body)
}

func (t *httpTransport) statusError(ctx context.Context, req *outbound, status int, body []byte) error {
	err := &HTTPError{Status: status, Body: string(body)}
	// The initialize probe itself refused is no reason to probe again.
	if status == http.StatusBadRequest && req.method != legacyProbeMethod {
		return t.c.legacyError(ctx, err) // COMPAT-7: a 400 that is not a modern error
	}
	return err
}

// ErrStreamBroken reports a response stream that ended before the
// response: the request is lost and may be sent again as a new request
// (SSE-6).
var ErrStreamBroken = errors.New("client: the response stream ended before the response")

func (t *httpTransport) broken(ctx context.Context, req *outbound, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w (%s): %v", ErrStreamBroken, req.method, err)
}

// readStream reads SSE events (comment lines are skipped, SSE-5) until the
// response to req arrives.
func (t *httpTransport) readStream(ctx context.Context, body io.Reader, req *outbound, note func(*jsonrpc.Message)) (*jsonrpc.Message, error) {
	br := bufio.NewReaderSize(body, 64<<10)
	var data []byte
	for {
		line, err := readLine(br)
		if errors.Is(err, errTooLong) {
			return nil, fmt.Errorf("client: %s: an event is larger than %d bytes", req.method, MaxMessageBytes)
		}
		switch {
		case len(line) == 0 && err == nil: // end of event
			if len(data) > 0 {
				m, derr := jsonrpc.Decode(data)
				data = nil
				if derr != nil {
					t.c.log.Warn("skipping an SSE event that is not a JSON-RPC message", "error", derr.Error())
					break
				}
				switch m.Kind {
				case jsonrpc.KindNotification:
					note(m)
				case jsonrpc.KindResult, jsonrpc.KindError:
					if m.ID == req.id {
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
			return nil, t.broken(ctx, req, err)
		}
	}
}

// readBody reads a JSON response of at most MaxMessageBytes+1 bytes: into
// one buffer of the announced length when there is one.
func readBody(resp *http.Response) ([]byte, error) {
	if n := resp.ContentLength; n > 0 && n <= MaxMessageBytes {
		buf := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	return io.ReadAll(io.LimitReader(resp.Body, MaxMessageBytes+1))
}
