package server

import (
	"context"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
)

// blockTool registers "block": it announces its context on started, then
// waits for the context to end or for release; with finishAnyway it
// reports progress and returns a result even after a cancellation.
func blockTool(t *testing.T, s *Server, started chan<- context.Context, release <-chan struct{}, finishAnyway bool) {
	t.Helper()
	toolFunc(t, s, "block", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		req.Progress(1, 0, "") // opens the SSE stream when there is a token
		started <- ctx
		select {
		case <-release:
		case <-ctx.Done():
			if !finishAnyway {
				return nil, ctx.Err()
			}
			req.Progress(2, 0, "still going") // must not reach the client (CAN-3)
			<-release
		}
		return TextResult("finished"), nil
	})
}

func waitDone(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(waitFor):
		t.Fatalf("%s: the handler's context was not cancelled", what)
	}
}

// TestSTDIO6_CAN3_CancelStopsHandler: notifications/cancelled ends the
// handler's context and nothing is sent for the request afterwards, even
// when the handler still returns a result.
func TestSTDIO6_CAN3_CancelStopsHandler(t *testing.T) {
	for _, finishAnyway := range []bool{false, true} {
		s := New(testInfo, nil)
		started := make(chan context.Context, 1)
		release := make(chan struct{})
		blockTool(t, s, started, release, finishAnyway)
		c := startStdio(t, s)
		c.send(request(5, "tools/call", obj{"_meta": reqMeta(nil, obj{"progressToken": "p"}), "name": "block"}))
		ctx := <-started
		if m := c.next(); m.Method != "notifications/progress" {
			t.Fatalf("want the progress notification first, got %s", m)
		}
		c.send(notification("notifications/cancelled", obj{"requestId": 5, "reason": "user gave up"}))
		waitDone(t, ctx, "cancelled over stdio")
		close(release)
		for _, m := range c.expectQuiet("after-cancel") {
			t.Errorf("finishAnyway=%v: message for a cancelled request: %s", finishAnyway, m)
		}
		c.finish()
	}
}

// TestID5_CAN4_CancelMatchesIdType: a cancellation naming "5" does not
// cancel request 5 (ID-5); malformed and unknown cancellations are ignored
// (CAN-4) and the request still completes.
func TestID5_CAN4_CancelMatchesIdType(t *testing.T) {
	s := New(testInfo, nil)
	started := make(chan context.Context, 1)
	release := make(chan struct{})
	blockTool(t, s, started, release, false)
	c := startStdio(t, s)
	c.send(request(5, "tools/call", params(obj{"name": "block"})))
	ctx := <-started
	for _, p := range []any{
		obj{"requestId": "5"},
		obj{"requestId": 6},
		obj{"requestId": nil},
		obj{"requestId": 5.5},
		obj{},
		"garbage",
		nil,
	} {
		c.send(notification("notifications/cancelled", p))
	}
	// The stdio reader handles lines in order: once the sentinel is
	// answered, every cancellation above has been seen.
	for _, m := range c.expectQuiet("sentinel") {
		t.Errorf("answer to a notification: %s", m)
	}
	if ctx.Err() != nil {
		t.Fatalf("request 5 was cancelled by a cancellation that does not name it")
	}
	close(release)
	m, _ := c.response("5")
	if m.text() != "finished" {
		t.Errorf("request 5: %s", m)
	}
	c.finish()
}

// TestHCAN1_DisconnectCancels: closing the HTTP response (JSON or SSE
// mode) cancels the handler's context.
func TestHCAN1_DisconnectCancels(t *testing.T) {
	s := New(testInfo, nil)
	started := make(chan context.Context, 1)
	blockTool(t, s, started, make(chan struct{}), false)
	h := startHTTP(t, s, nil)

	t.Run("json", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			req := request(1, "tools/call", params(obj{"name": "block"}))
			r, err := h.c.Do(mustRequest(t, ctx, h.ts.URL, req))
			if err == nil {
				r.Body.Close()
			}
			errc <- err
		}()
		hctx := <-started
		cancel()
		waitDone(t, hctx, "client disconnect (JSON)")
		if err := <-errc; err == nil {
			t.Errorf("the request completed although it was cancelled")
		}
	})
	t.Run("sse", func(t *testing.T) {
		st := h.open(request(2, "tools/call", obj{"_meta": reqMeta(nil, obj{"progressToken": 1}), "name": "block"}), nil)
		hctx := <-started
		if m := st.next(); m.Method != "notifications/progress" {
			t.Fatalf("first event %s", m)
		}
		st.close()
		waitDone(t, hctx, "client disconnect (SSE)")
	})
}
