package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestHello builds the example and drives the binary over stdio and
// Streamable HTTP, with a 2026-07-28 client and with a 2025-11-25 one (as
// the MCP Inspector is), through everything it offers.
func TestHello(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example")
	}
	bin := filepath.Join(t.TempDir(), "hello")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	info := mcp.Implementation{Name: "hello-test", Version: "1"}
	modern := &client.Options{Versions: []string{mcp.ProtocolVersion}}
	legacy := &client.Options{Versions: []string{"2025-11-25"}}

	for _, o := range []struct {
		name string
		opts *client.Options
	}{{"modern", modern}, {"legacy", legacy}} {
		t.Run("stdio/"+o.name, func(t *testing.T) {
			c, err := client.ConnectCommand(t.Context(), exec.Command(bin), info, o.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			drive(t, c)
		})
	}

	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "serving MCP at "); ok {
				url <- u
			}
		}
	}()
	var endpoint string
	select {
	case endpoint = <-url:
	case <-time.After(30 * time.Second):
		t.Fatal("the HTTP server did not say where it listens")
	}
	for _, o := range []struct {
		name string
		opts *client.Options
	}{{"modern", modern}, {"legacy", legacy}} {
		t.Run("http/"+o.name, func(t *testing.T) {
			c, err := client.ConnectURL(t.Context(), endpoint, info, o.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			drive(t, c)
		})
	}
}

// drive lists and uses every tool, resource, template and prompt.
func drive(t *testing.T, c *client.Client) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var tools []string
	for tl, err := range c.ListTools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tl.Name)
		if tl.Name == "text_stats" && (tl.OutputSchema == nil || !strings.Contains(string(tl.InputSchema), `"text"`)) {
			t.Errorf("text_stats: inputSchema %s, outputSchema %s", tl.InputSchema, tl.OutputSchema)
		}
	}
	if !reflect.DeepEqual(tools, []string{"text_stats"}) {
		t.Errorf("tools: %v", tools)
	}

	res, err := c.CallTool(ctx, "text_stats", wire.Raw(`{"text":"the cat and the hat and the bat","top":2}`))
	if err != nil {
		t.Fatal(err)
	}
	var out StatsOut
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		t.Fatal(err)
	}
	want := StatsOut{Words: 8, Characters: 31, Longest: "the", Frequent: []WordFreq{{"the", 3}, {"and", 2}}}
	if !reflect.DeepEqual(out, want) || res.IsError.Value || len(res.Content) != 1 || res.Content[0].TextContent == nil {
		t.Errorf("text_stats: %+v (%s), want %+v", out, res.StructuredContent, want)
	}
	if res, err := c.CallTool(ctx, "text_stats", wire.Raw(`{"text":"x","top":99}`)); err != nil || !res.IsError.Value {
		t.Errorf("top 99: %v %v, want an isError result", res, err)
	}
	if res, err := c.CallTool(ctx, "text_stats", wire.Raw(`{"top":1}`)); err != nil || !res.IsError.Value {
		t.Errorf("no text: %v %v, want an isError result", res, err)
	}

	for uri, want := range map[string]string{"hello://readme": "# hello", "hello://greeting/Ada": "Hello, Ada!"} {
		r, err := c.ReadResource(ctx, uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if len(r.Contents) != 1 || r.Contents[0].TextResourceContents == nil || !strings.HasPrefix(r.Contents[0].TextResourceContents.Text, want) {
			t.Errorf("%s: %+v", uri, r.Contents)
		}
	}
	var templates []string
	for tpl, err := range c.ListResourceTemplates(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, tpl.URITemplate)
	}
	if !reflect.DeepEqual(templates, []string{"hello://greeting/{name}"}) {
		t.Errorf("templates: %v", templates)
	}

	p, err := c.GetPrompt(ctx, "summarize", map[string]string{"text": "Go is fun.", "style": "bullet points"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 1 || p.Messages[0].Content.TextContent == nil || !strings.Contains(p.Messages[0].Content.TextContent.Text, "bullet points:\n\nGo is fun.") {
		t.Errorf("summarize: %+v", p.Messages)
	}
	if _, err := c.GetPrompt(ctx, "summarize", nil); err == nil {
		t.Errorf("summarize without its text: no error")
	}
}
