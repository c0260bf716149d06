package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A response stream that ends before the response surfaces ErrStreamBroken;
// the request is lost and the same call can simply be made again (SSE-6).
func TestSSE6_BrokenResponseStream(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(w http.ResponseWriter, m msg)
	}{
		{"stream ends", func(w http.ResponseWriter, m msg) {
			s := startSSE(w)
			s.event(notification("notifications/progress", obj{"progressToken": "p", "progress": 1}))
		}},
		{"connection dropped mid-event", func(w http.ResponseWriter, m msg) {
			s := startSSE(w)
			s.event(notification("notifications/progress", obj{"progressToken": "p", "progress": 1}))
			_, _ = w.Write([]byte(`data: {"jsonrpc":"2.0","id":`))
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			_ = conn.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newHTTPFake(t)
			f.setTools(toolDef("t", nil))
			var calls atomic.Int32
			f.on(mcp.MethodCallTool, func(w http.ResponseWriter, r *http.Request, m msg) {
				if calls.Add(1) == 1 {
					tc.fail(w, m)
					return
				}
				writeJSON(w, 200, result(m.ID, textResult("second time lucky")))
			})
			c := f.connect(t, nil)
			_, err := c.CallTool(context.Background(), "t", nil)
			if !errors.Is(err, client.ErrStreamBroken) {
				t.Fatalf("err = %v, want ErrStreamBroken", err)
			}
			r, err := c.CallTool(context.Background(), "t", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(t, r); got != "second time lucky" {
				t.Errorf("result %q", got)
			}
			reqs := f.requests(mcp.MethodCallTool)
			if reqs[0].idKey() == reqs[1].idKey() {
				t.Errorf("the new attempt reused id %s", reqs[0].idKey())
			}
		})
	}
}

// blockUntilCancelled answers nothing and reports when the client goes away.
func blockUntilCancelled(gone chan<- struct{}) func(http.ResponseWriter, *http.Request, msg) {
	return func(w http.ResponseWriter, r *http.Request, m msg) {
		<-r.Context().Done()
		gone <- struct{}{}
	}
}

// A timed-out HTTP request is cancelled by closing its stream, which the
// server sees (CAN-8, HCAN-2): per call (WithTimeout) and per client
// (Options.Timeout).
func TestCAN8_TimeoutsHTTP(t *testing.T) {
	f := newHTTPFake(t)
	gone := make(chan struct{}, 4)
	f.on(mcp.MethodListPrompts, blockUntilCancelled(gone))
	c := f.connect(t, &client.Options{Timeout: time.Minute})
	start := time.Now()
	_, err := c.ListPromptsPage(context.Background(), nil, client.WithTimeout(100*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if time.Since(start) > waitFor {
		t.Errorf("WithTimeout did not bound the call")
	}
	within(t, "the server seeing the cancellation", func() struct{} { <-gone; return struct{}{} })

	c2 := f.connect(t, &client.Options{Timeout: 100 * time.Millisecond})
	if _, err := c2.ListPromptsPage(context.Background(), nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	within(t, "the server seeing the cancellation", func() struct{} { <-gone; return struct{}{} })

	// The caller's own context cancels too.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := c.ListPromptsPage(ctx, nil); errc <- err }()
	eventually(t, "the request to arrive", func() bool { return len(f.requests(mcp.MethodListPrompts)) == 3 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	within(t, "the server seeing the cancellation", func() struct{} { <-gone; return struct{}{} })
}

// On stdio a timed-out request is cancelled with notifications/cancelled
// naming it (STDIO-6, CAN-1); a response that arrives afterwards is
// ignored (CAN-5) and the client stays usable.
func TestCAN5_TimeoutCancelsAndLateResponseIgnoredStdio(t *testing.T) {
	c, f := connectStdio(t, &client.Options{Timeout: 150 * time.Millisecond})
	errc := make(chan error, 1)
	go func() { _, err := c.ListPromptsPage(context.Background(), nil); errc <- err }()
	req := f.recvMethod(mcp.MethodListPrompts)
	cancel := f.recv()
	if cancel.Method != mcp.NotificationCancelled || cancel.ID != nil {
		t.Fatalf("got %s, want notifications/cancelled", cancel.raw)
	}
	if id, _ := cancel.param("requestId"); mustJSON(id) != req.idKey() {
		t.Errorf("cancelled %v, want %s", id, req.idKey())
	}
	if reason, _ := cancel.param("reason"); reason == nil || reason == "" {
		t.Errorf("no reason: %s", cancel.raw)
	}
	if err := <-errc; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	// The late answer, then the next call's.
	go func() {
		r, err := c.ListPromptsPage(context.Background(), nil, client.WithTimeout(waitFor))
		if err == nil && (len(r.Prompts) != 1 || r.Prompts[0].Name != "fresh") {
			err = fmt.Errorf("got %+v, want the fresh answer", r.Prompts)
		}
		errc <- err
	}()
	next := f.recvMethod(mcp.MethodListPrompts)
	f.send(
		result(req.ID, obj{"resultType": "complete", "prompts": []obj{{"name": "late"}}, "ttlMs": 60000, "cacheScope": "public"}),
		result(next.ID, obj{"resultType": "complete", "prompts": []obj{{"name": "fresh"}}, "ttlMs": 0, "cacheScope": "public"}),
	)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// Lines that are not JSON-RPC messages, responses nobody waits for and
// requests from the server (MSG-3) are logged and skipped; the client
// stays usable. CRLF line ends are accepted (STDIO-10).
func TestSTDIO1_GarbageLinesSkipped(t *testing.T) {
	logs := &logRecorder{}
	c, f := connectStdio(t, &client.Options{Logger: slog.New(logs)})
	for i := range 2 {
		errc := make(chan error, 1)
		go func() { _, err := c.ListPromptsPage(context.Background(), nil); errc <- err }()
		req := f.recvMethod(mcp.MethodListPrompts)
		f.send(
			"this is not JSON",
			`{"jsonrpc":"2.0"}`,
			`[1,2,3]`,
			`{"jsonrpc":"1.0","id":`+req.idKey()+`,"result":{}}`,
			`{"jsonrpc":"2.0","id":"unknown","result":{"resultType":"complete"}}`,
			`{"jsonrpc":"2.0","id":99,"method":"sampling/createMessage","params":{}}`,
			"",
			"   ",
			result(req.ID, obj{"resultType": "complete", "prompts": []obj{}, "ttlMs": 0, "cacheScope": "public"})+"\r",
		)
		if err := within(t, "the call", func() error { return <-errc }); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	warned := 0
	for _, r := range logs.records() {
		if r.level == slog.LevelWarn {
			warned++
		}
	}
	if warned < 2*4 {
		t.Errorf("%d warnings for 8 bad lines: %+v", warned, logs.records())
	}
}

// A message larger than MaxMessageBytes fails the request it answers with
// an error saying so; the client stays usable.
func TestSTDIO1_OversizedMessage(t *testing.T) {
	huge := strings.Repeat("x", jsonrpc.MaxMessageBytes)
	t.Run("stdio", func(t *testing.T) {
		c, f := connectStdio(t, nil)
		errc := make(chan error, 1)
		go func() { _, err := c.ListPromptsPage(context.Background(), nil); errc <- err }()
		req := f.recvMethod(mcp.MethodListPrompts)
		f.send(`{"jsonrpc":"2.0","id":` + req.idKey() + `,"result":{"resultType":"complete","prompts":[{"name":"` + huge + `"}],"ttlMs":0,"cacheScope":"public"}}`)
		err := within(t, "the call", func() error { return <-errc })
		if err == nil || !strings.Contains(err.Error(), "MaxMessageBytes") {
			t.Fatalf("err = %v, want one about the size", err)
		}
		go func() { _, err := c.ListPromptsPage(context.Background(), nil); errc <- err }()
		req = f.recvMethod(mcp.MethodListPrompts)
		f.send(result(req.ID, obj{"resultType": "complete", "prompts": []obj{}, "ttlMs": 0, "cacheScope": "public"}))
		if err := within(t, "the call", func() error { return <-errc }); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("http", func(t *testing.T) {
		f := newHTTPFake(t)
		var calls atomic.Int32
		f.on(mcp.MethodListPrompts, func(w http.ResponseWriter, r *http.Request, m msg) {
			body := `{"jsonrpc":"2.0","id":` + m.idKey() + `,"result":{"resultType":"complete","prompts":[{"name":"` + huge + `"}],"ttlMs":0,"cacheScope":"public"}}`
			switch calls.Add(1) {
			case 1:
				writeJSON(w, 200, body)
			case 2:
				startSSE(w).event(body)
			default:
				writeJSON(w, 200, result(m.ID, obj{"resultType": "complete", "prompts": []obj{}, "ttlMs": 0, "cacheScope": "public"}))
			}
		})
		c := f.connect(t, nil)
		for i := range 2 {
			_, err := c.ListPromptsPage(context.Background(), nil)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprint(jsonrpc.MaxMessageBytes)) {
				t.Errorf("call %d: err = %v, want one about the size", i, err)
			}
		}
		if _, err := c.ListPromptsPage(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	})
}

// A server process that exits fails the calls in flight, and later ones,
// with ErrServerGone (STDIO-9).
func TestSTDIO9_ServerGone(t *testing.T) {
	c, f := connectStdio(t, nil)
	errc := make(chan error, 2)
	for range 2 {
		go func() { _, err := c.ListPromptsPage(context.Background(), nil); errc <- err }()
	}
	f.recvMethod(mcp.MethodListPrompts)
	f.recvMethod(mcp.MethodListPrompts)
	f.close()
	for range 2 {
		if err := within(t, "the call", func() error { return <-errc }); !errors.Is(err, client.ErrServerGone) {
			t.Errorf("in-flight call: err = %v, want ErrServerGone", err)
		}
	}
	if _, err := c.ListPromptsPage(context.Background(), nil); !errors.Is(err, client.ErrServerGone) {
		t.Errorf("later call: err = %v, want ErrServerGone", err)
	}
}

// Progress notifications on stdio are routed to the request by token
// (STDIO-5); unknown tokens are ignored.
func TestSTDIO5_ProgressRoutedByToken(t *testing.T) {
	c, f := connectStdio(t, nil)
	var mu sync.Mutex
	got := map[string][]float64{}
	call := func(name string) chan error {
		errc := make(chan error, 1)
		go func() {
			_, err := c.CallTool(context.Background(), name, nil, client.WithProgress(func(p *mcp.ProgressNotificationParams) {
				mu.Lock()
				got[name] = append(got[name], p.Progress)
				mu.Unlock()
			}))
			errc <- err
		}()
		return errc
	}
	ea := call("a")
	ra := f.recvMethod(mcp.MethodCallTool)
	eb := call("b")
	rb := f.recvMethod(mcp.MethodCallTool)
	ta, _ := ra.meta("progressToken")
	tb, _ := rb.meta("progressToken")
	if ta == nil || tb == nil || ta == tb {
		t.Fatalf("progress tokens %v and %v", ta, tb)
	}
	progress := func(token any, n float64) string {
		return notification("notifications/progress", obj{"progressToken": token, "progress": n})
	}
	f.send(progress(ta, 1), progress(tb, 10), progress("nobody", 5), progress(ta, 2),
		result(ra.ID, textResult("a")), progress(tb, 20), result(rb.ID, textResult("b")))
	for _, errc := range []chan error{ea, eb} {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if mustJSON(got) != `{"a":[1,2],"b":[10,20]}` {
		t.Errorf("progress %v", got)
	}
}

// Close shuts the server down by closing its stdin (STDIO-7).
func TestSTDIO7_CloseEndsServerStdin(t *testing.T) {
	c, f := connectStdio(t, nil)
	if err := within(t, "Close", c.Close); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case <-f.eof:
	case <-time.After(waitFor):
		t.Error("the server's stdin was not closed")
	}
	if _, err := c.ListPromptsPage(context.Background(), nil); !errors.Is(err, client.ErrServerGone) {
		t.Errorf("call after Close: %v, want ErrServerGone", err)
	}
}

// What the client writes to a stdio server is requests and
// notifications/cancelled, one JSON object per line, nothing else
// (MSG-4, STDIO-2), through a session of calls, retries, a timeout and a
// listen.
func TestMSG4_StdioClientWritesOnlyRequestsAndCancellations(t *testing.T) {
	c, f := connectStdio(t, &client.Options{Elicit: acceptElicit})
	ctx := context.Background()
	errc := make(chan error, 1)

	go func() { _, err := c.CallTool(ctx, "ask", wire.Raw(`{"q":"line\nbreak"}`)); errc <- err }()
	m := f.recvMethod(mcp.MethodCallTool)
	f.send(result(m.ID, obj{"resultType": "input_required", "requestState": "s", "inputRequests": obj{"x": elicitInput}}))
	m = f.recvMethod(mcp.MethodCallTool)
	f.send(result(m.ID, textResult("ok")))
	if err := <-errc; err != nil {
		t.Fatal(err)
	}

	go func() { _, err := c.ListPromptsPage(ctx, nil, client.WithTimeout(50*time.Millisecond)); errc <- err }()
	f.recvMethod(mcp.MethodListPrompts)
	f.recvMethod(mcp.NotificationCancelled)
	<-errc

	lctx, cancel := context.WithCancel(ctx)
	notes, _ := openStdioListen(t, lctx, c, f)
	cancel()
	f.recvMethod(mcp.NotificationCancelled)
	listenEnd(t, notes)

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	<-f.eof
	ids := map[string]bool{}
	for _, m := range f.received() {
		if m.JSONRPC != "2.0" || m.Result != nil || m.Error != nil {
			t.Errorf("not a request or notification: %s", m.raw)
		}
		switch {
		case m.ID != nil && m.Method != "":
			if ids[m.idKey()] {
				t.Errorf("id %s used twice", m.idKey())
			}
			ids[m.idKey()] = true
		case m.ID == nil && m.Method == mcp.NotificationCancelled:
		default:
			t.Errorf("the client wrote %s", m.raw)
		}
	}
	if len(ids) != 5 {
		t.Errorf("%d requests, want 5 (probe, 2 attempts, list, listen)", len(ids))
	}
}

// Arguments are passed verbatim, but a stdio message is one line
// (STDIO-1): pretty-printed arguments are sent compacted. Arguments that
// are not JSON fail locally instead of making the server answer a message
// it cannot attribute.
func TestSTDIO1_RequestsStayOnOneLine(t *testing.T) {
	c, f := connectStdio(t, &client.Options{Timeout: waitFor})
	errc := make(chan error, 1)
	pretty := wire.Raw("{\n  \"text\": \"a\\nb\",\r\n  \"n\": [1,\n 2]\n}\n")
	go func() { _, err := c.CallTool(context.Background(), "echo", pretty); errc <- err }()
	m := f.recv()
	if m.Method != mcp.MethodCallTool {
		t.Fatalf("the server read %q, want the tools/call request on one line", m.raw)
	}
	if args, _ := m.param("arguments"); mustJSON(args) != `{"n":[1,2],"text":"a\nb"}` {
		t.Errorf("arguments %s", mustJSON(args))
	}
	f.send(result(m.ID, textResult("ok")))
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	for _, bad := range []wire.Raw{wire.Raw(`{"a":`), wire.Raw("{\"a\":\n}"), wire.Raw(`{"a":1} {}`)} {
		err := within(t, "CallTool", func() error { _, err := c.CallTool(context.Background(), "echo", bad); return err })
		if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
			t.Errorf("arguments %q: err = %v, want a local error", bad, err)
		}
	}
	// Nothing reached the server: what it reads next is the next call.
	go func() { _, err := c.ListPromptsPage(context.Background(), nil); errc <- err }()
	if m := f.recv(); m.Method != mcp.MethodListPrompts {
		t.Errorf("the server read %q", m.raw)
	} else {
		f.send(result(m.ID, obj{"resultType": "complete", "prompts": []obj{}, "ttlMs": 0, "cacheScope": "public"}))
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// Over HTTP too, a request that is not JSON is refused before it is sent
// (HTTP-5: the body is one JSON-RPC request).
func TestHTTP5_InvalidArgumentsFailLocally(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("echo", nil))
	c := f.connect(t, nil)
	toolNames(t, c)
	_, err := c.CallTool(context.Background(), "echo", wire.Raw(`{"a":`))
	if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("err = %v, want a local error", err)
	}
	_, err = c.Discover(context.Background(), client.WithMeta("com.example/x", wire.Raw(`{oops}`)))
	if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("err = %v, want a local error", err)
	}
	if n := len(f.requests(mcp.MethodCallTool)) + len(f.requests(mcp.MethodDiscover)); n != 0 {
		t.Errorf("%d invalid requests were sent", n)
	}
}

// Responses on stdio are matched to requests by id, JSON type included,
// whatever their order (STDIO-5, ID-5).
func TestSTDIO5_ResponsesCorrelateByID(t *testing.T) {
	c, f := connectStdio(t, &client.Options{Timeout: waitFor})
	type res struct {
		name string
		err  error
	}
	call := func(name string) chan res {
		ch := make(chan res, 1)
		go func() {
			r, err := c.CallTool(context.Background(), name, nil)
			if err != nil {
				ch <- res{err: err}
				return
			}
			ch <- res{name: r.Content[0].TextContent.Text}
		}()
		return ch
	}
	ca := call("a")
	ra := f.recvMethod(mcp.MethodCallTool)
	cb := call("b")
	rb := f.recvMethod(mcp.MethodCallTool)
	if ra.idKey() == rb.idKey() {
		t.Fatalf("two requests in flight share id %s", ra.idKey())
	}
	asString, _ := json.Marshal(string(rb.ID))
	f.send(
		result(json.RawMessage(asString), textResult("wrong: string id")),
		result(rb.ID, textResult("b")),
		result(ra.ID, textResult("a")),
	)
	if r := <-ca; r.err != nil || r.name != "a" {
		t.Errorf("call a got %+v", r)
	}
	if r := <-cb; r.err != nil || r.name != "b" {
		t.Errorf("call b got %+v", r)
	}
}

// Answers that are not JSON-RPC responses are *HTTPError values with the
// status; JSON-RPC errors keep their code whatever the status.
func TestHTTP8_NonJSONRPCAnswers(t *testing.T) {
	f := newHTTPFake(t)
	status := map[string]int{mcp.MethodListPrompts: 403, mcp.MethodListResources: 502, mcp.MethodListResourceTemplates: 405}
	for method, code := range status {
		f.on(method, func(w http.ResponseWriter, r *http.Request, m msg) {
			http.Error(w, "go away", code)
		})
	}
	f.on(mcp.MethodComplete, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 500, rpcError(m.ID, -32603, "Internal error", nil))
	})
	c := f.connect(t, nil)
	ctx := context.Background()
	for method, err := range map[string]error{
		mcp.MethodListPrompts:           func() error { _, err := c.ListPromptsPage(ctx, nil); return err }(),
		mcp.MethodListResources:         func() error { _, err := c.ListResourcesPage(ctx, nil); return err }(),
		mcp.MethodListResourceTemplates: func() error { _, err := c.ListResourceTemplatesPage(ctx, nil); return err }(),
	} {
		var he *client.HTTPError
		if !errors.As(err, &he) || he.Status != status[method] || !strings.Contains(err.Error(), "go away") {
			t.Errorf("%s: err = %v, want an *HTTPError %d", method, err, status[method])
		}
	}
	_, err := c.Complete(ctx, &mcp.CompleteRequestParams{
		Ref:      mcp.CompleteRequestParamsRef{PromptReference: &mcp.PromptReference{Name: "p"}},
		Argument: mcp.CompleteRequestParamsArgument{Name: "a", Value: "x"},
	})
	if !isRPCError(err, wire.CodeInternalError) {
		t.Errorf("completion/complete: err = %v, want -32603", err)
	}
}

// Members a result type does not declare are kept (RT-8).
func TestRT8_UnknownResultMembersKept(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("t", nil))
	rounds(f, mcp.MethodCallTool, fixed(obj{"resultType": "complete", "content": []obj{}, "structuredContent": nil,
		"com.example/extra": obj{"k": []int{1}}}))
	c := f.connect(t, nil)
	r, err := c.CallTool(context.Background(), "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := r.Extra.Get("com.example/extra"); !ok || string(v) != `{"k":[1]}` {
		t.Errorf("extra member %q, %v", v, ok)
	}
	if string(r.StructuredContent) != "null" {
		t.Errorf("structuredContent %q, want null kept", r.StructuredContent)
	}
}
