package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A dual-era client (the default) that finds a legacy server opens a
// 2025-11-25 session on the same process: initialize with its newest
// legacy version, its capabilities from the callbacks and its identity
// (LLIFE-1, LVER-1), then notifications/initialized (LLIFE-3), after any
// answer to the probe that is not modern, or none (COMPAT-4, COMPAT-5).
func TestCOMPAT4_DualEraOpensLegacySessionStdio(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(f *stdioFake, probe msg)
		silent bool
	}{
		{"-32601", func(f *stdioFake, p msg) { f.send(rpcError(p.ID, -32601, "Method not found", nil)) }, false},
		{"-32602", func(f *stdioFake, p msg) { f.send(rpcError(p.ID, -32602, "Server not initialized", nil)) }, false},
		{"a result that is no DiscoverResult", func(f *stdioFake, p msg) { f.send(result(p.ID, obj{})) }, false},
		{"silence", func(f *stdioFake, p msg) {}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, cmd := startStdio(t)
			t.Cleanup(f.close)
			opts := &client.Options{
				Elicit: func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) { return nil, nil },
				Sample: func(context.Context, *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
					return nil, nil
				},
				ProbeTimeout: waitFor,
			}
			if tc.silent {
				opts.ProbeTimeout = 300 * time.Millisecond
			}
			done := make(chan error, 1)
			var c *client.Client
			go func() {
				var err error
				c, err = client.ConnectCommand(context.Background(), cmd, clientInfo, opts)
				done <- err
			}()
			probe := f.recv()
			if probe.Method != mcp.MethodDiscover {
				t.Fatalf("first message %s, want the probe", probe.raw)
			}
			tc.answer(f, probe)
			init := f.recvMethod("initialize")
			if init.ID == nil {
				t.Fatalf("initialize is not a request: %s", init.raw)
			}
			if v, _ := init.param("protocolVersion"); v != "2025-11-25" {
				t.Errorf("initialize offers %v, want 2025-11-25", v)
			}
			if info, _ := init.param("clientInfo"); !jsonEq(info, obj{"name": clientInfo.Name, "version": clientInfo.Version}) {
				t.Errorf("clientInfo %s", mustJSON(info))
			}
			if caps, _ := init.param("capabilities"); !jsonEq(caps, obj{"elicitation": obj{"form": obj{}}, "sampling": obj{}}) {
				t.Errorf("capabilities %s", mustJSON(caps))
			}
			if hasModernMeta(init) {
				t.Errorf("initialize carries 2026-07-28 _meta: %s", init.raw)
			}
			f.send(result(init.ID, legacyInit("2025-11-25", nil)))
			if n := f.recv(); n.Method != "notifications/initialized" || n.ID != nil {
				t.Fatalf("after the InitializeResult: %s, want notifications/initialized", n.raw)
			}
			if err := within(t, "ConnectCommand", func() error { return <-done }); err != nil {
				t.Fatalf("ConnectCommand: %v", err)
			}
			defer c.Close()
			if v := c.ProtocolVersion(); v != "2025-11-25" {
				t.Errorf("ProtocolVersion() = %q", v)
			}
			// Still the same process: the next request reaches the fake.
			errc := make(chan error, 1)
			go func() { _, err := c.ListToolsPage(context.Background(), nil); errc <- err }()
			req := f.recvMethod("tools/list")
			f.send(result(req.ID, legacyTools("a")))
			if err := within(t, "tools/list", func() error { return <-errc }); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A counter-proposed older version the client lists is accepted (LVER-7)
// and reported; one it does not list ends the connection with a
// *VersionError naming it (LVER-3).
func TestLVER7_CounterProposal(t *testing.T) {
	t.Run("2025-06-18", func(t *testing.T) {
		c, _ := connectLegacyStdio(t, nil, legacyInit("2025-06-18", nil))
		if v := c.ProtocolVersion(); v != "2025-06-18" {
			t.Errorf("ProtocolVersion() = %q, want 2025-06-18", v)
		}
	})
	t.Run("2025-03-26 not offered", func(t *testing.T) {
		f, cmd := startStdio(t)
		t.Cleanup(f.close)
		done := make(chan error, 1)
		go func() {
			c, err := client.ConnectCommand(context.Background(), cmd, clientInfo, &client.Options{Versions: []string{mcp.ProtocolVersion, "2025-11-25"}})
			if c != nil {
				c.Close()
			}
			done <- err
		}()
		p := f.recvMethod(mcp.MethodDiscover)
		f.send(rpcError(p.ID, -32601, "Method not found", nil))
		init := f.recvMethod("initialize")
		f.send(result(init.ID, legacyInit("2025-03-26", nil)))
		err := within(t, "ConnectCommand", func() error { return <-done })
		var ve *client.VersionError
		if !errors.As(err, &ve) || !ve.Legacy || !reflect.DeepEqual(ve.Theirs, []string{"2025-03-26"}) {
			t.Fatalf("err = %v, want a legacy *VersionError naming 2025-03-26", err)
		}
		select {
		case <-f.eof:
		case <-time.After(waitFor):
			t.Error("the client did not disconnect")
		}
		for _, m := range f.received() {
			if m.Method == "notifications/initialized" {
				t.Error("notifications/initialized sent for a version the client cannot use")
			}
		}
	})
}

// A client that lists only legacy versions opens with initialize at once:
// no probe (LLIFE-1).
func TestLLIFE1_LegacyOnlyClientSkipsProbe(t *testing.T) {
	f, cmd := startStdio(t)
	t.Cleanup(f.close)
	done := make(chan error, 1)
	go func() {
		c, err := client.ConnectCommand(context.Background(), cmd, clientInfo, &client.Options{Versions: []string{"2025-06-18"}})
		if c != nil {
			c.Close()
		}
		done <- err
	}()
	first := f.recv()
	if first.Method != "initialize" {
		t.Fatalf("first message %s, want initialize", first.raw)
	}
	if v, _ := first.param("protocolVersion"); v != "2025-06-18" {
		t.Errorf("initialize offers %v", v)
	}
	f.send(result(first.ID, legacyInit("2025-06-18", nil)))
	f.recvMethod("notifications/initialized")
	if err := within(t, "ConnectCommand", func() error { return <-done }); err != nil {
		t.Fatal(err)
	}
}

// initialize is never cancelled (LLIFE-7): a server that does not answer
// it fails Connect after ProbeTimeout without a notifications/cancelled.
func TestLLIFE7_InitializeNeverCancelled(t *testing.T) {
	f, cmd := startStdio(t)
	t.Cleanup(f.close)
	done := make(chan error, 1)
	go func() {
		_, err := client.ConnectCommand(context.Background(), cmd, clientInfo, &client.Options{Versions: []string{"2025-11-25"}, ProbeTimeout: 200 * time.Millisecond})
		done <- err
	}()
	f.recvMethod("initialize")
	if err := within(t, "ConnectCommand", func() error { return <-done }); err == nil {
		t.Fatal("Connect succeeded without an InitializeResult")
	}
	<-f.eof
	for _, m := range f.received() {
		if m.Method == mcp.NotificationCancelled {
			t.Errorf("initialize was cancelled: %s", m.raw)
		}
	}
}

// Legacy requests carry no 2026-07-28 _meta; legacy results are decoded
// and validated with the 2025-11-25 bindings and returned as the modern
// types: no resultType reads as complete, no ttlMs as 0, members only
// 2025-11-25 declares are dropped and tool schemas kept verbatim (BC-1).
func TestBC1_LegacyResultsAsModernTypes(t *testing.T) {
	c, f := connectLegacyStdio(t, nil, legacyInit("2025-11-25", nil))
	ctx := context.Background()

	errc := make(chan error, 1)
	var tools *mcp.ListToolsResult
	go func() {
		var err error
		tools, err = c.ListToolsPage(ctx, nil)
		errc <- err
	}()
	req := f.recvMethod("tools/list")
	if hasModernMeta(req) {
		t.Errorf("a legacy request with 2026-07-28 _meta: %s", req.raw)
	}
	f.send(result(req.ID, legacyTools("a", "b")))
	if err := within(t, "tools/list", func() error { return <-errc }); err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 2 || tools.Tools[0].Name != "a" || tools.TTLMs != 0 {
		t.Fatalf("tools %+v", tools)
	}
	if got := string(tools.Tools[0].InputSchema); !strings.Contains(got, `"$schema":"https://json-schema.org/draft/2020-12/schema"`) {
		t.Errorf("inputSchema not kept verbatim: %s", got)
	}
	if len(tools.Tools[0].Extra) != 0 {
		t.Errorf("a member only 2025-11-25 declares reached the modern tool: %+v", tools.Tools[0].Extra)
	}

	var call *mcp.CallToolResult
	go func() {
		var err error
		call, err = c.CallTool(ctx, "a", wire.Raw(`{"x":"1"}`), client.WithMeta("traceparent", wire.Raw(`"00-1-2-01"`)))
		errc <- err
	}()
	req = f.recvMethod("tools/call")
	if args, _ := req.param("arguments"); !jsonEq(args, obj{"x": "1"}) || hasModernMeta(req) {
		t.Errorf("tools/call %s", req.raw)
	}
	if tp, _ := req.meta("traceparent"); tp != "00-1-2-01" {
		t.Errorf("WithMeta member lost: %s", req.raw)
	}
	f.send(result(req.ID, obj{"content": []obj{{"type": "text", "text": "ok"}}, "structuredContent": obj{"n": 1}, "isError": false}))
	if err := within(t, "tools/call", func() error { return <-errc }); err != nil {
		t.Fatal(err)
	}
	if textOf(t, call) != "ok" || string(call.StructuredContent) != `{"n":1}` {
		t.Errorf("call %+v", call)
	}

	// -32002 is resource-not-found in 2025-11-25, -32602 now (LERR-2).
	go func() { _, err := c.ReadResource(ctx, "file:///nope"); errc <- err }()
	req = f.recvMethod("resources/read")
	f.send(rpcError(req.ID, -32002, "Resource not found", obj{"uri": "file:///nope"}))
	err := within(t, "resources/read", func() error { return <-errc })
	var rpc *wire.Error
	if !errors.As(err, &rpc) || rpc.Code != wire.CodeInvalidParams || string(rpc.Data) != `{"uri":"file:///nope"}` {
		t.Errorf("err = %v, want -32602 with the data", err)
	}

	// A result 2025-11-25 rejects is an error, not a half-converted value.
	go func() { _, err := c.ListPromptsPage(ctx, nil); errc <- err }()
	req = f.recvMethod("prompts/list")
	f.send(result(req.ID, obj{"prompts": []obj{{"description": "no name"}}}))
	var re *client.ResultError
	if err := within(t, "prompts/list", func() error { return <-errc }); !errors.As(err, &re) {
		t.Errorf("err = %v, want a *ResultError", err)
	}
}

// Discover on a legacy session describes what initialize said.
func TestDISC3_DiscoverOnLegacySession(t *testing.T) {
	c, f := connectLegacyStdio(t, nil, legacyInit("2025-06-18", nil))
	d, err := c.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.SupportedVersions, []string{"2025-06-18"}) || d.Capabilities.Tools == nil || d.Capabilities.Resources == nil ||
		d.Instructions.Value != "Legacy instructions." || d.Meta == nil || d.Meta.ServerInfo.Name != "legacy-server" {
		t.Errorf("discover %+v", d)
	}
	n := 0
	for _, m := range f.received() {
		if m.Method == mcp.MethodDiscover {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d server/discover requests, want only the probe", n)
	}
}

// The server's requests are answered on stdin through the callbacks
// (LS2C-3): elicitation (with the schema's defaults for what the callback
// left out, LELIC-2), sampling, roots, ping (LPING-1); an unknown method,
// or one the client declared no capability for, gets -32601.
func TestLS2C3_ServerRequestsAnsweredStdio(t *testing.T) {
	var elicited atomic.Pointer[mcp.ElicitRequestParams]
	opts := &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			elicited.Store(p)
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept,
				Content: map[string]mcp.ElicitResultContentValue{"name": {String: wire.Some("Ada")}}}, nil
		},
		Sample: func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m",
				Content: mcp.CreateMessageResultContent{TextContent: &mcp.TextContent{Text: "sampled " + p.Messages[0].Content.TextContent.Text}}}, nil
		},
	}
	c, f := connectLegacyStdio(t, opts, legacyInit("2025-11-25", nil))
	errc := make(chan error, 1)
	go func() { _, err := c.CallTool(context.Background(), "t", nil); errc <- err }()
	call := f.recvMethod("tools/call")
	f.send(
		`{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","default":30},"tier":{"type":"string","enum":["a","b"],"default":"b"}}}}}`,
		`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}`,
		`{"jsonrpc":"2.0","id":2,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tasks/list"}`,
	)
	answers := map[string]msg{}
	for len(answers) < 5 {
		m := f.recv()
		if m.Method == "" && m.ID != nil {
			answers[m.idKey()] = m
		}
	}
	if e := elicited.Load(); e == nil || e.ElicitRequestFormParams == nil || e.ElicitRequestFormParams.Message != "Who?" {
		t.Errorf("the callback got %+v", e)
	}
	if got := string(answers["0"].Result); !jsonEq(jsonRaw(got), obj{"action": "accept", "content": obj{"name": "Ada", "age": 30, "tier": "b"}}) {
		t.Errorf("elicitation answer %s, want the defaults filled in", got)
	}
	if got := string(answers[`"s1"`].Result); !jsonEq(jsonRaw(got), obj{"role": "assistant", "model": "m", "content": obj{"type": "text", "text": "sampled hi"}}) {
		t.Errorf("sampling answer %s", got)
	}
	for _, id := range []string{"2", "4"} { // no Roots callback; tasks are not offered
		if !strings.Contains(string(answers[id].Error), "-32601") {
			t.Errorf("answer %s = %s, want -32601", id, answers[id].raw)
		}
	}
	if string(answers["3"].Result) != "{}" {
		t.Errorf("ping answer %s, want {}", answers["3"].raw)
	}
	f.send(result(call.ID, legacyText("done")))
	if err := within(t, "tools/call", func() error { return <-errc }); err != nil {
		t.Fatal(err)
	}
}

func jsonRaw(s string) any {
	var v any
	_ = json.Unmarshal([]byte(s), &v)
	return v
}

// Cancellation is notifications/cancelled both ways (LCAN-1): a request
// the client stops waiting for is cancelled by id; a server request the
// server cancels stops its callback and gets no response (LCAN-3), and a
// cancelled id that happens to equal one of our requests' does not touch
// that request.
func TestLCAN1_CancellationBothWaysStdio(t *testing.T) {
	stopped := make(chan struct{})
	opts := &client.Options{Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		<-ctx.Done()
		close(stopped)
		return nil, ctx.Err()
	}}
	c, f := connectLegacyStdio(t, opts, legacyInit("2025-11-25", nil))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	errc := make(chan error, 1)
	go func() { _, err := c.CallTool(ctx, "slow", nil); errc <- err }()
	call := f.recvMethod("tools/call")
	cn := f.recvMethod(mcp.NotificationCancelled)
	if id, _ := cn.param("requestId"); mustJSON(id) != call.idKey() {
		t.Errorf("cancelled %s, want request %s", cn.raw, call.idKey())
	}
	if err := <-errc; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}

	go func() { _, err := c.CallTool(context.Background(), "ask", nil); errc <- err }()
	call = f.recvMethod("tools/call")
	// The server's request id equals the id of our pending call.
	f.send(`{"jsonrpc":"2.0","id":` + call.idKey() + `,"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}`)
	time.Sleep(50 * time.Millisecond)
	f.send(notification(mcp.NotificationCancelled, obj{"requestId": call.ID, "reason": "user left"}))
	select {
	case <-stopped:
	case <-time.After(waitFor):
		t.Fatal("the callback was not cancelled")
	}
	select {
	case err := <-errc:
		t.Fatalf("our call ended by the server's cancellation of its own request: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	f.send(result(call.ID, legacyText("done")))
	if err := within(t, "tools/call", func() error { return <-errc }); err != nil {
		t.Fatal(err)
	}
	for _, m := range f.received() {
		if m.Method == "" && m.idKey() == call.idKey() {
			t.Errorf("a response to the cancelled server request: %s", m.raw)
		}
	}
}

// Progress of a legacy request reaches WithProgress (LPROG-1); with
// WithLogLevel the session's level is set once with logging/setLevel
// (LLOG-2) and log messages reach OnLog.
func TestLPROG1_LLOG2_ProgressAndLogsStdio(t *testing.T) {
	logs := make(chan string, 4)
	c, f := connectLegacyStdio(t, &client.Options{OnLog: func(p *mcp.LoggingMessageNotificationParams) { logs <- string(p.Data) }},
		legacyInit("2025-11-25", nil))
	var progress atomic.Int32
	errc := make(chan error, 1)
	for i := range 2 {
		go func() {
			_, err := c.CallTool(context.Background(), "p", nil, client.WithLogLevel(mcp.LoggingLevelDebug),
				client.WithProgress(func(*mcp.ProgressNotificationParams) { progress.Add(1) }))
			errc <- err
		}()
		if i == 0 {
			lvl := f.recvMethod("logging/setLevel")
			if l, _ := lvl.param("level"); l != "debug" {
				t.Errorf("setLevel %s", lvl.raw)
			}
			f.send(result(lvl.ID, obj{}))
		}
		call := f.recvMethod("tools/call")
		token, ok := call.meta("progressToken")
		if !ok || hasModernMeta(call) {
			t.Fatalf("tools/call _meta %s", call.raw)
		}
		f.send(
			notification(mcp.NotificationProgress, obj{"progressToken": token, "progress": 1, "total": 2}),
			notification("notifications/message", obj{"level": "info", "data": "hello"}),
			result(call.ID, legacyText("ok")),
		)
		if err := within(t, "tools/call", func() error { return <-errc }); err != nil {
			t.Fatal(err)
		}
		if got := within(t, "a log message", func() string { return <-logs }); got != `"hello"` {
			t.Errorf("log %s", got)
		}
	}
	if n := progress.Load(); n != 2 {
		t.Errorf("%d progress notifications, want 2", n)
	}
	n := 0
	for _, m := range f.received() {
		if m.Method == "logging/setLevel" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d logging/setLevel, want 1 (the level is the session's)", n)
	}
}

// Listen on a legacy session: the acknowledgement grants what the server
// declared (SUB-4); subscribed resources are subscribed once with
// resources/subscribe (LSUB-1) and unsubscribed when the last listener
// leaves (LSUB-3); list-changed and resources/updated notifications reach
// the listeners that asked for them, in order.
func TestLSUB1_ListenOnLegacySessionStdio(t *testing.T) {
	caps := obj{"tools": obj{"listChanged": true}, "prompts": obj{}, "resources": obj{"subscribe": true}}
	c, f := connectLegacyStdio(t, nil, legacyInit("2025-11-25", caps))
	ctx, stop := context.WithCancel(context.Background())
	filter := mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true), PromptsListChanged: wire.Some(true),
		ResourcesListChanged: wire.Some(true), ResourceSubscriptions: []string{"file:///a"}}
	ch := listenChan(c.Listen(ctx, filter))
	sub := f.recvMethod("resources/subscribe")
	if uri, _ := sub.param("uri"); uri != "file:///a" {
		t.Errorf("subscribe %s", sub.raw)
	}
	f.send(result(sub.ID, obj{}))
	ack := nextNote(t, ch).SubscriptionsAcknowledgedNotification
	if ack == nil {
		t.Fatal("no acknowledgement first")
	}
	if got := ack.Params.Notifications; !got.ToolsListChanged.Value || got.PromptsListChanged.Set || got.ResourcesListChanged.Set ||
		!slices.Equal(got.ResourceSubscriptions, []string{"file:///a"}) {
		t.Errorf("granted %+v, want tools and file:///a: what the server declared", got)
	}
	f.send(
		notification("notifications/tools/list_changed", nil),
		notification("notifications/resources/updated", obj{"uri": "file:///b"}),
		notification("notifications/resources/updated", obj{"uri": "file:///a"}),
	)
	if k := kind(nextNote(t, ch)); k != "tools" {
		t.Errorf("got %s, want tools", k)
	}
	if k := kind(nextNote(t, ch)); k != "updated file:///a" {
		t.Errorf("got %s, want the subscribed resource only", k)
	}
	stop()
	if _, err := listenEnd(t, ch); err != nil {
		t.Errorf("listen ended with %v", err)
	}
	unsub := f.recvMethod("resources/unsubscribe")
	if uri, _ := unsub.param("uri"); uri != "file:///a" {
		t.Errorf("unsubscribe %s", unsub.raw)
	}
	f.send(result(unsub.ID, obj{}))
}
