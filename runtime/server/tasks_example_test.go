package server_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A server with the tasks extension: a long job answers clients that
// declare the extension with a task handle, polled with tasks/get. The
// handler is an ordinary tool handler.
func ExampleRunAsTask() {
	s := server.New(mcp.Implementation{Name: "jobs", Version: "1.0.0"}, &server.Options{
		Tasks: &server.TaskOptions{TTL: time.Hour, PollInterval: 10 * time.Millisecond},
	})
	done := make(chan struct{})
	err := s.AddTool(mcp.Tool{Name: "build", Description: wire.Some("Builds the project")},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-done: // the work
			case <-ctx.Done(): // tasks/cancel, or the task expired
				return nil, ctx.Err()
			}
			return server.TextResult("build succeeded"), nil
		},
		// A call still running after 50 ms becomes a task.
		server.RunAsTask(server.TaskOptional, 50*time.Millisecond))
	if err != nil {
		panic(err)
	}
	tasks := `"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	m := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` + tasks + `}`
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"build",` + m + `}}` + "\n")
	var out strings.Builder
	if err := s.ServeStdio(context.Background(), in, &out); err != nil {
		panic(err)
	}
	fmt.Println(strings.Contains(out.String(), `"resultType":"task"`), strings.Contains(out.String(), `"status":"working"`))
	close(done)
	// Output: true true
}
