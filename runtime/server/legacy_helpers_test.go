package server

// Harness for 2025-11-25 clients: the initialize handshake over both
// transports, session headers over HTTP, and a check that every answer
// the server sends is a valid message of that revision (decoded and
// validated by gen/mcp20251125) without members only 2026-07-28 has.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

const legacyVersion = mcp20251125.ProtocolVersion

// legacyInit is the initialize request of a client asking for version
// with capabilities caps.
func legacyInit(id any, version string, caps obj) string {
	if caps == nil {
		caps = obj{}
	}
	return request(id, "initialize", obj{"protocolVersion": version, "capabilities": caps,
		"clientInfo": obj{"name": "legacy-client", "version": "1.0"}})
}

// allCaps are the capabilities of a client that answers every input.
var allCaps = obj{"elicitation": obj{}, "sampling": obj{}, "roots": obj{"listChanged": true}}

// checkLegacy checks that m, the answer to method, is a valid 2025-11-25
// answer: its result decodes and validates as the revision's result type
// and carries none of the members only 2026-07-28 defines.
func checkLegacy(t *testing.T, method string, m msg) {
	t.Helper()
	if m.Error != nil {
		return
	}
	d := mcp20251125.Revision.Lookup(method)
	if d == nil || d.NewResult == nil {
		t.Fatalf("%s is not a 2025-11-25 request", method)
	}
	raw, _ := json.Marshal(m.Result)
	v := d.NewResult()
	if err := wireimpl.Decode(raw, v); err != nil {
		t.Fatalf("%s: the result is not a 2025-11-25 %v: %v\n%s", method, d.ResultTypes, err, raw)
	}
	if err := v.Validate(); err != nil {
		t.Fatalf("%s: the result is not a valid 2025-11-25 %v: %v\n%s", method, d.ResultTypes, err, raw)
	}
	for _, key := range []string{`"resultType"`, `"ttlMs"`, `"cacheScope"`, `"` + mcp.MetaKeyServerInfo + `"`} {
		if strings.Contains(string(raw), key) {
			t.Errorf("%s: a 2025-11-25 result carries %s: %s", method, key, raw)
		}
	}
}

// startLegacyStdio serves s over stdio to a client that has initialized
// at version with caps.
func startLegacyStdio(t *testing.T, s *Server, version string, caps obj) *stdioClient {
	t.Helper()
	c := startStdio(t, s)
	c.legacy = true
	c.send(legacyInit("init", version, caps))
	m, _ := c.response(`"init"`)
	wantResult(t, m)
	checkLegacy(t, "initialize", m)
	c.send(notification("notifications/initialized", nil))
	return c
}

// legacyHTTP is a 2025-11-25 client of the Streamable HTTP transport.
type legacyHTTP struct {
	*httpClient
	sid, version string
}

// startLegacyHTTP opens a session of a client with caps.
func startLegacyHTTP(t *testing.T, s *Server, opts *HTTPOptions, caps obj) *legacyHTTP {
	t.Helper()
	h := startHTTP(t, s, opts)
	return h.initialize(t, legacyVersion, caps, nil)
}

// initialize opens another session on h; hdr adds request headers.
func (h *httpClient) initialize(t *testing.T, version string, caps obj, hdr map[string]string) *legacyHTTP {
	t.Helper()
	l := &legacyHTTP{httpClient: h}
	resp, msgs := l.send(legacyInit("init", version, caps), hdr)
	if resp.StatusCode != http.StatusOK || len(msgs) != 1 {
		t.Fatalf("initialize: %d %v", resp.StatusCode, msgs)
	}
	wantResult(t, msgs[0])
	checkLegacy(t, "initialize", msgs[0])
	l.sid = resp.Header.Get("Mcp-Session-Id")
	l.version, _ = msgs[0].Result["protocolVersion"].(string)
	if l.sid == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	resp, _ = l.send(notification("notifications/initialized", nil), hdr)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d, want 202", resp.StatusCode)
	}
	return l
}

// request builds a request of the session: the legacy headers (no
// Mcp-Method or Mcp-Name), changed by hdr as in httpClient.post.
func (l *legacyHTTP) request(ctx context.Context, method, body string, hdr map[string]string) *http.Request {
	l.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, l.ts.URL, rd)
	if err != nil {
		l.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if l.sid != "" {
		req.Header.Set("Mcp-Session-Id", l.sid)
		req.Header.Set(mcpheader.ProtocolVersion, l.version)
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	return req
}

// post POSTs body in the session.
func (l *legacyHTTP) post(ctx context.Context, body string, hdr map[string]string) *http.Response {
	l.t.Helper()
	resp, err := l.c.Do(l.request(ctx, http.MethodPost, body, hdr))
	if err != nil {
		l.t.Fatalf("POST: %v", err)
	}
	return resp
}

// send POSTs body and reads the whole answer.
func (l *legacyHTTP) send(body string, hdr map[string]string) (*http.Response, []msg) {
	l.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	resp := l.post(ctx, body, hdr)
	defer resp.Body.Close()
	return resp, readAnswer(l.t, resp, true)
}

// call sends a request of the session and returns its answer, checked as
// a 2025-11-25 answer.
func (l *legacyHTTP) call(id any, method string, p any) msg {
	l.t.Helper()
	resp, msgs := l.send(request(id, method, p), nil)
	if resp.StatusCode != http.StatusOK || len(msgs) == 0 {
		l.t.Fatalf("%s: %d %v", method, resp.StatusCode, msgs)
	}
	m := msgs[len(msgs)-1]
	checkLegacy(l.t, method, m)
	return m
}

// get opens the session's GET stream (or resumes after lastEventID).
func (l *legacyHTTP) get(lastEventID string) (*http.Response, *legacyStream) {
	l.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hdr := map[string]string{"Accept": "text/event-stream"}
	if lastEventID != "" {
		hdr["Last-Event-ID"] = lastEventID
	}
	resp, err := l.c.Do(l.request(ctx, http.MethodGet, "", hdr))
	if err != nil {
		cancel()
		l.t.Fatalf("GET: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		resp.Body.Close()
		return resp, nil
	}
	return resp, newLegacyStream(l.t, resp, cancel)
}

// legacyStream reads an SSE response with its event ids.
type legacyStream struct {
	t      *testing.T
	cancel context.CancelFunc
	events chan idEvent
	body   io.Closer
}

type idEvent struct {
	id, data, retry string
}

func newLegacyStream(t *testing.T, resp *http.Response, cancel context.CancelFunc) *legacyStream {
	s := readLegacyStream(t, resp, cancel)
	t.Cleanup(s.close)
	return s
}

// readLegacyStream is newLegacyStream for a caller that closes it.
func readLegacyStream(t *testing.T, resp *http.Response, cancel context.CancelFunc) *legacyStream {
	s := &legacyStream{t: t, cancel: cancel, events: make(chan idEvent, 256), body: resp.Body}
	go func() {
		defer close(s.events)
		r := bufio.NewReader(resp.Body)
		var ev idEvent
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case line == "":
				if ev != (idEvent{}) {
					s.events <- ev
				}
				ev = idEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "retry: "):
				ev.retry = strings.TrimPrefix(line, "retry: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			case line == "data:":
			}
		}
	}()
	return s
}

func (s *legacyStream) close() {
	s.cancel()
	s.body.Close()
}

// next returns the next event, or ok false when the stream ended.
func (s *legacyStream) next() (ev idEvent, ok bool) {
	s.t.Helper()
	select {
	case ev, ok = <-s.events:
		return ev, ok
	case <-timeAfter():
		s.t.Fatalf("no SSE event within %v", waitFor)
	}
	return
}

// message returns the next event carrying a message.
func (s *legacyStream) message() (msg, string) {
	s.t.Helper()
	for {
		ev, ok := s.next()
		if !ok {
			s.t.Fatal("the stream ended")
		}
		if ev.data != "" {
			m := parseMsg(ev.data)
			if !m.legacyOK() {
				s.t.Fatalf("SSE event is not a JSON-RPC message (%s): %q", m.bad, ev.data)
			}
			return m, ev.id
		}
	}
}
