package main

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The client scenarios of --requirements 2025-11-25 that ask more of the
// client than listing tools. The client is the same as for 2026-07-28: it
// finds the mock servers legacy (they answer server/discover with an error
// or with something that is no DiscoverResult) and speaks 2025-11-25 to
// them.
var legacyScenarios = map[string]func(ctx context.Context, url string) error{
	// SEP-1034: accept the form without filling anything in; the client
	// runtime fills in the schema's defaults (LELIC-2).
	"elicitation-sep1034-client-defaults": func(ctx context.Context, url string) error {
		c, err := connect(ctx, url, &client.Options{Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept}, nil
		}})
		if err != nil {
			return err
		}
		defer c.Close()
		if err := listTools(ctx, c); err != nil {
			return err
		}
		_, err = c.CallTool(ctx, "test_client_elicitation_defaults", wire.Raw(`{}`))
		return err
	},
	// SEP-1699: the server closes the call's stream after a priming event
	// with retry: 500; the client waits that long, resumes with GET and
	// Last-Event-ID, and gets the result there (LSSE-5, LSSE-7).
	"sse-retry": func(ctx context.Context, url string) error {
		c, err := connect(ctx, url, &client.Options{})
		if err != nil {
			return err
		}
		defer c.Close()
		if err := listTools(ctx, c); err != nil {
			return err
		}
		r, err := c.CallTool(ctx, "test_reconnection", wire.Raw(`{}`))
		if err != nil {
			return err
		}
		if len(r.Content) == 0 {
			return fmt.Errorf("test_reconnection: an empty result")
		}
		return nil
	},
}
