// Command mcp-everything is the fixture MCP server of this repository: it
// exposes every tool, prompt and resource the official conformance suite
// and the TypeScript SDK interop tests exercise, on the mcpgen runtime.
//
//	mcp-everything              serve stdio
//	mcp-everything -http ADDR   serve Streamable HTTP at http://ADDR/mcp
//
// With -http, the first line on stdout is "LISTENING http://HOST:PORT/mcp"
// (ADDR may use port 0). Diagnostics go to stderr. SIGTERM and SIGINT shut
// the server down: listen streams get their completion result first.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/server"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address (host:port) instead of stdio")
	path := flag.String("path", "/mcp", "MCP endpoint path (with -http)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	s := newFixture(log)
	var err error
	if *addr == "" {
		err = s.ServeStdio(ctx, os.Stdin, os.Stdout)
	} else {
		err = serveHTTP(ctx, s, *addr, *path)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "mcp-everything:", err)
		os.Exit(1)
	}
}

func serveHTTP(ctx context.Context, s *server.Server, addr, path string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle(path, s.Handler(nil))
	hs := server.NewHTTPServer(addr, mux)
	fmt.Printf("LISTENING http://%s%s\n", ln.Addr(), path)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.Shutdown() // listen streams end with their result first (SUB-11)
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
}
