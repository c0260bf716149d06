package main

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cmd/internal/nodetools"
	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
)

// TestFixtureServer: this client drives this repository's fixture server
// (cmd/mcp-everything, run as its own process) over stdio and Streamable
// HTTP through the same surface as the TypeScript server: every method,
// multi round-trip tools and prompts, cancellation and listen.
func TestFixtureServer(t *testing.T) {
	bin := nodetools.Build(t, "./cmd/mcp-everything")
	info := mcp.Implementation{Name: "mcpgen-e2e", Version: "0.1.0"}
	opts := interopOptions
	t.Run("stdio", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.Command(bin)
		cmd.Stderr = os.Stderr
		c, err := client.ConnectCommand(ctx, cmd, info, opts())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		exercise(ctx, t, c)
	})
	t.Run("http", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		url := nodetools.StartHTTP(t, exec.Command(bin, "-http", "127.0.0.1:0"))
		c, err := client.ConnectURL(ctx, url, info, opts())
		if err != nil {
			t.Fatal(err)
		}
		exercise(ctx, t, c)
	})
}
