package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cmd/internal/nodetools"
	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestInteropTSServer drives the official TypeScript SDK v2 server
// (@modelcontextprotocol/server 2.4.0 with @modelcontextprotocol/node,
// testdata/interop/ts-server.mjs) with this repository's client over stdio
// and Streamable HTTP: every method, multi round-trip tools and prompts,
// cancellation and subscriptions/listen.
func TestInteropTSServer(t *testing.T) {
	dir, script := nodetools.Interop(t, "ts-server.mjs")
	node := nodetools.Node(t)
	info := mcp.Implementation{Name: "mcpgen-interop", Version: "0.1.0"}
	opts := interopOptions
	t.Run("stdio", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.Command(node, script)
		cmd.Dir = dir
		cmd.Stderr = os.Stderr
		c, err := client.ConnectCommand(ctx, cmd, info, opts())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		exercise(ctx, t, c)
	})
	t.Run("http", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.Command(node, script, "--http", "0")
		cmd.Dir = dir
		url := nodetools.StartHTTP(t, cmd)
		c, err := client.ConnectURL(ctx, url, info, opts())
		if err != nil {
			t.Fatal(err)
		}
		exercise(ctx, t, c)
	})
}

// interopOptions answers every input request with values the servers'
// tools echo back.
func interopOptions() *client.Options {
	return &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			return acceptElicitation(ctx, p)
		},
		Sample: func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "go-model",
				Content: mcp.CreateMessageResultContent{TextContent: &mcp.TextContent{Text: "go-sample-reply"}}}, nil
		},
		Roots: func(ctx context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///tmp/go-root"}}, nil
		},
		DisableCache: true,
	}
}

func textOf(r *mcp.CallToolResult) string {
	var parts []string
	for _, b := range r.Content {
		if b.TextContent != nil {
			parts = append(parts, b.TextContent.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// exercise runs every method of the TS server's surface.
func exercise(ctx context.Context, t *testing.T, c *client.Client) {
	d, err := c.Discover(ctx)
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	if len(d.SupportedVersions) == 0 || d.Capabilities.Tools == nil {
		t.Fatalf("discover: %+v", d)
	}
	tools := map[string]bool{}
	for tool, err := range c.ListTools(ctx) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		tools[tool.Name] = true
	}
	for _, want := range []string{"echo", "add", "header_echo", "ask_name", "sample", "list_roots", "multi_round", "add_tool"} {
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
	var progress []float64
	call("progress", `{"steps":3}`, "", client.WithProgress(func(p *mcp.ProgressNotificationParams) { progress = append(progress, p.Progress) }))
	if len(progress) < 1 {
		t.Error("progress: no notifications")
	}
	for _, region := range []string{"us-west1", "Hello, 世界"} {
		call("header_echo", `{"region":"`+region+`"}`, region)
	}
	call("ask_name", `{}`, "fixture")
	call("sample", `{"prompt":"hi"}`, "go-sample-reply")
	call("list_roots", `{}`, "file:///tmp/go-root")
	call("multi_round", `{}`, "go-sample-reply")

	// Cancellation: stdio sends notifications/cancelled, HTTP closes the stream.
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = c.CallTool(cctx, "slow", wire.Raw(`{"ms":20000}`))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow: got %v, want the context's deadline error", err)
	}

	if _, err := c.CallTool(ctx, "no_such_tool", wire.Raw(`{}`)); err == nil {
		t.Error("unknown tool: no error")
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
	if g, err = c.GetPrompt(ctx, "confirm_prompt", nil); err != nil || len(g.Messages) == 0 {
		t.Fatalf("prompts/get confirm_prompt (MRTR): %v", err)
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
	if _, err := c.ReadResource(ctx, "test://does-not-exist"); !errors.As(err, &rpc) || rpc.Code != wire.CodeInvalidParams && rpc.Code != -32002 {
		t.Fatalf("resources/read of a missing resource: %v", err)
	}
	comp, err := c.Complete(ctx, &mcp.CompleteRequestParams{
		Ref:      mcp.CompleteRequestParamsRef{PromptReference: &mcp.PromptReference{Name: "greet"}},
		Argument: mcp.CompleteRequestParamsArgument{Name: "name", Value: "al"},
	})
	if err != nil || len(comp.Completion.Values) == 0 {
		t.Fatalf("completion/complete: %v %+v", err, comp)
	}

	// subscriptions/listen: the acknowledgement, then the change add_tool causes.
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	seen := 0
	for n, err := range c.Listen(lctx, mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true)}) {
		if err != nil {
			t.Fatalf("listen: %v", err)
		}
		seen++
		switch {
		case seen == 1 && n.SubscriptionsAcknowledgedNotification == nil:
			t.Fatalf("first listen message is not the acknowledgement: %+v", n)
		case seen == 1:
			go func() { _, _ = c.CallTool(ctx, "add_tool", wire.Raw(`{}`)) }()
		case n.ToolListChangedNotification != nil:
			stop()
		}
	}
	if seen < 2 {
		t.Fatalf("listen ended after %d messages, want the acknowledgement and tools/list_changed", seen)
	}
	t.Logf("exercised discover, %d tools, %d prompts, resources, templates, completion, MRTR, cancellation and listen", len(tools), len(prompts))
}
