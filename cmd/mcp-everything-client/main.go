// Command mcp-everything-client is the fixture MCP client of this
// repository, driven by the official conformance suite:
//
//	conformance client --command "mcp-everything-client" --requirements 2026-07-28
//
// With -discover, the auth scenarios connect with the default dual-era
// client, which finds the server's era by probing, instead of the client
// for the protocol version the suite names.
//
// The suite appends the server URL as the last argument and names the
// scenario in MCP_CONFORMANCE_SCENARIO (extra data, when a scenario has
// any, in MCP_CONFORMANCE_CONTEXT). The client runs what the scenario
// expects of a client and exits 0, or prints the error and exits 1.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// discover makes the auth scenarios find the era by probing (-discover).
var discover = flag.Bool("discover", false, "auth scenarios: find the server's era by probing, whatever MCP_CONFORMANCE_PROTOCOL_VERSION says")

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: mcp-everything-client [-discover] SERVER_URL (scenario in MCP_CONFORMANCE_SCENARIO)")
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	url := flag.Arg(0)
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, scenario, url, os.Getenv("MCP_CONFORMANCE_CONTEXT")); err != nil {
		fmt.Fprintf(os.Stderr, "mcp-everything-client: %s: %v\n", scenario, err)
		os.Exit(1)
	}
}

func connect(ctx context.Context, url string, opts *client.Options) (*client.Client, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if opts.Elicit == nil {
		opts.Elicit = acceptElicitation
	}
	opts.Sample = func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "fixture-model",
			Content: mcp.CreateMessageResultContent{TextContent: &mcp.TextContent{Text: "fixture reply"}}}, nil
	}
	opts.Roots = func(ctx context.Context) ([]mcp.Root, error) {
		return []mcp.Root{{URI: "file:///tmp/fixture-root", Name: wire.Some("fixture")}}, nil
	}
	return client.ConnectURL(ctx, url, mcp.Implementation{Name: "mcpgen-fixture-client", Version: "0.1.0"}, opts)
}

// acceptElicitation accepts with a value for every requested field.
func acceptElicitation(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	form := p.ElicitRequestFormParams
	if form == nil {
		return &mcp.ElicitResult{Action: mcp.ElicitResultActionDecline}, nil
	}
	content := map[string]mcp.ElicitResultContentValue{}
	for name, field := range form.RequestedSchema.Properties {
		var v mcp.ElicitResultContentValue
		switch {
		case field.BooleanSchema != nil:
			v.Boolean = wire.Some(true)
		case field.NumberSchema != nil:
			v.Number = wire.Some(42.0)
		default:
			v.String = wire.Some("fixture")
		}
		content[name] = v
	}
	return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: content}, nil
}

func run(ctx context.Context, scenario, url, rawContext string) error {
	if strings.HasPrefix(scenario, "auth/") {
		version := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")
		if *discover {
			version = ""
		}
		return runAuth(ctx, scenario, url, rawContext, version)
	}
	if run, ok := legacyScenarios[scenario]; ok { // legacy.go
		return run(ctx, url)
	}
	switch scenario {
	case "request-metadata":
		c, err := connect(ctx, url, &client.Options{})
		if err != nil {
			return err
		}
		if err := listTools(ctx, c); err != nil { // first request: -32022, retried
			return err
		}
		_, err = c.Discover(ctx)
		return err
	case "tools_call":
		c, err := connect(ctx, url, &client.Options{})
		if err != nil {
			return err
		}
		if err := listTools(ctx, c); err != nil {
			return err
		}
		_, err = c.CallTool(ctx, "add_numbers", wire.Raw(`{"a":2,"b":3}`))
		return err
	case "sep-2322-client-request-state":
		return requestState(ctx, url)
	case "http-standard-headers":
		return standardHeaders(ctx, url)
	case "http-custom-headers":
		return customHeaders(ctx, url, rawContext)
	case "http-invalid-tool-headers":
		c, err := connect(ctx, url, &client.Options{})
		if err != nil {
			return err
		}
		if err := listTools(ctx, c); err != nil { // invalid tools are dropped here (XMH-6)
			return err
		}
		_, err = c.CallTool(ctx, "valid_tool", wire.Raw(`{"region":"us-west1"}`))
		return err
	case "json-schema-2020-12-preservation":
		c, err := connect(ctx, url, &client.Options{})
		if err != nil {
			return err
		}
		var schema wire.Raw
		for t, err := range c.ListTools(ctx) {
			if err != nil {
				return err
			}
			if t.Name == "json_schema_2020_12_tool" {
				schema = t.InputSchema
			}
		}
		if schema == nil {
			return errors.New("json_schema_2020_12_tool is not listed")
		}
		_, err = c.CallTool(ctx, "json_schema_echo", wire.Raw(`{"schema":`+string(schema)+`}`))
		return err
	default: // json-schema-ref-no-deref and anything new: list the tools
		c, err := connect(ctx, url, &client.Options{})
		if err != nil {
			return err
		}
		return listTools(ctx, c)
	}
}

func listTools(ctx context.Context, c *client.Client) error {
	for _, err := range c.ListTools(ctx) {
		if err != nil {
			return err
		}
	}
	return nil
}

// requestState calls the MRTR tools; the unrelated call happens while
// test_mrtr_echo_state waits for input, so its isolation is tested.
func requestState(ctx context.Context, url string) error {
	var c *client.Client
	unrelatedDone := false
	opts := &client.Options{Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		if !unrelatedDone {
			unrelatedDone = true
			if _, err := c.CallTool(ctx, "test_mrtr_unrelated", wire.Raw(`{}`)); err != nil {
				return nil, err
			}
		}
		return acceptElicitation(ctx, p)
	}}
	var err error
	if c, err = connect(ctx, url, opts); err != nil {
		return err
	}
	if err := listTools(ctx, c); err != nil {
		return err
	}
	for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_no_result_type"} {
		if _, err := c.CallTool(ctx, name, wire.Raw(`{}`)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func standardHeaders(ctx context.Context, url string) error {
	c, err := connect(ctx, url, &client.Options{})
	if err != nil {
		return err
	}
	var tool string
	for t, err := range c.ListTools(ctx) {
		if err != nil {
			return err
		}
		if tool == "" {
			tool = t.Name
		}
	}
	if tool != "" {
		if _, err := c.CallTool(ctx, tool, wire.Raw(`{}`)); err != nil {
			return err
		}
	}
	var uri string
	for r, err := range c.ListResources(ctx) {
		if err != nil {
			return err
		}
		if uri == "" {
			uri = r.URI
		}
	}
	if uri != "" {
		if _, err := c.ReadResource(ctx, uri); err != nil {
			return err
		}
	}
	var prompt string
	for p, err := range c.ListPrompts(ctx) {
		if err != nil {
			return err
		}
		if prompt == "" {
			prompt = p.Name
		}
	}
	if prompt != "" {
		if _, err := c.GetPrompt(ctx, prompt, nil); err != nil {
			return err
		}
	}
	return nil
}

// customHeaders makes exactly the calls the scenario's context lists.
func customHeaders(ctx context.Context, url, rawContext string) error {
	var sc struct {
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
	}
	if err := json.Unmarshal([]byte(rawContext), &sc); err != nil {
		return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	c, err := connect(ctx, url, &client.Options{})
	if err != nil {
		return err
	}
	if err := listTools(ctx, c); err != nil {
		return err
	}
	for _, call := range sc.ToolCalls {
		if _, err := c.CallTool(ctx, call.Name, wire.Raw(call.Arguments)); err != nil {
			return fmt.Errorf("%s: %w", call.Name, err)
		}
	}
	return nil
}
