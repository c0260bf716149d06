package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// On HTTP a dual-era client probes with server/discover (COMPAT-7): a 400
// whose body is no modern error, or an answer that is no DiscoverResult,
// means a legacy server. The client then initializes without session id or
// version header, echoes the session id the server mints on every later
// request (LHTTP-5, LHTTP-6) with MCP-Protocol-Version (LVER-8), and opens
// the GET stream (LSSE-1).
func TestCOMPAT7_DualEraOpensLegacySessionHTTP(t *testing.T) {
	for _, tc := range []struct {
		name  string
		probe func(w http.ResponseWriter, r *http.Request, m msg)
	}{
		{"400 -32000 (SDK servers)", nil},
		{"plain 400", func(w http.ResponseWriter, r *http.Request, m msg) { http.Error(w, "Bad Request", 400) }},
		{"200 {}", func(w http.ResponseWriter, r *http.Request, m msg) { writeJSON(w, 200, result(m.ID, obj{})) }},
		{"200 -32601", func(w http.ResponseWriter, r *http.Request, m msg) {
			writeJSON(w, 200, rpcError(m.ID, -32601, "Method not found", nil))
		}},
		{"404", func(w http.ResponseWriter, r *http.Request, m msg) { http.Error(w, "not found", 404) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLegacyHTTPFake(t)
			if tc.probe != nil {
				f.on(mcp.MethodDiscover, tc.probe)
			}
			c := f.connect(t, &client.Options{Header: http.Header{"Authorization": {"Bearer t0k"}}})
			if v := c.ProtocolVersion(); v != "2025-11-25" {
				t.Errorf("ProtocolVersion() = %q", v)
			}
			if _, err := c.ListToolsPage(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			reqs := f.requests("")
			if len(reqs) < 5 {
				t.Fatalf("%d requests: %+v", len(reqs), reqs)
			}
			if reqs[0].m.Method != mcp.MethodDiscover || reqs[1].m.Method != "initialize" {
				t.Fatalf("first requests %s, %s; want the probe, then initialize", reqs[0].m.Method, reqs[1].m.Method)
			}
			init := reqs[1]
			if init.header.Get("Mcp-Session-Id") != "" || init.header.Get("MCP-Protocol-Version") != "" {
				t.Errorf("initialize headers %v: no session and no version yet", init.header)
			}
			if init.header.Get("Accept") != "application/json, text/event-stream" || init.header.Get("Authorization") != "Bearer t0k" {
				t.Errorf("initialize headers %v", init.header)
			}
			var sawGet, sawInitialized, sawList bool
			for _, r := range reqs[2:] {
				if r.header.Get("Mcp-Session-Id") != "sess-1" || r.header.Get("MCP-Protocol-Version") != "2025-11-25" {
					t.Errorf("%s %s: headers %v, want the session id and the version", r.method, r.m.Method, r.header)
				}
				if r.header.Get("Authorization") != "Bearer t0k" {
					t.Errorf("%s %s: no Authorization", r.method, r.m.Method)
				}
				switch {
				case r.method == http.MethodGet:
					sawGet = true
					if r.header.Get("Accept") != "text/event-stream" {
						t.Errorf("GET Accept %q", r.header.Get("Accept"))
					}
				case r.m.Method == "notifications/initialized":
					sawInitialized = true
				case r.m.Method == "tools/list":
					sawList = true
					if r.header.Get("Mcp-Method") != "" || hasModernMeta(r.m) {
						t.Errorf("a legacy request with 2026-07-28 headers or _meta: %v %s", r.header, r.m.raw)
					}
				}
			}
			if !sawGet || !sawInitialized || !sawList {
				t.Errorf("GET %v, notifications/initialized %v, tools/list %v", sawGet, sawInitialized, sawList)
			}
		})
	}
}

// A modern-era session whose server turns out legacy (a 400 that is no
// modern error, COMPAT-7) switches to a legacy session and sends the
// request again there: the cached era was wrong (§4.4).
func TestCOMPAT7_CachedEraTurnsOutWrong(t *testing.T) {
	f := newLegacyHTTPFake(t)
	f.on(mcp.MethodDiscover, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, discoverResult(0)))
	})
	c := f.connect(t, nil)
	if v := c.ProtocolVersion(); v != mcp.ProtocolVersion {
		t.Fatalf("ProtocolVersion() = %q after a DiscoverResult", v)
	}
	r, err := c.ListToolsPage(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tools) != 1 || c.ProtocolVersion() != "2025-11-25" {
		t.Errorf("tools %+v, version %s", r.Tools, c.ProtocolVersion())
	}
	lists := f.posts("tools/list")
	if len(lists) != 2 || lists[0].header.Get("Mcp-Session-Id") != "" || lists[1].header.Get("Mcp-Session-Id") != "sess-1" {
		t.Errorf("tools/list requests %+v: want the modern one and the retry in the session", lists)
	}
}

// A 404 to a request carrying the session id means the session ended: the
// client initializes anew, without the old id, sends the request again
// (LHTTP-7) and subscribes again to what its listeners follow (LSUB-6).
func TestLHTTP7_ReinitializeOn404(t *testing.T) {
	f := newLegacyHTTPFake(t)
	c := f.connect(t, nil)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ch := listenChan(c.Listen(ctx, mcp.SubscriptionFilter{ResourceSubscriptions: []string{"file:///a"}}))
	nextNote(t, ch) // the acknowledgement
	f.expire()
	if _, err := c.ListToolsPage(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	inits := f.posts("initialize")
	if len(inits) != 2 || inits[1].header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("%d initialize requests; the second with session %q", len(inits), inits[len(inits)-1].header.Get("Mcp-Session-Id"))
	}
	lists := f.posts("tools/list")
	if len(lists) != 2 || lists[0].header.Get("Mcp-Session-Id") != "sess-1" || lists[1].header.Get("Mcp-Session-Id") != "sess-2" {
		t.Errorf("tools/list sessions: %+v", lists)
	}
	eventually(t, "resources/subscribe in the new session", func() bool {
		for _, s := range f.posts("resources/subscribe") {
			if s.header.Get("Mcp-Session-Id") == "sess-2" {
				return true
			}
		}
		return false
	})
}

// Close ends the session with DELETE, carrying its id and the version
// (LHTTP-8); a server that refuses with 405 is fine.
func TestLHTTP8_DeleteOnClose(t *testing.T) {
	for _, status := range []int{200, 405} {
		f := newLegacyHTTPFake(t)
		f.deleteStatus = status
		c, err := client.ConnectURL(context.Background(), f.srv.URL, clientInfo, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		deleted := f.requests(http.MethodDelete)
		if len(deleted) != 1 || deleted[0].header.Get("Mcp-Session-Id") != "sess-1" || deleted[0].header.Get("MCP-Protocol-Version") != "2025-11-25" {
			t.Errorf("status %d: DELETE requests %+v", status, deleted)
		}
	}
}

// A request's SSE stream the server closes before the response is resumed
// with a GET carrying Last-Event-ID, not sooner than the retry field says
// (LSSE-5, LSSE-7); the response comes on the resumed stream. A stream
// without event ids cannot be resumed: the request fails (SSE-6).
func TestLSSE5_ResumeAfterRetry(t *testing.T) {
	f := newLegacyHTTPFake(t)
	var mu sync.Mutex
	var closedAt, resumedAt time.Time
	var pending json.RawMessage
	f.on("tools/call", func(w http.ResponseWriter, r *http.Request, m msg) {
		if name, _ := m.param("name"); name == "no-ids" {
			startSSE(w).comment("no event ids")
			return
		}
		s := startSSE(w)
		_, _ = io.WriteString(s.w, "id: e1\nretry: 300\ndata: \n\n")
		s.w.(http.Flusher).Flush()
		mu.Lock()
		pending = m.ID
		closedAt = time.Now()
		mu.Unlock()
	})
	f.get = func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Last-Event-ID") == "" {
			f.stream(w, r)
			return
		}
		mu.Lock()
		resumedAt = time.Now()
		id := pending
		mu.Unlock()
		if r.Header.Get("Last-Event-ID") != "e1" || r.Header.Get("Mcp-Session-Id") != "sess-1" {
			http.Error(w, "bad resumption", 400)
			return
		}
		s := startSSE(w)
		_, _ = io.WriteString(s.w, "id: e2\ndata: "+result(id, legacyText("resumed"))+"\n\n")
		s.w.(http.Flusher).Flush()
	}
	c := f.connect(t, nil)
	r, err := c.CallTool(context.Background(), "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if textOf(t, r) != "resumed" {
		t.Errorf("result %+v", r)
	}
	mu.Lock()
	if d := resumedAt.Sub(closedAt); d < 300*time.Millisecond {
		t.Errorf("resumed after %v, before the 300 ms retry", d)
	}
	mu.Unlock()

	_, err = c.CallTool(context.Background(), "no-ids", nil)
	if !errors.Is(err, client.ErrStreamBroken) {
		t.Errorf("err = %v, want ErrStreamBroken", err)
	}
}

// The server's requests, on a request's SSE stream or on the GET stream,
// are answered by POSTing the response in the session (LS2C-3, LSSE-2).
func TestLS2C3_ServerRequestsPostedHTTP(t *testing.T) {
	f := newLegacyHTTPFake(t)
	f.on("tools/call", func(w http.ResponseWriter, r *http.Request, m msg) {
		s := startSSE(w)
		s.event(`{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"Bob"}}}}}`)
		answer := f.nextPosted()
		s.event(result(m.ID, legacyText("got "+mustJSON(answer.Result))))
	})
	opts := &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept}, nil
		},
		Roots: func(ctx context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: "file:///r"}}, nil },
	}
	c := f.connect(t, opts)
	r, err := c.CallTool(context.Background(), "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, r); got != `got {"action":"accept","content":{"name":"Bob"}}` {
		t.Errorf("the server got %s", got)
	}
	var resp *legacyReq
	for _, q := range f.requests(http.MethodPost) {
		if q.m.Method == "" && string(q.m.ID) == `"e-1"` {
			resp = &q
		}
	}
	if resp == nil || resp.header.Get("Mcp-Session-Id") != "sess-1" || resp.header.Get("MCP-Protocol-Version") != "2025-11-25" {
		t.Fatalf("the response was not posted in the session: %+v", resp)
	}

	f.push(`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`)
	answer := f.nextPosted()
	if string(answer.ID) != "7" || !jsonEq(jsonRaw(string(answer.Result)), obj{"roots": []obj{{"uri": "file:///r"}}}) {
		t.Errorf("roots answer %s", answer.raw)
	}
}

// Cancelling is notifications/cancelled, POSTed in the session; closing
// the stream is not enough on legacy HTTP (LCAN-1, LCAN-6).
func TestLCAN6_CancelIsANotificationHTTP(t *testing.T) {
	f := newLegacyHTTPFake(t)
	f.on("tools/call", func(w http.ResponseWriter, r *http.Request, m msg) {
		startSSE(w)
		select {
		case <-r.Context().Done():
		case <-time.After(waitFor):
		}
	})
	c := f.connect(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.CallTool(ctx, "slow", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	n := f.nextPosted()
	call := f.posts("tools/call")[0]
	if id, _ := n.param("requestId"); n.Method != mcp.NotificationCancelled || mustJSON(id) != call.idKey() {
		t.Errorf("posted %s, want notifications/cancelled for %s", n.raw, call.idKey())
	}
	if n.header.Get("Mcp-Session-Id") != "sess-1" {
		t.Errorf("cancellation headers %v", n.header)
	}
}

// What the server sends on the GET stream feeds Listen (LSSE-2); a server
// without a GET stream (405, LSSE-1) is asked once.
func TestLSSE1_GetStream(t *testing.T) {
	t.Run("notifications", func(t *testing.T) {
		f := newLegacyHTTPFake(t)
		c := f.connect(t, nil)
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		ch := listenChan(c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true), ResourceSubscriptions: []string{"file:///a"}}))
		if ack := nextNote(t, ch).SubscriptionsAcknowledgedNotification; ack == nil || len(ack.Params.Notifications.ResourceSubscriptions) != 1 {
			t.Fatalf("acknowledgement %+v", ack)
		}
		f.push(notification("notifications/tools/list_changed", nil))
		f.push(notification("notifications/resources/updated", obj{"uri": "file:///a"}))
		if k := kind(nextNote(t, ch)); k != "tools" {
			t.Errorf("got %s", k)
		}
		if k := kind(nextNote(t, ch)); k != "updated file:///a" {
			t.Errorf("got %s", k)
		}
	})
	t.Run("405", func(t *testing.T) {
		f := newLegacyHTTPFake(t)
		f.get = func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusMethodNotAllowed) }
		c := f.connect(t, nil)
		if _, err := c.ListToolsPage(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond) // longer than the default retry delay
		if n := len(f.requests(http.MethodGet)); n != 1 {
			t.Errorf("%d GET requests, want 1", n)
		}
	})
}

// A session id with characters outside 0x21–0x7E is refused (LHTTP-5).
func TestLHTTP5_SessionIDVisibleASCII(t *testing.T) {
	f := newLegacyHTTPFake(t)
	f.on("initialize", func(w http.ResponseWriter, r *http.Request, m msg) {
		w.Header().Set("Mcp-Session-Id", "bad id")
		writeJSON(w, 200, result(m.ID, legacyInit("2025-11-25", nil)))
	})
	_, err := client.ConnectURL(context.Background(), f.srv.URL, clientInfo, nil)
	if err == nil || !strings.Contains(err.Error(), "LHTTP-5") {
		t.Fatalf("err = %v, want the session id refused", err)
	}
}
