package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// kind names a ServerNotification's method.
func kind(n *mcp.ServerNotification) string {
	switch {
	case n == nil:
		return "<nil>"
	case n.SubscriptionsAcknowledgedNotification != nil:
		return "ack"
	case n.ToolListChangedNotification != nil:
		return "tools"
	case n.PromptListChangedNotification != nil:
		return "prompts"
	case n.ResourceListChangedNotification != nil:
		return "resources"
	case n.ResourceUpdatedNotification != nil:
		return "updated " + n.ResourceUpdatedNotification.Params.URI
	}
	return "other"
}

// The listen request carries the filter; the acknowledgement comes first,
// then the notifications in order; SSE comments are skipped (SUB-1, SUB-3,
// SSE-5).
func TestSUB1_AcknowledgementThenNotificationsInOrder(t *testing.T) {
	f := newHTTPFake(t)
	f.on(mcp.MethodSubscriptionsListen, func(w http.ResponseWriter, r *http.Request, m msg) {
		s := startSSE(w)
		s.comment("keep-alive")
		s.event(notification("notifications/subscriptions/acknowledged", obj{"notifications": obj{"toolsListChanged": true}, "_meta": subMeta(m.ID)}))
		s.event(listChanged("notifications/tools/list_changed")(m.ID))
		s.comment("keep-alive")
		s.event(updated("file:///a")(m.ID))
		s.event(listChanged("notifications/prompts/list_changed")(m.ID))
		s.event(result(m.ID, obj{"resultType": "complete", "_meta": subMeta(m.ID)}))
	})
	c := f.connect(t, nil)
	var got []string
	for n, err := range c.Listen(context.Background(), mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true), ResourceSubscriptions: []string{"file:///a"}}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, kind(n))
		if kind(n) == "ack" {
			if !n.SubscriptionsAcknowledgedNotification.Params.Notifications.ToolsListChanged.Value {
				t.Errorf("ack %+v", n.SubscriptionsAcknowledgedNotification.Params)
			}
		}
	}
	want := []string{"ack", "tools", "updated file:///a", "prompts"}
	if mustJSON(got) != mustJSON(want) {
		t.Errorf("notifications %v, want %v", got, want)
	}
	req := f.requests(mcp.MethodSubscriptionsListen)[0]
	if filter, _ := req.param("notifications"); mustJSON(filter) != `{"resourceSubscriptions":["file:///a"],"toolsListChanged":true}` {
		t.Errorf("filter %s", mustJSON(filter))
	}
}

// Cancelling the context, or leaving the loop, ends the iteration without
// an error and closes the stream, which the server sees as the request's
// cancellation (SUB-10, HCAN-2).
func TestSUB10_CancelClosesStreamHTTP(t *testing.T) {
	f := newHTTPFake(t)
	push, closed := listenFake(f)
	c := f.connect(t, nil)

	ctx, cancel := context.WithCancel(context.Background())
	notes := listenChan(c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true)}))
	if k := kind(nextNote(t, notes)); k != "ack" {
		t.Fatalf("first %s", k)
	}
	push <- listChanged("notifications/tools/list_changed")
	if k := kind(nextNote(t, notes)); k != "tools" {
		t.Fatalf("second %s", k)
	}
	cancel()
	if _, err := listenEnd(t, notes); err != nil {
		t.Errorf("the iteration ended with %v", err)
	}
	within(t, "the server seeing the stream close", func() struct{} { <-closed; return struct{}{} })

	// Breaking out of the loop does the same.
	n := 0
	for _, err := range c.Listen(context.Background(), mcp.SubscriptionFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		break
	}
	if n != 1 {
		t.Errorf("%d notifications before break", n)
	}
	within(t, "the server seeing the stream close", func() struct{} { <-closed; return struct{}{} })
}

// A server that ends the stream with the listen result ends the iteration
// without error (SUB-11); one that drops it yields an error (SUB-12).
func TestSUB11_GracefulEndAndBrokenStreamHTTP(t *testing.T) {
	f := newHTTPFake(t)
	var graceful atomic.Bool
	graceful.Store(true)
	f.on(mcp.MethodSubscriptionsListen, func(w http.ResponseWriter, r *http.Request, m msg) {
		s := startSSE(w)
		s.event(notification("notifications/subscriptions/acknowledged", obj{"notifications": obj{}, "_meta": subMeta(m.ID)}))
		s.event(listChanged("notifications/tools/list_changed")(m.ID))
		if graceful.Load() {
			s.event(result(m.ID, obj{"resultType": "complete", "_meta": subMeta(m.ID)}))
		}
	})
	c := f.connect(t, nil)
	rest, err := listenEnd(t, listenChan(c.Listen(context.Background(), mcp.SubscriptionFilter{})))
	if err != nil || len(rest) != 2 {
		t.Errorf("graceful end: %d notifications, err %v; want 2 and none", len(rest), err)
	}
	graceful.Store(false)
	rest, err = listenEnd(t, listenChan(c.Listen(context.Background(), mcp.SubscriptionFilter{})))
	if !errors.Is(err, client.ErrStreamBroken) || len(rest) != 2 {
		t.Errorf("broken stream: %d notifications, err %v; want 2 and ErrStreamBroken", len(rest), err)
	}
}

// With the real server: changes made while listening arrive, and the
// server's shutdown ends the stream gracefully.
func TestSUB9_RealServerListen(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	if err := s.AddTool(mcp.Tool{Name: "a"}, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
		return server.TextResult("a"), nil
	}); err != nil {
		t.Fatal(err)
	}
	c := connectURL(t, realHTTP(t, s), nil)
	notes := listenChan(c.Listen(context.Background(), mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true)}))
	if k := kind(nextNote(t, notes)); k != "ack" {
		t.Fatalf("first %s", k)
	}
	s.RemoveTool("a")
	if k := kind(nextNote(t, notes)); k != "tools" {
		t.Fatalf("second %s", k)
	}
	s.Shutdown()
	if rest, err := listenEnd(t, notes); err != nil || len(rest) != 0 {
		t.Errorf("after shutdown: %v, err %v", rest, err)
	}
}

// openStdioListen starts a Listen on stdio and returns the listen request
// as the server saw it, after sending the acknowledgement.
func openStdioListen(t *testing.T, ctx context.Context, c *client.Client, f *stdioFake) (<-chan note, msg) {
	t.Helper()
	notes := listenChan(c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true)}))
	req := f.recvMethod(mcp.MethodSubscriptionsListen)
	f.send(notification("notifications/subscriptions/acknowledged", obj{"notifications": obj{"toolsListChanged": true}, "_meta": subMeta(req.ID)}))
	if k := kind(nextNote(t, notes)); k != "ack" {
		t.Fatalf("first %s", k)
	}
	return notes, req
}

// On stdio, ending the iteration sends notifications/cancelled naming the
// listen request's id, with its JSON type (SUB-10, STDIO-6, ID-5).
func TestSUB10_CancelSendsNotificationsCancelledStdio(t *testing.T) {
	c, f := connectStdio(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	notes, req := openStdioListen(t, ctx, c, f)
	f.send(listChanged("notifications/tools/list_changed")(req.ID))
	if k := kind(nextNote(t, notes)); k != "tools" {
		t.Fatalf("second %s", k)
	}
	cancel()
	m := f.recv()
	if m.Method != mcp.NotificationCancelled || m.ID != nil {
		t.Fatalf("got %s, want notifications/cancelled", m.raw)
	}
	if id, _ := m.param("requestId"); mustJSON(id) != req.idKey() {
		t.Errorf("cancelled %v, want the listen id %s", id, req.idKey())
	}
	if _, err := listenEnd(t, notes); err != nil {
		t.Errorf("the iteration ended with %v", err)
	}
}

// The server may end a stdio listen with its result, notifications/
// cancelled, or both in either order (SUB-11, A1): the iteration ends
// without error and the client does not cancel what already ended.
func TestSUB11_GracefulEndStdio(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(id json.RawMessage) []string
	}{
		{"result", func(id json.RawMessage) []string {
			return []string{result(id, obj{"resultType": "complete", "_meta": subMeta(id)})}
		}},
		{"cancelled", func(id json.RawMessage) []string {
			return []string{notification(mcp.NotificationCancelled, obj{"requestId": id, "reason": "shutdown"})}
		}},
		{"result then cancelled", func(id json.RawMessage) []string {
			return []string{result(id, obj{"resultType": "complete", "_meta": subMeta(id)}),
				notification(mcp.NotificationCancelled, obj{"requestId": id})}
		}},
		{"cancelled then result", func(id json.RawMessage) []string {
			return []string{notification(mcp.NotificationCancelled, obj{"requestId": id}),
				result(id, obj{"resultType": "complete", "_meta": subMeta(id)})}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, f := connectStdio(t, nil)
			notes, req := openStdioListen(t, context.Background(), c, f)
			f.send(listChanged("notifications/tools/list_changed")(req.ID))
			f.send(tc.end(req.ID)...)
			rest, err := listenEnd(t, notes)
			if err != nil || len(rest) != 1 || kind(rest[0]) != "tools" {
				t.Errorf("end: %v, err %v; want the tools notification and no error", rest, err)
			}
			// The next thing the client writes is its next request, not a
			// cancellation of the finished listen.
			go func() { _, _ = c.ListToolsPage(context.Background(), nil) }()
			if m := f.recv(); m.Method != mcp.MethodListTools {
				t.Errorf("after the end the client wrote %s", m.raw)
			} else {
				f.send(result(m.ID, toolsResult(nil, nil, 0, "public")))
			}
		})
	}
}

// Several listens share stdout: notifications go to the listen whose id
// their subscriptionId names, same JSON type (SUB-6, SUB-7, ID-5).
func TestSUB6_ConcurrentListensDemultiplexedStdio(t *testing.T) {
	c, f := connectStdio(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := listenChan(c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true)}))
	reqA := f.recvMethod(mcp.MethodSubscriptionsListen)
	b := listenChan(c.Listen(ctx, mcp.SubscriptionFilter{PromptsListChanged: wire.Some(true)}))
	reqB := f.recvMethod(mcp.MethodSubscriptionsListen)
	if reqA.idKey() == reqB.idKey() {
		t.Fatalf("two listens share id %s", reqA.idKey())
	}
	ack := func(id json.RawMessage) string {
		return notification("notifications/subscriptions/acknowledged", obj{"notifications": obj{}, "_meta": subMeta(id)})
	}
	asString, _ := json.Marshal(string(reqA.ID)) // "1" for 1: another id
	f.send(
		ack(reqB.ID),
		listChanged("notifications/prompts/list_changed")(reqB.ID),
		ack(reqA.ID),
		listChanged("notifications/tools/list_changed")(json.RawMessage(asString)),
		listChanged("notifications/tools/list_changed")(json.RawMessage(`"no-such-listen"`)),
		notification("notifications/tools/list_changed", nil),
		updated("file:///x")(reqA.ID),
		listChanged("notifications/prompts/list_changed")(reqB.ID),
		listChanged("notifications/tools/list_changed")(reqA.ID),
	)
	collect := func(ch <-chan note, n int) []string {
		var got []string
		for range n {
			got = append(got, kind(nextNote(t, ch)))
		}
		return got
	}
	if got, want := collect(a, 3), []string{"ack", "updated file:///x", "tools"}; mustJSON(got) != mustJSON(want) {
		t.Errorf("listen A got %v, want %v", got, want)
	}
	if got, want := collect(b, 3), []string{"ack", "prompts", "prompts"}; mustJSON(got) != mustJSON(want) {
		t.Errorf("listen B got %v, want %v", got, want)
	}
	cancel()
	for _, ch := range []<-chan note{a, b} {
		if rest, err := listenEnd(t, ch); err != nil || len(rest) != 0 {
			t.Errorf("after cancel: %v, err %v", rest, err)
		}
	}
}

// A stdio server that goes away ends the listen with ErrServerGone
// (SUB-12, STDIO-9).
func TestSUB12_ServerGoneEndsListenStdio(t *testing.T) {
	c, f := connectStdio(t, nil)
	notes, _ := openStdioListen(t, context.Background(), c, f)
	f.close()
	if _, err := listenEnd(t, notes); !errors.Is(err, client.ErrServerGone) {
		t.Errorf("err = %v, want ErrServerGone", err)
	}
}

// A listener busy in its loop body (here making a call) while hundreds of
// notifications arrive does not stall the stdio connection: the call's
// response is read past them, and every notification is still delivered
// in order (SUB-6, STDIO-5).
func TestSUB6_BusyListenerDoesNotStallStdio(t *testing.T) {
	c, f := connectStdio(t, &client.Options{Timeout: waitFor})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const burst = 300
	written := make(chan struct{})
	go func() { // the server side
		var req msg
		for m := range f.in {
			if m.Method == mcp.MethodSubscriptionsListen {
				req = m
				break
			}
		}
		lines := []string{notification("notifications/subscriptions/acknowledged", obj{"notifications": obj{}, "_meta": subMeta(req.ID)})}
		for i := range burst {
			lines = append(lines, updated(fmt.Sprintf("file:///%d", i))(req.ID))
		}
		f.send(lines...)
		close(written)
		for m := range f.in {
			if m.Method == mcp.MethodListPrompts {
				f.send(result(m.ID, obj{"resultType": "complete", "prompts": []obj{}, "ttlMs": 0, "cacheScope": "public"}))
				return
			}
		}
	}()
	var got []string
	for n, err := range c.Listen(ctx, mcp.SubscriptionFilter{ResourceSubscriptions: []string{"file:///"}}) {
		if err != nil {
			t.Fatal(err)
		}
		if kind(n) == "ack" {
			<-written // the burst is on its way before the call
			if _, err := c.ListPromptsPage(ctx, nil); err != nil {
				t.Fatalf("a call made while notifications queue up: %v", err)
			}
			continue
		}
		got = append(got, kind(n))
		if len(got) == burst {
			break
		}
	}
	for i, k := range got {
		if want := fmt.Sprintf("updated file:///%d", i); k != want {
			t.Fatalf("notification %d: %s, want %s", i, k, want)
		}
	}
}
