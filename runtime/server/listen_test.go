package server

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
)

var allChanges = obj{
	"toolsListChanged":      true,
	"promptsListChanged":    true,
	"resourcesListChanged":  true,
	"resourceSubscriptions": []any{"file:///dir"},
}

func listenParams(filter obj) obj { return params(obj{"notifications": filter}) }

// wantAck checks that m is the acknowledgement for subscription sid with
// the honoured filter.
func wantAck(t *testing.T, m msg, sid any, filter obj) {
	t.Helper()
	if m.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message of subscription %v: %s, want the acknowledgement (SUB-3)", sid, m)
	}
	if got := m.subID(); !reflect.DeepEqual(got, sid) {
		t.Fatalf("acknowledgement subscriptionId = %#v, want %#v (SUB-5, ID-5)", got, sid)
	}
	got, _ := m.Params["notifications"].(obj)
	if got == nil {
		got = obj{}
	}
	if !reflect.DeepEqual(got, filter) {
		t.Fatalf("acknowledged filter %v, want %v (SUB-4)", got, filter)
	}
}

// wantNote checks a notification of the subscription.
func wantNote(t *testing.T, m msg, method string, sid any) {
	t.Helper()
	if m.Method != method || !reflect.DeepEqual(m.subID(), sid) {
		t.Fatalf("got %s, want %s for subscription %#v", m, method, sid)
	}
}

// TestSUB3_AckFirst: on a stdio and an HTTP listen stream open at once,
// the acknowledgement comes first and every later notification triggered
// from Go code (Add/Remove of tools, prompts and resources, Notify*ListChanged,
// NotifyResourceUpdated incl. sub-resources) reaches both, carrying the
// listen id with its JSON type (SUB-5, ID-5, SUB-9).
func TestSUB3_AckFirst(t *testing.T) {
	for _, id := range []any{7, "listen-1", "7"} {
		t.Run(fmt.Sprintf("%T %v", id, id), func(t *testing.T) {
			s := newServer(t, nil)
			sid := any(id)
			if n, ok := id.(int); ok {
				sid = float64(n) // how encoding/json reads a JSON integer
			}
			c := startStdio(t, s)
			c.send(request(id, "subscriptions/listen", listenParams(allChanges)))
			wantAck(t, c.next(), sid, allChanges)
			// The same listen over HTTP (another connection may reuse the id).
			st := startHTTP(t, s, nil).open(request(id, "subscriptions/listen", listenParams(allChanges)), nil)
			wantAck(t, st.next(), sid, allChanges)

			triggers := []struct {
				do     func()
				method string
				uri    string
			}{
				{func() { toolFunc(t, s, "new-tool", okTool) }, "notifications/tools/list_changed", ""},
				{func() { s.RemoveTool("new-tool") }, "notifications/tools/list_changed", ""},
				{func() {
					must(t, s.AddPrompt(mcp.Prompt{Name: "p2"}, func(context.Context, *PromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }))
				}, "notifications/prompts/list_changed", ""},
				{func() { s.RemovePrompt("p2") }, "notifications/prompts/list_changed", ""},
				{func() {
					must(t, s.AddResource(mcp.Resource{URI: "file:///r2", Name: "r2"}, func(context.Context, *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) { return nil, nil }))
				}, "notifications/resources/list_changed", ""},
				{func() { s.RemoveResource("file:///r2") }, "notifications/resources/list_changed", ""},
				{s.NotifyToolListChanged, "notifications/tools/list_changed", ""},
				{s.NotifyPromptListChanged, "notifications/prompts/list_changed", ""},
				{s.NotifyResourceListChanged, "notifications/resources/list_changed", ""},
				{func() { s.NotifyResourceUpdated("file:///dir") }, "notifications/resources/updated", "file:///dir"},
				// Not subscribed: file:///directory is not under file:///dir.
				// The next trigger's notification must come first.
				{func() { s.NotifyResourceUpdated("file:///directory"); s.NotifyResourceUpdated("file:///dir/sub/a.txt") },
					"notifications/resources/updated", "file:///dir/sub/a.txt"},
			}
			for _, tr := range triggers {
				tr.do()
				for _, m := range []msg{c.next(), st.next()} { // every open stream
					wantNote(t, m, tr.method, sid)
					if tr.uri != "" && m.Params["uri"] != tr.uri {
						t.Fatalf("updated uri %v, want %s", m.Params["uri"], tr.uri)
					}
				}
			}
			c.finish()
		})
	}
}

func okTool(context.Context, *ToolRequest) (*mcp.CallToolResult, error) {
	return TextResult("ok"), nil
}

// TestSUB5_SubscriptionIdOverHTTP: the acknowledgement and notifications
// on an HTTP listen stream carry the listen id with its JSON type.
func TestSUB5_SubscriptionIdOverHTTP(t *testing.T) {
	s := newServer(t, nil)
	h := startHTTP(t, s, nil)
	for _, c := range []struct {
		id  any
		sid any
	}{{7, 7.0}, {"listen-1", "listen-1"}, {"7", "7"}} {
		// The tool of id 7 is replaced for id "7": a change all the same.
		st := h.open(request(c.id, "subscriptions/listen", listenParams(obj{"toolsListChanged": true})), nil)
		if ct := st.resp.Header.Get("X-Accel-Buffering"); ct != "no" {
			t.Errorf("listen stream without X-Accel-Buffering: no")
		}
		wantAck(t, st.next(), c.sid, obj{"toolsListChanged": true})
		must(t, s.AddTool(mcp.Tool{Name: fmt.Sprint("t", c.id)}, okTool, Replace()))
		wantNote(t, st.next(), "notifications/tools/list_changed", c.sid)
		st.close()
	}
}

// TestSUB2_FilterRespected: each listener gets only what its filter asked
// for.
func TestSUB2_FilterRespected(t *testing.T) {
	s := newServer(t, nil)
	h := startHTTP(t, s, nil)
	tools := h.open(request("tools", "subscriptions/listen", listenParams(obj{"toolsListChanged": true})), nil)
	prompts := h.open(request("prompts", "subscriptions/listen", listenParams(obj{"promptsListChanged": true})), nil)
	res := h.open(request("res", "subscriptions/listen", listenParams(obj{"resourceSubscriptions": []any{"file:///a"}})), nil)
	wantAck(t, tools.next(), "tools", obj{"toolsListChanged": true})
	wantAck(t, prompts.next(), "prompts", obj{"promptsListChanged": true})
	wantAck(t, res.next(), "res", obj{"resourceSubscriptions": []any{"file:///a"}})

	toolFunc(t, s, "x", okTool)
	wantNote(t, tools.next(), "notifications/tools/list_changed", "tools")
	must(t, s.AddPrompt(mcp.Prompt{Name: "x"}, func(context.Context, *PromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }))
	// Had the prompts listener wrongly got the tool change, it would come
	// before this one.
	wantNote(t, prompts.next(), "notifications/prompts/list_changed", "prompts")
	s.NotifyResourceUpdated("file:///b")
	s.NotifyResourceUpdated("file:///a")
	m := res.next()
	wantNote(t, m, "notifications/resources/updated", "res")
	if m.Params["uri"] != "file:///a" {
		t.Errorf("resource listener got %s, want only file:///a", m)
	}
	toolFunc(t, s, "y", okTool)
	// The tools listener's next message is this change: it saw no prompt
	// or resource notification in between.
	wantNote(t, tools.next(), "notifications/tools/list_changed", "tools")
}

// TestSUB4_HonouredFilter: the acknowledgement echoes the filter the
// server will honour. The runtime can deliver every kind of change, and a
// server with nothing registered yet may add tools, prompts or resources
// while the stream is open, so the whole filter is honoured, also by an
// empty server (GATE-3); a later registration reaches that stream.
func TestSUB4_HonouredFilter(t *testing.T) {
	s := New(testInfo, nil)
	toolFunc(t, s, "only", okTool)
	empty := New(testInfo, nil)
	for _, srv := range []*Server{s, empty} {
		cl := startStdio(t, srv)
		cl.send(request(1, "subscriptions/listen", listenParams(allChanges)))
		wantAck(t, cl.next(), 1.0, allChanges)
		cl.finish()
		h := startHTTP(t, srv, nil)
		st := h.open(request(1, "subscriptions/listen", listenParams(allChanges)), nil)
		wantAck(t, st.next(), 1.0, allChanges)
		st.close()
	}
	cl := startStdio(t, empty)
	cl.send(request(2, "subscriptions/listen", listenParams(obj{"toolsListChanged": true})))
	wantAck(t, cl.next(), 2.0, obj{"toolsListChanged": true})
	toolFunc(t, empty, "late", okTool)
	wantNote(t, cl.next(), "notifications/tools/list_changed", 2.0)
	cl.finish()
}

// TestSUB10_ClientCancelEndsListen: notifications/cancelled (stdio) or
// closing the stream (HTTP) ends the subscription: the listener is gone,
// no result and no further notification is sent for it.
func TestSUB10_ClientCancelEndsListen(t *testing.T) {
	s := newServer(t, nil)
	c := startStdio(t, s)
	c.send(request(7, "subscriptions/listen", listenParams(obj{"toolsListChanged": true})))
	wantAck(t, c.next(), 7.0, obj{"toolsListChanged": true})
	c.send(notification("notifications/cancelled", obj{"requestId": 7}))
	eventually(t, "the stdio listener is gone", func() bool { return s.ListenerCount() == 0 })
	toolFunc(t, s, "after-cancel", okTool)
	for _, m := range c.expectQuiet("sentinel") {
		t.Errorf("message after the listen was cancelled: %s", m)
	}
	c.finish()

	h := startHTTP(t, s, nil)
	st := h.open(request(8, "subscriptions/listen", listenParams(obj{"toolsListChanged": true})), nil)
	wantAck(t, st.next(), 8.0, obj{"toolsListChanged": true})
	st.close()
	eventually(t, "the HTTP listener is gone", func() bool { return s.ListenerCount() == 0 })
}

// TestSTDIO8_EOFEndsListen: stdin ending while a listen is open ends it
// and ServeStdio returns nil.
func TestSTDIO8_EOFEndsListen(t *testing.T) {
	s := newServer(t, nil)
	c := startStdio(t, s)
	c.send(request(1, "subscriptions/listen", listenParams(obj{"toolsListChanged": true})))
	wantAck(t, c.next(), 1.0, obj{"toolsListChanged": true})
	c.finish()
	if n := s.ListenerCount(); n != 0 {
		t.Errorf("%d listeners after EOF", n)
	}
}

// TestSUB11_ShutdownGraceful: Server.Shutdown answers every listen with
// the completion result carrying its subscriptionId (and serverInfo),
// then ends the stream; on stdio notifications/cancelled follows
// (Appendix A1). A listen after Shutdown is closed at once.
func TestSUB11_ShutdownGraceful(t *testing.T) {
	s := newServer(t, nil)
	c := startStdio(t, s)
	h := startHTTP(t, s, nil)
	c.send(request(7, "subscriptions/listen", listenParams(obj{"toolsListChanged": true})))
	wantAck(t, c.next(), 7.0, obj{"toolsListChanged": true})
	c.send(request("L2", "subscriptions/listen", listenParams(obj{})))
	wantAck(t, c.next(), "L2", obj{})
	st := h.open(request("h", "subscriptions/listen", listenParams(obj{"toolsListChanged": true})), nil)
	wantAck(t, st.next(), "h", obj{"toolsListChanged": true})

	s.Shutdown()

	checkClosed := func(m msg, sid any) {
		t.Helper()
		r := wantResult(t, m)
		if r["resultType"] != "complete" || !reflect.DeepEqual(dig(r, "_meta", "io.modelcontextprotocol/subscriptionId"), sid) ||
			dig(r, "_meta", "io.modelcontextprotocol/serverInfo") == nil {
			t.Errorf("graceful close result %s, want resultType complete with subscriptionId %#v (RT-7)", m, sid)
		}
	}
	m := st.next()
	if !m.idIs(`"h"`) {
		t.Fatalf("HTTP: %s", m)
	}
	checkClosed(m, "h")
	st.ended()

	results := map[string]bool{}
	cancelled := map[string]bool{}
	for len(results) < 2 || len(cancelled) < 2 {
		m := c.next()
		switch {
		case m.isResponse():
			checkClosed(m, map[string]any{"7": 7.0, `"L2"`: "L2"}[string(m.ID)])
			results[string(m.ID)] = true
		case m.Method == "notifications/cancelled":
			id := mustJSON(m.Params["requestId"])
			if !results[id] {
				t.Errorf("notifications/cancelled for %s before its result", id)
			}
			cancelled[id] = true
		default:
			t.Fatalf("unexpected %s", m)
		}
	}
	if !results["7"] || !results[`"L2"`] {
		t.Errorf("results for %v", results)
	}

	// After Shutdown a listen ends at once, with its result.
	m = c.roundTrip(9, "subscriptions/listen", listenParams(obj{"toolsListChanged": true}))
	checkClosed(m, 9.0)
	c.finish()
}

// TestSSE5_KeepAlive: a listen stream carries SSE comments while idle.
func TestSSE5_KeepAlive(t *testing.T) {
	s := newServer(t, nil)
	h := startHTTP(t, s, &HTTPOptions{KeepAlive: 10 * time.Millisecond})
	st := h.open(request(1, "subscriptions/listen", listenParams(obj{"toolsListChanged": true})), nil)
	wantAck(t, st.next(), 1.0, obj{"toolsListChanged": true})
	comments := 0
	for comments < 2 {
		ev := st.nextEvent()
		if !ev.comment {
			t.Fatalf("unexpected event on an idle stream: %s", ev.data)
		}
		comments++
	}
	// The stream still works after the comments.
	toolFunc(t, s, "x", okTool)
	wantNote(t, st.next(), "notifications/tools/list_changed", 1.0)
}

// TestSUB7_ManyListenersDoNotBlock: 100 open HTTP listen streams do not
// hold up a tools/call, and a tool change reaches every one of them.
func TestSUB7_ManyListenersDoNotBlock(t *testing.T) {
	s := newServer(t, nil)
	h := startHTTP(t, s, nil)
	const n = 100
	streams := make([]*stream, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			resp, err := h.c.Do(mustRequest(t, ctx, h.ts.URL, request(i, "subscriptions/listen", listenParams(obj{"toolsListChanged": true}))))
			if err != nil {
				cancel()
				mu.Lock()
				failures = append(failures, err.Error())
				mu.Unlock()
				return
			}
			streams[i] = newStream(t, resp, cancel)
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("opening listeners: %v", failures)
	}
	for i, st := range streams {
		wantAck(t, st.next(), float64(i), obj{"toolsListChanged": true})
	}
	if got := s.ListenerCount(); got != n {
		t.Fatalf("ListenerCount = %d, want %d", got, n)
	}

	// A deadline guards against a hang; it does not measure speed.
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	resp, err := h.c.Do(mustRequest(t, ctx, h.ts.URL, request("call", "tools/call", params(obj{"name": "echo", "arguments": obj{"text": "through"}}))))
	if err != nil {
		t.Fatalf("tools/call with %d listeners open: %v", n, err)
	}
	msgs := readMessages(t, resp)
	resp.Body.Close()
	if len(msgs) != 1 || msgs[0].text() != "through" {
		t.Fatalf("tools/call: %v", msgs)
	}

	toolFunc(t, s, "broadcast", okTool)
	for i, st := range streams {
		wantNote(t, st.next(), "notifications/tools/list_changed", float64(i))
	}
	for _, st := range streams {
		st.close()
	}
	eventually(t, "every listener is gone", func() bool { return s.ListenerCount() == 0 })
}

// TestMETA2_ListenInvalidParamsHTTP400: a subscriptions/listen whose _meta
// is missing or malformed is refused like any other request: HTTP 400
// with a JSON -32602, not a 200 event stream.
func TestMETA2_ListenInvalidParamsHTTP400(t *testing.T) {
	s := newServer(t, nil)
	h := startHTTP(t, s, nil)
	for i, c := range []struct {
		p      any
		status int // 0: not checked (-32602 outside _meta is a gap, A8)
	}{
		{obj{"notifications": obj{}}, http.StatusBadRequest},
		{nil, http.StatusBadRequest},
		{obj{"_meta": reqMeta(nil, obj{"io.modelcontextprotocol/clientCapabilities": nil}), "notifications": obj{}}, http.StatusBadRequest},
		{obj{"_meta": reqMeta(nil, obj{"io.modelcontextprotocol/logLevel": "loud"}), "notifications": obj{}}, 0},
		{params(obj{"notifications": "all"}), 0},
	} {
		resp, msgs := h.exchange(request(i, "subscriptions/listen", c.p), nil)
		if c.status != 0 && resp.StatusCode != c.status {
			t.Errorf("case %d: HTTP status %d, want %d (META-2)", i, resp.StatusCode, c.status)
		}
		if len(msgs) != 1 || msgs[0].Error == nil || msgs[0].Error.Code != -32602 {
			t.Errorf("case %d: %v, want one -32602 error", i, msgs)
		}
	}
	if s.ListenerCount() != 0 {
		t.Errorf("an invalid listen registered a listener")
	}
}
