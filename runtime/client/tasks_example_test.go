package client_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// jobServer is a server whose "report" tool runs as a task.
func jobServer() *server.Server {
	s := server.New(mcp.Implementation{Name: "jobs", Version: "1.0.0"}, &server.Options{
		Tasks: &server.TaskOptions{PollInterval: 20 * time.Millisecond},
	})
	err := s.AddTool(mcp.Tool{Name: "report"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(50 * time.Millisecond)
		return server.TextResult("42 pages"), nil
	}, server.RunAsTask(server.TaskOptional, 0))
	if err != nil {
		log.Fatal(err)
	}
	return s
}

// With Options.Tasks, CallTool follows a task to its result: the call
// looks like any other.
func ExampleOptions_tasks() {
	srv := httptest.NewServer(jobServer().Handler(nil))
	defer srv.Close()
	ctx := context.Background()
	c, err := client.ConnectURL(ctx, srv.URL, mcp.Implementation{Name: "app", Version: "1"}, &client.Options{Tasks: true})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "report", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].TextContent.Text)
	// Output: 42 pages
}

// StartTool returns the task instead of waiting for it: keep its id to
// follow it later, from this client or another (Client.Task).
func ExampleClient_StartTool() {
	srv := httptest.NewServer(jobServer().Handler(nil))
	defer srv.Close()
	ctx := context.Background()
	c, err := client.ConnectURL(ctx, srv.URL, mcp.Implementation{Name: "app", Version: "1"}, &client.Options{Tasks: true})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	_, task, err := c.StartTool(ctx, "report", nil)
	if err != nil {
		log.Fatal(err)
	}
	st, err := task.Get(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Status)
	res, err := c.Task(task.ID).Wait(ctx) // e.g. after a restart, with the saved id
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].TextContent.Text)
	// Output:
	// working
	// 42 pages
}
