package bench

// Hot paths of mcpgen beside their floors, in one run:
//
//   - BenchmarkStdio: sequential tools/call to a stdio server in a child
//     process (this test binary re-executed as the server). The floor is a
//     child that answers each request line with a pre-encoded response
//     line, and a client that writes a pre-encoded request line and reads
//     one line: the cost of the pipes and the process, without MCP.
//   - BenchmarkList: tools/list of a server with 1,000 tools over
//     Streamable HTTP, against the HTTP floor replaying mcpgen's exchange.
//
// The code uses only API that predates the refactoring it measures, so the
// same file runs against an older checkout for a before/after comparison.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

const childEnv = "MCPGEN_BENCH_CHILD" // "mcpgen" or "floor": run as a stdio server

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "mcpgen":
		s := newMcpgenServer(nil)
		if err := s.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "floor":
		os.Exit(serveFloorStdio())
	}
	os.Exit(m.Run())
}

// stdioReply is the response the floor child writes for every request: the
// response mcpgen's server gives to the benchmark call (id 2, the second
// request after the connection probe), as one line.
const stdioReply = `{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"3","type":"text"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1.0.0"}}}}` + "\n"

func serveFloorStdio() int {
	br := bufio.NewReaderSize(os.Stdin, 64<<10)
	w := bufio.NewWriter(os.Stdout)
	for {
		if _, err := br.ReadSlice('\n'); err != nil {
			return 0
		}
		if _, err := w.WriteString(stdioReply); err != nil || w.Flush() != nil {
			return 1
		}
	}
}

func child(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	cmd.Stderr = os.Stderr
	return cmd
}

// stdioSetup is one connected stdio client; call makes one tools/call and
// returns the result text (the floor returns "" but its check decodes).
type stdioSetup struct {
	call  func(ctx context.Context) (string, error)
	check func(ctx context.Context) (string, error)
	close func()
}

func setupMcpgenStdio(tb testing.TB) *stdioSetup {
	ctx := context.Background()
	c, err := client.ConnectCommand(ctx, child("mcpgen"), mcp.Implementation{Name: "bench-client", Version: "1.0.0"}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	args := wire.Raw(e2eArgs)
	return &stdioSetup{
		call: func(ctx context.Context) (string, error) {
			r, err := c.CallTool(ctx, e2eTool, args)
			return mcpgenText(r), err
		},
		close: func() { _ = c.Close() },
	}
}

func setupFloorStdio(tb testing.TB) *stdioSetup {
	cmd := child("floor")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	req := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.0.0"}},"name":"add","arguments":{"a":1,"b":2}}}` + "\n")
	br := bufio.NewReaderSize(stdout, 64<<10)
	var last []byte
	call := func(ctx context.Context) (string, error) {
		if _, err := stdin.Write(req); err != nil {
			return "", err
		}
		line, err := br.ReadSlice('\n')
		last = line
		return "", err
	}
	return &stdioSetup{
		call: call,
		check: func(ctx context.Context) (string, error) {
			if _, err := call(ctx); err != nil {
				return "", err
			}
			var m struct {
				Result struct {
					Content []struct{ Text string } `json:"content"`
				} `json:"result"`
			}
			if err := json.Unmarshal(last, &m); err != nil || len(m.Result.Content) == 0 {
				return "", fmt.Errorf("floor: reply %q: %v", last, err)
			}
			return m.Result.Content[0].Text, nil
		},
		close: func() { _ = stdin.Close(); _ = cmd.Wait() },
	}
}

var stdioImpls = []struct {
	name  string
	setup func(tb testing.TB) *stdioSetup
}{{"mcpgen", setupMcpgenStdio}, {"floor", setupFloorStdio}}

func checkStdio(tb testing.TB, name string, s *stdioSetup) {
	tb.Helper()
	call := s.call
	if s.check != nil {
		call = s.check
	}
	got, err := call(context.Background())
	if err != nil || got != e2eWant {
		tb.Fatalf("%s: tools/call over stdio: %q, %v; want %q", name, got, err, e2eWant)
	}
}

func TestStdio(t *testing.T) {
	for _, m := range stdioImpls {
		t.Run("impl="+m.name, func(t *testing.T) {
			s := m.setup(t)
			defer s.close()
			for range 3 {
				checkStdio(t, m.name, s)
			}
		})
	}
}

func BenchmarkStdio(b *testing.B) {
	for _, m := range stdioImpls {
		b.Run("toolsCall/impl="+m.name, func(b *testing.B) {
			s := m.setup(b)
			defer s.close()
			checkStdio(b, m.name, s)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := s.call(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// ---- tools/list of 1,000 tools over Streamable HTTP ----

const listTools = 1000

// newListServer registers listTools tools shaped like the codec payload's
// (name, title, description, a small inputSchema); the page holds them all.
func newListServer(tb testing.TB) *server.Server {
	s := server.New(mcp.Implementation{Name: "bench", Version: "1.0.0"}, &server.Options{PageSize: listTools})
	for i := range listTools {
		n := strconv.Itoa(i)
		err := s.AddTool(mcp.Tool{
			Name:        "tool_" + n,
			Title:       wire.Some("Tool " + n),
			Description: wire.Some("Looks up record " + n + " in the inventory and returns its fields."),
			InputSchema: wire.Raw(`{"type":"object","properties":{"id":{"type":"string","description":"Record id"},"limit":{"type":"integer","minimum":1}},"required":["id"]}`),
		}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return server.TextResult(n), nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

type listSetup struct {
	list  func(ctx context.Context) (int, error)
	close func()
}

func setupMcpgenList(tb testing.TB) *listSetup {
	srv := newE2EServer(newListServer(tb).Handler(nil))
	hc := e2eHTTPClient()
	c, err := client.ConnectURL(context.Background(), srv.url(), mcp.Implementation{Name: "bench-client", Version: "1.0.0"},
		&client.Options{HTTPClient: hc, DisableCache: true})
	if err != nil {
		tb.Fatal(err)
	}
	return &listSetup{
		list: func(ctx context.Context) (int, error) {
			r, err := c.ListToolsPage(ctx, nil)
			if err != nil {
				return 0, err
			}
			return len(r.Tools), nil
		},
		close: func() { _ = c.Close(); hc.CloseIdleConnections(); srv.Close() },
	}
}

// setupFloorList replays mcpgen's tools/list exchange with no MCP at all.
func setupFloorList(tb testing.TB) *listSetup {
	srv := newE2EServer(newListServer(tb).Handler(nil))
	hc := e2eHTTPClient()
	rec := &recorder{next: hc.Transport}
	c, err := client.ConnectURL(context.Background(), srv.url(), mcp.Implementation{Name: "bench-client", Version: "1.0.0"},
		&client.Options{HTTPClient: &http.Client{Transport: rec}, DisableCache: true})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := c.ListToolsPage(context.Background(), nil); err != nil {
		tb.Fatal(err)
	}
	_ = c.Close()
	srv.Close()
	x := rec.last
	floor := newE2EServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		w.Header().Set("Content-Type", x.respType)
		_, _ = w.Write(x.respBody)
	}))
	url := floor.url()
	return &listSetup{
		list: func(ctx context.Context) (int, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(x.reqBody))
			if err != nil {
				return 0, err
			}
			req.Header = x.reqHeader
			resp, err := hc.Do(req)
			if err != nil {
				return 0, err
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return 0, err
			}
			if !bytes.Equal(body, x.respBody) {
				return 0, errors.New("floor: response differs from the recorded one")
			}
			return strings.Count(string(body), `"name":"tool_`), nil
		},
		close: func() { hc.CloseIdleConnections(); floor.Close() },
	}
}

var listImpls = []struct {
	name  string
	setup func(tb testing.TB) *listSetup
}{{"mcpgen", setupMcpgenList}, {"floor", setupFloorList}}

func TestList(t *testing.T) {
	for _, m := range listImpls {
		t.Run("impl="+m.name, func(t *testing.T) {
			s := m.setup(t)
			defer s.close()
			if n, err := s.list(context.Background()); err != nil || n != listTools {
				t.Fatalf("%s: tools/list: %d tools, %v; want %d", m.name, n, err, listTools)
			}
		})
	}
}

func BenchmarkList(b *testing.B) {
	for _, m := range listImpls {
		b.Run("tools1000/impl="+m.name, func(b *testing.B) {
			s := m.setup(b)
			defer s.close()
			ctx := context.Background()
			if n, err := s.list(ctx); err != nil || n != listTools {
				b.Fatalf("%s: tools/list: %d tools, %v", m.name, n, err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := s.list(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
