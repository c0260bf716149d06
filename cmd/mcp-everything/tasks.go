package main

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The tools the conformance suite's tasks-* scenarios (the tasks
// extension, io.modelcontextprotocol/tasks) call, by the names and with
// the behaviour the scenarios describe. Their handlers are ordinary tool
// handlers: RunAsTask decides whether a call becomes a task.

// taskWindow is how long slow_compute and test_tool_with_task run as
// ordinary calls before they become tasks: long enough for an immediate
// answer (seconds: 0) or a multi round-trip request, short against the
// scenarios' one-second jobs.
const taskWindow = 100 * time.Millisecond

func (f *fixture) taskTools() {
	s := f.s
	type greetArgs struct {
		Name string `json:"name"`
	}
	must(server.AddTypedTool(s, mcp.Tool{Name: "greet", Description: wire.Some("Greets someone; never a task")},
		func(ctx context.Context, req *server.ToolRequest, a greetArgs) (*mcp.CallToolResult, error) {
			return server.TextResult("Hello, " + a.Name + "!"), nil
		}))

	type computeArgs struct {
		Seconds float64 `json:"seconds"`
		Label   string  `json:"label,omitempty"`
	}
	must(server.AddTypedTool(s, mcp.Tool{Name: "slow_compute", Description: wire.Some("Works for seconds seconds, then answers; a task when it takes longer than a moment")},
		func(ctx context.Context, req *server.ToolRequest, a computeArgs) (*mcp.CallToolResult, error) {
			if err := sleep(ctx, time.Duration(a.Seconds*float64(time.Second))); err != nil {
				return nil, err
			}
			return server.TextResult(fmt.Sprintf("computed %s in %gs", a.Label, a.Seconds)), nil
		}, server.RunAsTask(server.TaskOptional, taskWindow)))

	must(s.AddTool(mcp.Tool{Name: "failing_job", Description: wire.Some("A job that always ends in a tool error after about a second; only as a task"), InputSchema: emptySchema},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			if err := sleep(ctx, time.Second); err != nil {
				return nil, err
			}
			return server.ErrorResult("the job failed: the input could not be processed"), nil
		}, server.RunAsTask(server.TaskRequired, 0)))

	must(s.AddTool(mcp.Tool{Name: "protocol_error_job", Description: wire.Some("A job whose handler panics: a protocol error, not a tool error"), InputSchema: emptySchema},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			panic("protocol_error_job: deliberate failure")
		}, server.RunAsTask(server.TaskOptional, 0)))

	type deleteArgs struct {
		Filename string `json:"filename"`
	}
	must(server.AddTypedTool(s, mcp.Tool{Name: "confirm_delete", Description: wire.Some("Asks for confirmation before deleting a file (a task waiting for input)")},
		func(ctx context.Context, req *server.ToolRequest, a deleteArgs) (*mcp.CallToolResult, error) {
			r, err := req.Elicit("confirm", elicitForm("Delete "+a.Filename+"?", map[string]string{"confirm": "boolean"}))
			if err != nil {
				return nil, err
			}
			if c := r.Content["confirm"]; r.Action == mcp.ElicitResultActionAccept && c.Boolean.Value {
				return server.TextResult("Deleted " + a.Filename), nil
			}
			return server.TextResult("Kept " + a.Filename), nil
		}, server.RunAsTask(server.TaskOptional, 0)))

	must(s.AddTool(mcp.Tool{Name: "multi_input", Description: wire.Some("Asks for two inputs at once (a task waiting for both)"), InputSchema: emptySchema},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			name, err1 := req.Elicit("name", elicitForm("Your name?", map[string]string{"name": "string"}))
			confirm, err2 := req.Elicit("confirm", elicitForm("Go ahead?", map[string]string{"confirm": "boolean"}))
			for _, err := range []error{err1, err2} {
				if err != nil {
					return nil, err
				}
			}
			return server.TextResult(fmt.Sprintf("name=%s confirm=%s", contentString(name, "name"), contentString(confirm, "confirm"))), nil
		}, server.RunAsTask(server.TaskOptional, 0)))

	must(s.AddTool(mcp.Tool{Name: "test_tool_with_task", Description: wire.Some("Asks for a user name (multi round-trip), then answers as a task"), InputSchema: emptySchema},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			r, err := req.Elicit("user_name", elicitForm("What is your name?", map[string]string{"name": "string"}))
			if err != nil {
				return nil, err
			}
			return server.TextResult("Hello, " + contentString(r, "name") + "!"), nil
		}, server.RunAsTask(server.TaskRequired, taskWindow)))
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
