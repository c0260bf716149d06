package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cmd/internal/nodetools"
	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Interop with legacy (initialize-based, 2025-11-25) servers no one here
// wrote: the dual-era client detects them (BC-4) and speaks 2025-11-25 to
// them through the same typed surface.

// legacySurface says what a legacy server under test can do beyond the
// common surface.
type legacySurface struct {
	// serverRequests: the server can send requests to the client
	// (elicitation, sampling, roots) and get the answers back: it keeps
	// sessions (stdio, or stateful HTTP).
	serverRequests bool
	// notifications: unsolicited notifications reach the client (stdio, or
	// HTTP with a GET stream).
	notifications bool
	// subscribe: the server answers resources/subscribe (the v2 server
	// declares resources.subscribe but answers -32601, and sends
	// resources/updated unasked).
	subscribe bool
	// progress: progress notifications reach the client (not with JSON
	// responses: they have no stream to travel on, LS2C-2).
	progress bool
	// cancelCounted: the server counts cancelled calls of `slow` in `stats`.
	cancelCounted bool
	// headerEcho: the server has the header_echo tool (v2 server).
	headerEcho bool
	// logs, when set, receives what Options.OnLog gets: the server has the
	// log tool (v1 server), which logs at the level asked for.
	logs chan string
}

// withLogs returns interop options whose OnLog feeds the returned channel.
func withLogs() (*client.Options, chan string) {
	logs := make(chan string, 16)
	o := interopOptions()
	o.OnLog = func(p *mcp.LoggingMessageNotificationParams) {
		select {
		case logs <- string(p.Data):
		default:
		}
	}
	return o, logs
}

// TestInteropTSv1Server drives the official TypeScript SDK v1 server
// (@modelcontextprotocol/sdk 1.32.2, testdata/interop/ts-v1-server.mjs),
// which speaks only 2025-11-25 and older, with this repository's default
// (dual-era) client: over stdio, and over Streamable HTTP with sessions,
// SSE and JSON responses. Discovery, every tool with the input requests
// the server sends answered through the callbacks, cancellation by
// notifications/cancelled, prompts, resources, completion and Listen fed
// by list-changed and resources/updated notifications.
func TestInteropTSv1Server(t *testing.T) {
	dir, script := nodetools.Interop(t, "ts-v1-server.mjs")
	node := nodetools.Node(t)
	info := mcp.Implementation{Name: "mcpgen-interop", Version: "0.1.0"}
	all := legacySurface{serverRequests: true, notifications: true, subscribe: true, progress: true, cancelCounted: true}
	t.Run("stdio", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.Command(node, script)
		cmd.Dir = dir
		cmd.Stderr = os.Stderr
		opts, logs := withLogs()
		c, err := client.ConnectCommand(ctx, cmd, info, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		can := all
		can.logs = logs
		exerciseLegacy(ctx, t, c, can)
	})
	for _, mode := range []struct{ name, flag string }{{"http", ""}, {"http-json", "--json"}, {"http-no-resume", "--no-resume"}} {
		t.Run(mode.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			args := []string{script, "--http", "0"}
			if mode.flag != "" {
				args = append(args, mode.flag)
			}
			cmd := exec.Command(node, args...)
			cmd.Dir = dir
			url := nodetools.StartHTTP(t, cmd)
			opts, logs := withLogs()
			c, err := client.ConnectURL(ctx, url, info, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			can := all
			can.logs = logs
			// JSON responses: the server sends its requests on the GET
			// stream, and its progress notifications nowhere.
			can.progress = mode.flag != "--json"
			exerciseLegacy(ctx, t, c, can)
		})
	}
}

// TestInteropTSServerLegacy drives the TypeScript SDK v2 server
// (testdata/interop/ts-server.mjs) in its legacy mode: a client that
// offers only 2025-11-25 opens every connection with initialize, which the
// v2 server serves the 2025 way (stdio: the whole connection; HTTP: its
// stateless legacy fallback, which has no sessions, so no server-to-client
// requests and no GET stream).
func TestInteropTSServerLegacy(t *testing.T) {
	dir, script := nodetools.Interop(t, "ts-server.mjs")
	node := nodetools.Node(t)
	info := mcp.Implementation{Name: "mcpgen-interop", Version: "0.1.0"}
	legacyOnly := func() *client.Options {
		o := interopOptions()
		o.Versions = []string{"2025-11-25"}
		return o
	}
	t.Run("stdio", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.Command(node, script)
		cmd.Dir = dir
		cmd.Stderr = os.Stderr
		c, err := client.ConnectCommand(ctx, cmd, info, legacyOnly())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		exerciseLegacy(ctx, t, c, legacySurface{serverRequests: true, notifications: true, progress: true, cancelCounted: true, headerEcho: true})
	})
	t.Run("http", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.Command(node, script, "--http", "0")
		cmd.Dir = dir
		url := nodetools.StartHTTP(t, cmd)
		c, err := client.ConnectURL(ctx, url, info, legacyOnly())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		exerciseLegacy(ctx, t, c, legacySurface{headerEcho: true})
	})
}

// exerciseLegacy runs the legacy servers' surface through the typed
// methods, which return the 2026-07-28 types whatever the era.
func exerciseLegacy(ctx context.Context, t *testing.T, c *client.Client, can legacySurface) {
	if v := c.ProtocolVersion(); v != "2025-11-25" {
		t.Fatalf("ProtocolVersion() = %q, want the negotiated 2025-11-25", v)
	}
	d, err := c.Discover(ctx)
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	if !slices.Equal(d.SupportedVersions, []string{"2025-11-25"}) || d.Capabilities.Tools == nil || d.Meta == nil || d.Meta.ServerInfo == nil {
		t.Fatalf("discover on a legacy session: %+v", d)
	}
	tools := map[string]bool{}
	for tool, err := range c.ListTools(ctx) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if len(tool.InputSchema) == 0 {
			t.Errorf("tool %s without inputSchema", tool.Name)
		}
		tools[tool.Name] = true
	}
	for _, want := range []string{"echo", "add", "fail", "progress", "slow", "stats", "ask_name", "sample", "list_roots", "multi_round", "add_tool", "touch_resource"} {
		if !tools[want] {
			t.Fatalf("tools/list lacks %s: %v", want, tools)
		}
	}
	call := func(name, args, want string, opts ...client.CallOption) *mcp.CallToolResult {
		t.Helper()
		r, err := c.CallTool(ctx, name, wire.Raw(args), opts...)
		if err != nil {
			t.Fatalf("tools/call %s: %v", name, err)
		}
		if !strings.Contains(textOf(r), want) {
			t.Fatalf("tools/call %s = %q, want it to contain %q", name, textOf(r), want)
		}
		return r
	}
	call("echo", `{"message":"hello-go"}`, "echo: hello-go")
	if r := call("add", `{"a":2,"b":3}`, "5"); string(r.StructuredContent) != `{"sum":5}` {
		t.Errorf("add structuredContent = %s", r.StructuredContent)
	}
	if r := call("fail", `{}`, ""); !r.IsError.Value {
		t.Error("fail: isError not set")
	}
	var mu sync.Mutex
	var progress []float64
	call("progress", `{"steps":3}`, "done", client.WithProgress(func(p *mcp.ProgressNotificationParams) {
		mu.Lock()
		progress = append(progress, p.Progress)
		mu.Unlock()
	}))
	mu.Lock()
	if can.progress && len(progress) < 1 {
		t.Error("progress: no notifications")
	}
	mu.Unlock()
	if can.headerEcho {
		call("header_echo", `{"region":"us-west1"}`, "us-west1")
	}
	if can.logs != nil {
		// WithLogLevel sets the session's level (logging/setLevel); the
		// message reaches OnLog.
		call("log", `{"level":"warning"}`, "logged", client.WithLogLevel(mcp.LoggingLevelInfo))
		select {
		case got := <-can.logs:
			if !strings.Contains(got, "a warning message") {
				t.Errorf("OnLog got %s", got)
			}
		case <-time.After(10 * time.Second):
			t.Error("no log message reached OnLog")
		}
	}
	if can.serverRequests {
		call("ask_name", `{}`, "fixture")
		call("sample", `{"prompt":"hi"}`, "go-sample-reply")
		call("list_roots", `{}`, "file:///tmp/go-root")
		call("multi_round", `{}`, "go-sample-reply")
	}

	// Cancellation is notifications/cancelled, on HTTP too (LCAN-1, LCAN-6).
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = c.CallTool(cctx, "slow", wire.Raw(`{"ms":20000}`))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow: got %v, want the context's deadline error", err)
	}
	if can.cancelCounted {
		deadline := time.Now().Add(10 * time.Second)
		for {
			r := call("stats", `{}`, "slowCancelled")
			if strings.Contains(textOf(r), `"slowCancelled":1`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the server never saw the cancellation: %s", textOf(r))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// An unknown tool: a protocol error, or (SDK v1) an isError result.
	if r, err := c.CallTool(ctx, "no_such_tool", wire.Raw(`{}`)); err == nil && !r.IsError.Value {
		t.Errorf("unknown tool: neither an error nor isError: %q", textOf(r))
	}

	var prompts []string
	for p, err := range c.ListPrompts(ctx) {
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		prompts = append(prompts, p.Name)
	}
	g, err := c.GetPrompt(ctx, "greet", map[string]string{"name": "alice"})
	if err != nil || len(g.Messages) == 0 {
		t.Fatalf("prompts/get greet: %v %+v", err, g)
	}
	if can.serverRequests {
		if g, err = c.GetPrompt(ctx, "confirm_prompt", nil); err != nil || len(g.Messages) == 0 {
			t.Fatalf("prompts/get confirm_prompt (elicitation): %v", err)
		}
	}
	for _, err := range c.ListResources(ctx) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
	}
	for _, err := range c.ListResourceTemplates(ctx) {
		if err != nil {
			t.Fatalf("resources/templates/list: %v", err)
		}
	}
	if r, err := c.ReadResource(ctx, "test://static"); err != nil || len(r.Contents) == 0 {
		t.Fatalf("resources/read: %v", err)
	}
	if r, err := c.ReadResource(ctx, "test://items/7"); err != nil || r.Contents[0].TextResourceContents == nil || r.Contents[0].TextResourceContents.URI != "test://items/7" {
		t.Fatalf("resources/read template: %v", err)
	}
	var rpc *wire.Error
	if _, err := c.ReadResource(ctx, "test://does-not-exist"); !errors.As(err, &rpc) || rpc.Code != wire.CodeInvalidParams {
		t.Fatalf("resources/read of a missing resource: %v, want -32602 (a legacy -32002 reads as -32602, BC-1)", err)
	}
	comp, err := c.Complete(ctx, &mcp.CompleteRequestParams{
		Ref:      mcp.CompleteRequestParamsRef{PromptReference: &mcp.PromptReference{Name: "greet"}},
		Argument: mcp.CompleteRequestParamsArgument{Name: "name", Value: "al"},
	})
	if err != nil || len(comp.Completion.Values) == 0 {
		t.Fatalf("completion/complete: %v %+v", err, comp)
	}

	if can.notifications {
		// Listen: the acknowledgement says what the server delivers; then
		// the changes add_tool and touch_resource cause.
		lctx, stop := context.WithCancel(ctx)
		defer stop()
		var seen []string
		filter := mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true), ResourceSubscriptions: []string{"test://static"}}
		var granted []string // what the acknowledgement grants
		if can.subscribe {
			granted = filter.ResourceSubscriptions
		}
		for n, err := range c.Listen(lctx, filter) {
			if err != nil {
				t.Fatalf("listen: %v", err)
			}
			switch {
			case len(seen) == 0:
				ack := n.SubscriptionsAcknowledgedNotification
				if ack == nil || !ack.Params.Notifications.ToolsListChanged.Value || !slices.Equal(ack.Params.Notifications.ResourceSubscriptions, granted) {
					t.Fatalf("first listen message is not the acknowledgement granting tools and %v: %+v", granted, ack)
				}
				seen = append(seen, "ack")
				go func() { _, _ = c.CallTool(ctx, "add_tool", wire.Raw(`{}`)) }()
			case n.ToolListChangedNotification != nil && !slices.Contains(seen, "tools"):
				seen = append(seen, "tools")
				if !can.subscribe {
					stop()
					break
				}
				go func() { _, _ = c.CallTool(ctx, "touch_resource", wire.Raw(`{}`)) }()
			case n.ResourceUpdatedNotification != nil:
				if n.ResourceUpdatedNotification.Params.URI != "test://static" {
					t.Errorf("resources/updated for %s", n.ResourceUpdatedNotification.Params.URI)
				}
				seen = append(seen, "updated")
				stop()
			}
		}
		want := []string{"ack", "tools", "updated"}
		if !can.subscribe {
			want = want[:2]
		}
		if !slices.Equal(seen, want) {
			t.Fatalf("listen saw %v, want the acknowledgement, tools/list_changed and resources/updated", seen)
		}
		for tool, err := range c.ListTools(ctx) {
			if err == nil && strings.HasPrefix(tool.Name, "dynamic_") {
				tools[tool.Name] = true
			}
		}
		if !tools["dynamic_1"] && !tools["dynamic_2"] {
			t.Error("the tool add_tool added is not listed")
		}
	}
	t.Logf("exercised %s: discover, %d tools, %d prompts, resources, templates, completion, cancellation (input requests: %v, notifications: %v)",
		c.ProtocolVersion(), len(tools), len(prompts), can.serverRequests, can.notifications)
}
