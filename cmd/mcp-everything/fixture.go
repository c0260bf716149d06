package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// fixture is the state the fixture's tools share.
type fixture struct {
	s *server.Server

	mu            sync.Mutex
	slowStarted   int
	slowCancelled int
	dynamic       []string
}

func newFixture(log *slog.Logger) *server.Server {
	s := server.New(mcp.Implementation{Name: "mcp-everything", Version: "0.1.0"}, &server.Options{
		Instructions: "mcpgen fixture server: every tool, prompt and resource the conformance suite and interop tests use.",
		Logging:      true,
		Logger:       log,
		Tasks:        &server.TaskOptions{PollInterval: 500 * time.Millisecond},
	})
	f := &fixture{s: s}
	f.conformanceTools() // first: the suite calls tools[0] and reads resources[0]
	f.conformancePrompts()
	f.conformanceResources()
	f.legacyConformanceTools()
	f.interopTools()
	f.interopPrompts()
	f.interopResources()
	f.taskTools()
	s.SetCompletion(f.complete)
	return s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func text(s string) mcp.ContentBlock {
	return mcp.ContentBlock{TextContent: &mcp.TextContent{Text: s}}
}

// interopTools is the surface the TypeScript SDK interop client checks.
func (f *fixture) interopTools() {
	s := f.s
	type echoArgs struct {
		Message string `json:"message"`
	}
	must(server.AddTypedTool(s, mcp.Tool{Name: "echo", Title: wire.Some("Echo"), Description: wire.Some("Echoes the message back")},
		func(ctx context.Context, req *server.ToolRequest, a echoArgs) (*mcp.CallToolResult, error) {
			return server.TextResult("echo: " + a.Message), nil
		}))

	type addArgs struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	must(server.AddTypedTool(s, mcp.Tool{Name: "add", Description: wire.Some("Adds two numbers (structured output)"),
		OutputSchema: wire.Raw(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`)},
		func(ctx context.Context, req *server.ToolRequest, a addArgs) (*mcp.CallToolResult, error) {
			return server.StructuredResult(map[string]float64{"sum": a.A + a.B})
		}))

	must(s.AddTool(mcp.Tool{Name: "fail", Description: wire.Some("Always returns a tool error"), InputSchema: wire.Raw(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return server.ErrorResult("this tool always fails"), nil
		}))

	must(s.AddTool(mcp.Tool{Name: "progress", Description: wire.Some("Sends progress notifications, then completes"),
		InputSchema: wire.Raw(`{"type":"object","properties":{"steps":{"type":"integer","minimum":1,"maximum":20,"default":3}}}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Steps int `json:"steps"`
			}
			if err := decodeArgs(req.Arguments, &a); err != nil {
				return nil, err
			}
			if a.Steps == 0 {
				a.Steps = 3
			}
			for i := 1; i <= a.Steps; i++ {
				req.Progress(float64(i), float64(a.Steps), fmt.Sprintf("step %d of %d", i, a.Steps))
				time.Sleep(10 * time.Millisecond)
			}
			return server.TextResult(fmt.Sprintf("done after %d steps", a.Steps)), nil
		}))

	must(s.AddTool(mcp.Tool{Name: "slow", Description: wire.Some("Waits ms milliseconds, or until cancelled"),
		InputSchema: wire.Raw(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"default":10000}}}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				MS int `json:"ms"`
			}
			if err := decodeArgs(req.Arguments, &a); err != nil {
				return nil, err
			}
			if a.MS == 0 {
				a.MS = 10000
			}
			f.mu.Lock()
			f.slowStarted++
			f.mu.Unlock()
			select {
			case <-time.After(time.Duration(a.MS) * time.Millisecond):
				return server.TextResult("slept"), nil
			case <-ctx.Done():
				f.mu.Lock()
				f.slowCancelled++
				f.mu.Unlock()
				return nil, ctx.Err()
			}
		}))

	must(s.AddTool(mcp.Tool{Name: "stats", Description: wire.Some("Counters of the slow and add_tool tools"), InputSchema: wire.Raw(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			return server.StructuredResult(map[string]any{"slowStarted": f.slowStarted, "slowCancelled": f.slowCancelled, "dynamicTools": f.dynamic})
		}))

	must(s.AddTool(mcp.Tool{Name: "header_echo", Description: wire.Some("Echoes its region argument, which travels in the Mcp-Param-Region header"),
		InputSchema: wire.Raw(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Region string `json:"region"`
			}
			if err := decodeArgs(req.Arguments, &a); err != nil {
				return nil, err
			}
			return server.TextResult("region=" + a.Region), nil
		}))

	must(s.AddTool(mcp.Tool{Name: "ask_name", Description: wire.Some("Asks the user for a name (elicitation)"), InputSchema: wire.Raw(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			r, err := req.Elicit("name", elicitForm("What is your name?", map[string]string{"name": "string"}))
			if err != nil {
				return nil, err
			}
			if r.Action != mcp.ElicitResultActionAccept {
				return server.TextResult("elicitation " + string(r.Action)), nil
			}
			return server.TextResult("Hello, " + contentString(r, "name") + "!"), nil
		}))

	type sampleArgs struct {
		Prompt string `json:"prompt"`
	}
	must(server.AddTypedTool(s, mcp.Tool{Name: "sample", Description: wire.Some("Asks the client's model (sampling)")},
		func(ctx context.Context, req *server.ToolRequest, a sampleArgs) (*mcp.CallToolResult, error) {
			r, err := req.Sample("llm", sampling(a.Prompt))
			if err != nil {
				return nil, err
			}
			return server.TextResult("model " + r.Model + " said: " + samplingText(r)), nil
		}))

	must(s.AddTool(mcp.Tool{Name: "list_roots", Description: wire.Some("Lists the client's roots"), InputSchema: wire.Raw(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			r, err := req.Roots("roots")
			if err != nil {
				return nil, err
			}
			return server.TextResult("roots: " + rootURIs(r)), nil
		}))

	must(s.AddTool(mcp.Tool{Name: "multi_round", Description: wire.Some("Two rounds of input: a name, then a completion and the roots"), InputSchema: wire.Raw(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			who, err := req.Elicit("name", elicitForm("Who is asking?", map[string]string{"name": "string"}))
			if err != nil {
				return nil, err
			}
			name := contentString(who, "name")
			llm, errS := req.Sample("llm", sampling("Greet "+name))
			roots, errR := req.Roots("roots")
			for _, err := range []error{errS, errR} {
				if err != nil {
					return nil, err
				}
			}
			return server.TextResult("name=" + name + "; llm=" + samplingText(llm) + "; roots=" + rootURIs(roots)), nil
		}))

	must(s.AddTool(mcp.Tool{Name: "add_tool", Description: wire.Some("Registers a new tool, which notifies tools/list_changed listeners"), InputSchema: wire.Raw(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			f.mu.Lock()
			name := fmt.Sprintf("dynamic_%d", len(f.dynamic)+1)
			f.dynamic = append(f.dynamic, name)
			f.mu.Unlock()
			err := s.AddTool(mcp.Tool{Name: name, Description: wire.Some("Added by add_tool"), InputSchema: wire.Raw(`{"type":"object"}`)},
				func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
					return server.TextResult(name + " called"), nil
				})
			if err != nil {
				return nil, err
			}
			return server.TextResult("added " + name), nil
		}))

	must(s.AddTool(mcp.Tool{Name: "touch_resource", Description: wire.Some("Notifies subscribers that test://static changed"), InputSchema: wire.Raw(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			s.NotifyResourceUpdated("test://static")
			return server.TextResult("touched test://static"), nil
		}))
}

func (f *fixture) interopPrompts() {
	must(f.s.AddPrompt(mcp.Prompt{Name: "greet", Description: wire.Some("Greets someone"),
		Arguments: []mcp.PromptArgument{{Name: "name", Required: wire.Some(true)}}},
		func(ctx context.Context, req *server.PromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{server.UserMessage("Please greet " + req.Arguments["name"])}}, nil
		}))
	must(f.s.AddPrompt(mcp.Prompt{Name: "confirm_prompt", Description: wire.Some("Asks the user for a topic first (elicitation)")},
		func(ctx context.Context, req *server.PromptRequest) (*mcp.GetPromptResult, error) {
			r, err := req.Elicit("topic", elicitForm("Which topic?", map[string]string{"topic": "string"}))
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{server.UserMessage("Talk about " + contentString(r, "topic"))}}, nil
		}))
}

func (f *fixture) interopResources() {
	must(f.s.AddResource(mcp.Resource{URI: "test://static", Name: "static", MIMEType: wire.Some("text/plain")},
		func(ctx context.Context, req *server.ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
			return []mcp.ReadResourceResultContentsItem{server.TextContents(req.URI, "text/plain", "static content")}, nil
		}))
	must(f.s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "items", MIMEType: wire.Some("application/json")},
		func(ctx context.Context, req *server.ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
			raw, err := wire.RawOf(map[string]string{"id": req.Vars["id"]})
			if err != nil {
				return nil, err
			}
			return []mcp.ReadResourceResultContentsItem{server.TextContents(req.URI, "application/json", string(raw))}, nil
		}))
}

// complete suggests prompt and template arguments.
func (f *fixture) complete(ctx context.Context, req *server.CompletionRequest) (*mcp.CompleteResultCompletion, error) {
	p := req.Params
	var pool []string
	switch {
	case p.Ref.PromptReference != nil && p.Ref.PromptReference.Name == "greet" && p.Argument.Name == "name":
		pool = []string{"alice", "albert", "bob", "carol"}
	case p.Ref.ResourceTemplateReference != nil && p.Ref.ResourceTemplateReference.URI == "test://items/{id}" && p.Argument.Name == "id":
		pool = []string{"1", "2", "10", "42"}
	}
	out := &mcp.CompleteResultCompletion{Values: []string{}}
	for _, v := range pool {
		if strings.HasPrefix(v, p.Argument.Value) {
			out.Values = append(out.Values, v)
		}
	}
	out.Total = wire.Some(int64(len(out.Values)))
	out.HasMore = wire.Some(false)
	return out, nil
}
