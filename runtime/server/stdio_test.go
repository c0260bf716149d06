package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// serveLines runs ServeStdio over input and returns what it wrote, line
// by line; ServeStdio must return nil at the end of input (STDIO-8).
func serveLines(t *testing.T, s *Server, input string) []msg {
	t.Helper()
	var out bytes.Buffer
	if err := s.ServeStdio(context.Background(), strings.NewReader(input), &out); err != nil {
		t.Fatalf("ServeStdio = %v, want nil at EOF", err)
	}
	var msgs []msg
	if out.Len() == 0 {
		return nil
	}
	if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		t.Errorf("output does not end with a newline: %q", out.String())
	}
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		m := parseMsg(line)
		if m.bad != "" {
			t.Fatalf("line is not a JSON-RPC message (%s): %q", m.bad, line)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func byID(msgs []msg) map[string]msg {
	out := map[string]msg{}
	for _, m := range msgs {
		if m.isResponse() {
			out[string(m.ID)] = m
		}
	}
	return out
}

// TestSTDIO1_OneMessagePerLine: one message per line in and out; a
// newline inside a string stays escaped; blank lines are skipped; a
// trailing \r is accepted (STDIO-10); the last line needs no newline.
func TestSTDIO1_OneMessagePerLine(t *testing.T) {
	s := newServer(t, nil)
	input := request(1, "tools/call", params(obj{"name": "echo", "arguments": obj{"text": "line1\nline2\r\n"}})) + "\n" +
		"\n   \n" +
		request(2, "tools/list", params(nil)) + "\r\n" +
		request(3, "server/discover", params(nil)) // no final newline
	msgs := serveLines(t, s, input)
	if len(msgs) != 3 {
		t.Fatalf("%d lines, want 3: %v", len(msgs), msgs)
	}
	got := byID(msgs)
	if got["1"].text() != "line1\nline2\r\n" {
		t.Errorf("echo = %q", got["1"].text())
	}
	for _, id := range []string{"2", "3"} {
		if got[id].Result == nil {
			t.Errorf("request %s: %v", id, got[id])
		}
	}
}

// TestSTDIO2_OnlyProtocolMessages: diagnostics go to Options.Logger,
// never to the protocol stream, which carries only JSON-RPC.
func TestSTDIO2_OnlyProtocolMessages(t *testing.T) {
	var logs bytes.Buffer
	s := newServer(t, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	toolFunc(t, s, "boom", func(context.Context, *ToolRequest) (*mcp.CallToolResult, error) { panic("kaboom") })
	toolFunc(t, s, "fail", func(context.Context, *ToolRequest) (*mcp.CallToolResult, error) {
		return nil, context.DeadlineExceeded
	})
	input := strings.Join([]string{
		request(1, "tools/call", params(obj{"name": "boom"})),
		request(2, "tools/call", params(obj{"name": "fail"})),
		`{"jsonrpc":"2.0","id":3,"result":{}}`, // a response sent to the server (MSG-4): logged, not answered
		notification("notifications/initialized", nil),
		request(4, "server/discover", params(nil)),
	}, "\n") + "\n"
	msgs := serveLines(t, s, input)
	got := byID(msgs)
	if len(msgs) != 3 || got["1"].Error == nil || got["2"].Error == nil || got["4"].Result == nil {
		t.Errorf("output %v, want answers to 1, 2 and 4 only", msgs)
	}
	for _, id := range []string{"1", "2"} {
		if e := got[id].Error; e == nil || e.Code != -32603 || strings.Contains(e.Message, "kaboom") || strings.Contains(e.Message, "deadline") {
			t.Errorf("request %s: %v, want a bare -32603", id, got[id])
		}
	}
	if !strings.Contains(logs.String(), "kaboom") {
		t.Errorf("the panic was not logged to Options.Logger: %q", logs.String())
	}
}

// TestSTL2_ConcurrentRequests: a slow request does not hold up a fast
// one on the same stdio connection.
func TestSTL2_ConcurrentRequests(t *testing.T) {
	s := newServer(t, nil)
	started := make(chan context.Context, 1)
	release := make(chan struct{})
	blockTool(t, s, started, release, false)
	c := startStdio(t, s)
	c.send(request("slow", "tools/call", params(obj{"name": "block"})))
	<-started
	for i := range 5 {
		if m := c.roundTrip(i, "tools/call", params(obj{"name": "echo", "arguments": obj{"text": "fast"}})); m.text() != "fast" {
			t.Fatalf("fast call %d: %s", i, m)
		}
	}
	close(release)
	if m, _ := c.response(`"slow"`); m.text() != "finished" {
		t.Errorf("slow call: %s", m)
	}
	c.finish()
}

// TestSTDIO8_CleanExitOnEOF: closing stdin makes ServeStdio return nil
// after answering what was read.
func TestSTDIO8_CleanExitOnEOF(t *testing.T) {
	s := newServer(t, nil)
	var lines []string
	for i := range 20 {
		lines = append(lines, request(i, "tools/call", params(obj{"name": "echo", "arguments": obj{"text": "x"}})))
	}
	msgs := serveLines(t, s, strings.Join(lines, "\n")+"\n")
	if len(byID(msgs)) != 20 {
		t.Errorf("%d answers, want 20", len(byID(msgs)))
	}
	// And with nothing at all.
	if msgs := serveLines(t, s, ""); len(msgs) != 0 {
		t.Errorf("empty input: %v", msgs)
	}
	// Through a pipe, closed by the client.
	c := startStdio(t, s)
	wantResult(t, c.roundTrip(1, "server/discover", params(nil)))
	c.finish()
}

// TestSTDIO_ContextEnds: ServeStdio returns the context's error when its
// context ends first.
func TestSTDIO_ContextEnds(t *testing.T) {
	s := newServer(t, nil)
	c := startStdio(t, s)
	wantResult(t, c.roundTrip(1, "server/discover", params(nil)))
	c.cancel()
	select {
	case err := <-c.done:
		if err != context.Canceled {
			t.Errorf("ServeStdio = %v, want context.Canceled", err)
		}
		c.done <- nil
	case <-timeAfter():
		t.Fatalf("ServeStdio did not return when its context ended")
	}
}

// TestMSG7_MalformedLineKeepsServing: a line that is not JSON is -32700
// without an id, an invalid message -32600 (with its id when readable),
// and the server keeps serving.
func TestMSG7_MalformedLineKeepsServing(t *testing.T) {
	s := newServer(t, nil)
	c := startStdio(t, s)
	for _, tc := range []struct {
		line string
		code int
		id   string // "" = no id
	}{
		{`{not json`, -32700, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"x"`, -32700, "1"}, // truncated after a readable id
		{`[1,2]`, -32600, ""},
		{`{"jsonrpc":"2.0","id":"a","method":"server/discover","params":5}`, -32600, `"a"`},
		{`{"jsonrpc":"2.0","id":"b"}`, -32600, `"b"`},
		{`{"jsonrpc":"2.0","id":"c","method":"server/discover","method":"x","params":{}}`, -32600, `"c"`},
		{"\xff\xfe", -32700, ""},
		{`null`, -32600, ""},
	} {
		c.send(tc.line)
		m := c.next()
		if m.Error == nil || m.Error.Code != tc.code || string(m.ID) != tc.id {
			t.Errorf("%q: %s, want error %d with id %q", tc.line, m, tc.code, tc.id)
		}
		wantResult(t, c.roundTrip("alive", "server/discover", params(nil)))
	}
	c.finish()
}

// TestID2_DuplicateInFlightId: an id still in flight cannot be reused
// (ID-2); once answered it can, at once.
func TestID2_DuplicateInFlightId(t *testing.T) {
	s := newServer(t, nil)
	started := make(chan context.Context, 1)
	release := make(chan struct{})
	blockTool(t, s, started, release, false)
	c := startStdio(t, s)
	c.send(request(1, "tools/call", params(obj{"name": "block"})))
	<-started
	wantError(t, c.roundTrip(1, "server/discover", params(nil)), -32600)
	// The same digits as a string are another id (ID-5).
	wantResult(t, c.roundTrip("1", "server/discover", params(nil)))
	close(release)
	if m, _ := c.response("1"); m.text() != "finished" {
		t.Fatalf("request 1: %s", m)
	}
	for range 50 {
		wantResult(t, c.roundTrip(1, "server/discover", params(nil)))
	}
	c.finish()
}

// TestSTDIO1_OversizedLine: a line over MaxMessageBytes is refused with
// -32600 and the next line is served.
func TestSTDIO1_OversizedLine(t *testing.T) {
	s := newServer(t, nil)
	huge := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` +
		strings.Repeat("a", jsonrpc.MaxMessageBytes) + `"}}}`
	msgs := serveLines(t, s, huge+"\n"+request(2, "server/discover", params(nil))+"\n")
	if len(msgs) != 2 {
		t.Fatalf("%d answers: %v", len(msgs), msgs)
	}
	got := byID(msgs)
	if got["2"].Result == nil {
		t.Errorf("the line after the huge one was not served: %v", msgs)
	}
	var refused bool
	for _, m := range msgs {
		refused = refused || m.Error != nil && m.Error.Code == -32600
	}
	if !refused {
		t.Errorf("the huge line was not refused with -32600: %v", msgs)
	}
}
