// Command hello is a small, complete MCP server built with mcpgen: a tool
// with typed input and output, a resource, a resource template and a
// prompt. It serves stdio by default and Streamable HTTP with -http:
//
//	go run ./examples/hello                       # stdio
//	go run ./examples/hello -http 127.0.0.1:8080  # http://127.0.0.1:8080/mcp
//
// Both serve 2026-07-28 clients and 2025-11-25 ones (initialize), such as
// the MCP Inspector (Node 22.19 or later):
//
//	npx @modelcontextprotocol/inspector go run ./examples/hello
//
// or, with the HTTP server running, open the Inspector, choose the
// Streamable HTTP transport and connect to http://127.0.0.1:8080/mcp.
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
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// StatsIn is the input of the text_stats tool: its inputSchema is derived
// from this type when the tool is registered.
type StatsIn struct {
	Text string `json:"text" description:"The text to measure"`
	Top  int    `json:"top,omitempty" description:"How many frequent words to list (default 3)"`
}

// StatsOut is its output: the outputSchema is derived from this type, and
// every result is checked against it before it is sent.
type StatsOut struct {
	Words      int        `json:"words" description:"Number of words"`
	Characters int        `json:"characters" description:"Number of characters (runes)"`
	Longest    string     `json:"longest" description:"The longest word"`
	Frequent   []WordFreq `json:"frequent" description:"The most frequent words, most frequent first"`
	Empty      bool       `json:"empty" description:"Whether the text has no words"`
}

// WordFreq is a word and how often it occurs.
type WordFreq struct {
	Word  string `json:"word"`
	Count int    `json:"count"`
}

// textStats is the tool's handler: it returns a Go value, which the server
// encodes into structuredContent and a text block.
func textStats(ctx context.Context, req *server.ToolRequest, in StatsIn) (StatsOut, error) {
	if in.Top < 0 || in.Top > 50 {
		// A failure the model should see: an isError result.
		return StatsOut{}, server.ToolErrorf("top must be between 0 and 50, not %d", in.Top)
	}
	if in.Top == 0 {
		in.Top = 3
	}
	words := strings.FieldsFunc(strings.ToLower(in.Text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '\''
	})
	out := StatsOut{Words: len(words), Characters: utf8.RuneCountInString(in.Text), Frequent: []WordFreq{}, Empty: len(words) == 0}
	counts := map[string]int{}
	for _, w := range words {
		counts[w]++
		if utf8.RuneCountInString(w) > utf8.RuneCountInString(out.Longest) {
			out.Longest = w
		}
	}
	for w, n := range counts {
		out.Frequent = append(out.Frequent, WordFreq{Word: w, Count: n})
	}
	sort.Slice(out.Frequent, func(i, j int) bool {
		a, b := out.Frequent[i], out.Frequent[j]
		return a.Count > b.Count || a.Count == b.Count && a.Word < b.Word
	})
	if len(out.Frequent) > in.Top {
		out.Frequent = out.Frequent[:in.Top]
	}
	return out, nil
}

const readme = `# hello

A small MCP server built with mcpgen. Try the text_stats tool, read
hello://greeting/{name}, or get the summarize prompt.
`

// newServer registers everything the server offers.
func newServer(log *slog.Logger) (*server.Server, error) {
	s := server.New(mcp.Implementation{Name: "hello", Version: "1.0.0", Title: wire.Some("Hello, mcpgen")}, &server.Options{
		Instructions: "Measures texts (text_stats), greets by name (hello://greeting/{name}) and writes summary prompts (summarize).",
		Logger:       log,
	})
	err := errors.Join(
		server.AddTypedTool(s, mcp.Tool{
			Name:        "text_stats",
			Title:       wire.Some("Text statistics"),
			Description: wire.Some("Counts the words and characters of a text and lists its most frequent words."),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: wire.Some(true), OpenWorldHint: wire.Some(false)},
		}, textStats),

		s.AddResource(mcp.Resource{URI: "hello://readme", Name: "readme", MIMEType: wire.Some("text/markdown")},
			func(ctx context.Context, req *server.ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
				return []mcp.ReadResourceResultContentsItem{server.TextContents(req.URI, "text/markdown", readme)}, nil
			}),

		s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "hello://greeting/{name}", Name: "greeting", MIMEType: wire.Some("text/plain")},
			func(ctx context.Context, req *server.ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
				return []mcp.ReadResourceResultContentsItem{server.TextContents(req.URI, "text/plain", "Hello, "+req.Vars["name"]+"!")}, nil
			}),

		s.AddPrompt(mcp.Prompt{
			Name:        "summarize",
			Description: wire.Some("Asks for a summary of a text"),
			Arguments: []mcp.PromptArgument{
				{Name: "text", Description: wire.Some("The text to summarize"), Required: wire.Some(true)},
				{Name: "style", Description: wire.Some("For example: one sentence, bullet points")},
			},
		}, func(ctx context.Context, req *server.PromptRequest) (*mcp.GetPromptResult, error) {
			style := req.Arguments["style"]
			if style == "" {
				style = "one sentence"
			}
			return &mcp.GetPromptResult{
				Description: wire.Some("Summary in " + style),
				Messages:    []mcp.PromptMessage{server.UserMessage("Summarize this text in " + style + ":\n\n" + req.Arguments["text"])},
			}, nil
		}),
	)
	return s, err
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address (host:port) at /mcp instead of stdio")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil)) // never stdout: it carries the protocol on stdio
	s, err := newServer(log)
	if err != nil {
		log.Error("cannot register", "error", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *addr == "" {
		if err := s.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil && ctx.Err() == nil {
			log.Error("stdio", "error", err)
			os.Exit(1)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Error("listen", "error", err)
		os.Exit(1)
	}
	// Loopback Host and Origin values are always allowed; a server reached
	// under another name lists it in HTTPOptions.AllowedHosts.
	hs := server.NewHTTPServer(*addr, s.Mux("/mcp", nil))
	fmt.Fprintf(os.Stderr, "hello: serving MCP at http://%s/mcp\n", ln.Addr())
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("http", "error", err)
		os.Exit(1)
	}
}
