package server

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
)

// progressTool registers "work", which reports progress 1, 1, 0.5, 2, 3
// (the repeated and the smaller value must not be sent, PROG-3) and hands
// its request to done after answering.
func progressTool(t *testing.T, s *Server, done chan<- *ToolRequest) {
	t.Helper()
	toolFunc(t, s, "work", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		var sent []string
		for _, p := range []float64{1, 1, 0.5, 2, 3} {
			if req.Progress(p, 3, fmt.Sprintf("step %v", p)) {
				sent = append(sent, fmt.Sprint(p))
			}
		}
		if done != nil {
			done <- req
		}
		return TextResult(strings.Join(sent, ",")), nil
	})
}

func progressOf(t *testing.T, notes []msg, token any) []float64 {
	t.Helper()
	var got []float64
	for _, n := range notes {
		if n.Method != "notifications/progress" {
			t.Errorf("unexpected notification before the response: %s", n)
			continue
		}
		if n.Params["progressToken"] != token {
			t.Errorf("progress for token %v, want %v: %s", n.Params["progressToken"], token, n)
		}
		if n.subID() != nil {
			t.Errorf("progress carries a subscriptionId (NOT-3): %s", n)
		}
		got = append(got, n.Params["progress"].(float64))
		if n.Params["total"] != 3.0 {
			t.Errorf("total = %v, want 3", n.Params["total"])
		}
	}
	return got
}

// TestPROG3_ProgressIncreasing: with a progressToken (string or integer)
// the request's own stream carries notifications/progress with that token,
// strictly increasing; without one, none are sent.
func TestPROG3_ProgressIncreasing(t *testing.T) {
	s := New(testInfo, nil)
	progressTool(t, s, nil)
	forEachTransportN(t, s, func(t *testing.T, call collector) {
		for i, token := range []any{"tok-1", 9.0} {
			_, notes, m := call(i, "tools/call", obj{"_meta": reqMeta(nil, obj{"progressToken": token}), "name": "work"})
			if got := progressOf(t, notes, token); !reflect.DeepEqual(got, []float64{1, 2, 3}) {
				t.Errorf("token %v: progress %v, want [1 2 3]", token, got)
			}
			if m.text() != "1,2,3" {
				t.Errorf("Progress reported sent %q, want 1,2,3", m.text())
			}
		}
		_, notes, m := call("none", "tools/call", params(obj{"name": "work"}))
		if len(notes) != 0 || m.text() != "" {
			t.Errorf("without progressToken: notes %v, Progress sent %q", notes, m.text())
		}
	})
}

// TestPROG4_NoProgressAfterResponse: once the response is written,
// Progress sends nothing more for the request.
func TestPROG4_NoProgressAfterResponse(t *testing.T) {
	s := New(testInfo, nil)
	done := make(chan *ToolRequest, 1)
	progressTool(t, s, done)

	c := startStdio(t, s)
	c.send(request(1, "tools/call", obj{"_meta": reqMeta(nil, obj{"progressToken": "late"}), "name": "work"}))
	m, _ := c.response("1")
	wantResult(t, m)
	req := <-done
	if req.Progress(100, 0, "too late") {
		t.Errorf("Progress after the response reported success")
	}
	for _, n := range c.expectQuiet("sentinel") {
		t.Errorf("message after the final response: %s", n)
	}
	c.finish()

	h := startHTTP(t, s, nil)
	st := h.open(request(2, "tools/call", obj{"_meta": reqMeta(nil, obj{"progressToken": "late"}), "name": "work"}), nil)
	var last msg
	for !last.isResponse() {
		last = st.next()
	}
	req = <-done
	if req.Progress(100, 0, "too late") {
		t.Errorf("Progress after the response reported success (HTTP)")
	}
	st.ended()
}

// TestSSE7_JSONOrSSE: a request that can produce no notification gets one
// application/json response; one with a progressToken from a client that
// accepts text/event-stream gets an SSE stream (with X-Accel-Buffering: no,
// SSE-4) whose last event is the response; a client that accepts only JSON
// gets JSON and no progress.
func TestSSE7_JSONOrSSE(t *testing.T) {
	s := New(testInfo, nil)
	progressTool(t, s, nil)
	h := startHTTP(t, s, nil)
	withToken := obj{"_meta": reqMeta(nil, obj{"progressToken": 1}), "name": "work"}

	resp, msgs := h.exchange(request(1, "tools/call", params(obj{"name": "work"})), nil)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || len(msgs) != 1 {
		t.Errorf("without token: %s with %d messages, want one application/json message", ct, len(msgs))
	}

	resp, msgs = h.exchange(request(2, "tools/call", withToken), nil)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("with token: Content-Type %s", ct)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Errorf("SSE response: status %d, X-Accel-Buffering %q", resp.StatusCode, resp.Header.Get("X-Accel-Buffering"))
	}
	if len(msgs) != 4 || !msgs[3].idIs("2") || progressOf(t, msgs[:3], 1.0) == nil {
		t.Errorf("SSE stream: %v, want 3 progress notifications then the response", msgs)
	}

	resp, msgs = h.exchange(request(3, "tools/call", withToken), map[string]string{"Accept": "application/json"})
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || len(msgs) != 1 || msgs[0].text() != "" {
		t.Errorf("JSON-only client: %s %v, want one JSON response and no progress sent", ct, msgs)
	}
}

// TestPROG5_ConcurrentSSEStreams: two requests in flight at once each get
// their own stream carrying only their own progress.
func TestPROG5_ConcurrentSSEStreams(t *testing.T) {
	s := New(testInfo, nil)
	release := make(chan struct{})
	toolFunc(t, s, "pair", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		req.Progress(1, 0, "started")
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		req.Progress(2, 0, "finishing")
		return TextResult("done"), nil
	})
	h := startHTTP(t, s, nil)
	a := h.open(request("a", "tools/call", obj{"_meta": reqMeta(nil, obj{"progressToken": "A"}), "name": "pair"}), nil)
	b := h.open(request("b", "tools/call", obj{"_meta": reqMeta(nil, obj{"progressToken": "B"}), "name": "pair"}), nil)
	// Both handlers are running now: each stream has its first progress.
	for _, x := range []struct {
		st    *stream
		token string
	}{{a, "A"}, {b, "B"}} {
		if m := x.st.next(); m.Method != "notifications/progress" || m.Params["progressToken"] != x.token {
			t.Fatalf("stream %s: first message %s", x.token, m)
		}
	}
	close(release)
	for _, x := range []struct {
		st    *stream
		token string
	}{{a, "A"}, {b, "B"}} {
		m := x.st.next()
		if m.Method != "notifications/progress" || m.Params["progressToken"] != x.token || m.Params["progress"] != 2.0 {
			t.Errorf("stream %s: second message %s", x.token, m)
		}
		if m = x.st.next(); !m.idIs(mustJSON(strings.ToLower(x.token))) || m.text() != "done" {
			t.Errorf("stream %s: final %s", x.token, m)
		}
		x.st.ended()
	}
}

// logTool registers "log", which logs at debug, info and error and
// reports which messages were sent.
func logTool(t *testing.T, s *Server) {
	t.Helper()
	toolFunc(t, s, "log", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		var sent []string
		for _, l := range []mcp.LoggingLevel{mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelError} {
			if req.Log(l, "db", obj{"level": string(l)}) {
				sent = append(sent, string(l))
			}
		}
		return TextResult(strings.Join(sent, ",")), nil
	})
}

// TestLOG3_LogOnlyWithLogLevel: notifications/message go out only when the
// server declares logging (Options.Logging) and the request set a logLevel,
// at or above that level, on the request's own stream.
func TestLOG3_LogOnlyWithLogLevel(t *testing.T) {
	for _, logging := range []bool{true, false} {
		t.Run(fmt.Sprintf("Logging=%v", logging), func(t *testing.T) {
			s := New(testInfo, &Options{Logging: logging})
			logTool(t, s)
			forEachTransportN(t, s, func(t *testing.T, call collector) {
				_, notes, m := call(1, "tools/call", params(obj{"name": "log"}))
				if len(notes) != 0 || m.text() != "" {
					t.Errorf("without logLevel: %v sent, text %q (LOG-3)", notes, m.text())
				}
				_, notes, m = call(2, "tools/call", obj{"_meta": reqMeta(nil, obj{"io.modelcontextprotocol/logLevel": "info"}), "name": "log"})
				var levels []string
				for _, n := range notes {
					if n.Method != "notifications/message" || n.Params["logger"] != "db" || dig(n.Params, "data", "level") != n.Params["level"] || n.subID() != nil {
						t.Errorf("bad log notification %s", n)
					}
					levels = append(levels, fmt.Sprint(n.Params["level"]))
				}
				want := []string{"info", "error"}
				if !logging {
					want = nil
				}
				if !reflect.DeepEqual(levels, want) || m.text() != strings.Join(want, ",") {
					t.Errorf("logLevel info: levels %v (text %q), want %v", levels, m.text(), want)
				}
			})
		})
	}
}
