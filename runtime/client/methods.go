package client

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Discover calls server/discover (optional, DISC-4).
func (c *Client) Discover(ctx context.Context, opts ...CallOption) (*mcp.DiscoverResult, error) {
	o := buildOptions(opts)
	var r mcp.DiscoverResult
	if c.cache.get(mcp.MethodDiscover, "", &r) {
		return &r, nil
	}
	p := &mcp.RequestParams{}
	if err := c.call(ctx, o, mcp.MethodDiscover, p, func(m mcp.RequestMetaObject) { p.Meta = m }, "", &r); err != nil {
		return nil, err
	}
	c.cache.put(mcp.MethodDiscover, "", r.TTLMs, r.CacheScope, &r)
	return &r, nil
}

// cursorKey is the cache parameter of a page.
func cursorKey(cursor *string) string {
	if cursor == nil {
		return ""
	}
	return "c" + *cursor
}

func paginated(cursor *string) *mcp.PaginatedRequestParams {
	p := &mcp.PaginatedRequestParams{}
	if cursor != nil { // "" is a real cursor (PAG-2)
		p.Cursor = wire.Some(*cursor)
	}
	return p
}

// ListToolsPage fetches one page of tools/list; cursor nil asks for the
// first page. On Streamable HTTP, tools with invalid x-mcp-header
// annotations are dropped from the result (XMH-6).
func (c *Client) ListToolsPage(ctx context.Context, cursor *string, opts ...CallOption) (*mcp.ListToolsResult, error) {
	o := buildOptions(opts)
	var r mcp.ListToolsResult
	if !c.cache.get(mcp.MethodListTools, cursorKey(cursor), &r) {
		p := paginated(cursor)
		if err := c.call(ctx, o, mcp.MethodListTools, p, func(m mcp.RequestMetaObject) { p.Meta = m }, "", &r); err != nil {
			return nil, err
		}
		c.cache.put(mcp.MethodListTools, cursorKey(cursor), r.TTLMs, r.CacheScope, &r)
	}
	r.Tools = c.learnTools(r.Tools)
	return &r, nil
}

// pages turns a page function into an iterator over all items (PAG-3: a
// missing nextCursor ends the list).
func pages[T any](ctx context.Context, page func(cursor *string) ([]T, wire.Opt[string], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var cursor *string
		for n := 0; ; n++ {
			items, next, err := page(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if !next.Set {
				return
			}
			if n > 10000 {
				var zero T
				yield(zero, errors.New("client: more than 10000 pages; the server's cursors do not end"))
				return
			}
			cursor = &next.Value
		}
	}
}

// ListTools iterates over every tool, page by page.
func (c *Client) ListTools(ctx context.Context, opts ...CallOption) iter.Seq2[mcp.Tool, error] {
	return pages(ctx, func(cursor *string) ([]mcp.Tool, wire.Opt[string], error) {
		r, err := c.ListToolsPage(ctx, cursor, opts...)
		if err != nil {
			return nil, wire.Opt[string]{}, err
		}
		return r.Tools, r.NextCursor, nil
	})
}

// ListPromptsPage fetches one page of prompts/list.
func (c *Client) ListPromptsPage(ctx context.Context, cursor *string, opts ...CallOption) (*mcp.ListPromptsResult, error) {
	o := buildOptions(opts)
	var r mcp.ListPromptsResult
	if c.cache.get(mcp.MethodListPrompts, cursorKey(cursor), &r) {
		return &r, nil
	}
	p := paginated(cursor)
	if err := c.call(ctx, o, mcp.MethodListPrompts, p, func(m mcp.RequestMetaObject) { p.Meta = m }, "", &r); err != nil {
		return nil, err
	}
	c.cache.put(mcp.MethodListPrompts, cursorKey(cursor), r.TTLMs, r.CacheScope, &r)
	return &r, nil
}

// ListPrompts iterates over every prompt.
func (c *Client) ListPrompts(ctx context.Context, opts ...CallOption) iter.Seq2[mcp.Prompt, error] {
	return pages(ctx, func(cursor *string) ([]mcp.Prompt, wire.Opt[string], error) {
		r, err := c.ListPromptsPage(ctx, cursor, opts...)
		if err != nil {
			return nil, wire.Opt[string]{}, err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// ListResourcesPage fetches one page of resources/list.
func (c *Client) ListResourcesPage(ctx context.Context, cursor *string, opts ...CallOption) (*mcp.ListResourcesResult, error) {
	o := buildOptions(opts)
	var r mcp.ListResourcesResult
	if c.cache.get(mcp.MethodListResources, cursorKey(cursor), &r) {
		return &r, nil
	}
	p := paginated(cursor)
	if err := c.call(ctx, o, mcp.MethodListResources, p, func(m mcp.RequestMetaObject) { p.Meta = m }, "", &r); err != nil {
		return nil, err
	}
	c.cache.put(mcp.MethodListResources, cursorKey(cursor), r.TTLMs, r.CacheScope, &r)
	return &r, nil
}

// ListResources iterates over every resource.
func (c *Client) ListResources(ctx context.Context, opts ...CallOption) iter.Seq2[mcp.Resource, error] {
	return pages(ctx, func(cursor *string) ([]mcp.Resource, wire.Opt[string], error) {
		r, err := c.ListResourcesPage(ctx, cursor, opts...)
		if err != nil {
			return nil, wire.Opt[string]{}, err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ListResourceTemplatesPage fetches one page of resources/templates/list.
func (c *Client) ListResourceTemplatesPage(ctx context.Context, cursor *string, opts ...CallOption) (*mcp.ListResourceTemplatesResult, error) {
	o := buildOptions(opts)
	var r mcp.ListResourceTemplatesResult
	if c.cache.get(mcp.MethodListResourceTemplates, cursorKey(cursor), &r) {
		return &r, nil
	}
	p := paginated(cursor)
	if err := c.call(ctx, o, mcp.MethodListResourceTemplates, p, func(m mcp.RequestMetaObject) { p.Meta = m }, "", &r); err != nil {
		return nil, err
	}
	c.cache.put(mcp.MethodListResourceTemplates, cursorKey(cursor), r.TTLMs, r.CacheScope, &r)
	return &r, nil
}

// ListResourceTemplates iterates over every resource template.
func (c *Client) ListResourceTemplates(ctx context.Context, opts ...CallOption) iter.Seq2[mcp.ResourceTemplate, error] {
	return pages(ctx, func(cursor *string) ([]mcp.ResourceTemplate, wire.Opt[string], error) {
		r, err := c.ListResourceTemplatesPage(ctx, cursor, opts...)
		if err != nil {
			return nil, wire.Opt[string]{}, err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
}

// Complete calls completion/complete; p.Meta is filled in.
func (c *Client) Complete(ctx context.Context, p *mcp.CompleteRequestParams, opts ...CallOption) (*mcp.CompleteResult, error) {
	o := buildOptions(opts)
	var r mcp.CompleteResult
	if err := c.call(ctx, o, mcp.MethodComplete, p, func(m mcp.RequestMetaObject) { p.Meta = m }, "", &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// CallTool calls a tool. arguments is a JSON object (nil for none); use
// wire.RawOf to encode a Go value. Input requests are answered through the
// Options callbacks and the call retried (MRTR).
func (c *Client) CallTool(ctx context.Context, name string, arguments wire.Raw, opts ...CallOption) (*mcp.CallToolResult, error) {
	o := buildOptions(opts)
	p := &mcp.CallToolRequestParams{Name: name, Arguments: arguments}
	if c.t.http() {
		c.mu.Lock()
		known := c.toolKnown[name]
		c.mu.Unlock()
		if !known {
			// The tool's x-mcp-header parameters come from its definition.
			c.refreshTools(ctx)
			c.mu.Lock()
			c.toolKnown[name] = true // listed or not: do not list again for it (XMH-8 covers changes)
			c.mu.Unlock()
		}
	}
	var res *mcp.CallToolResult
	err := c.roundTrips(ctx, o, mcp.MethodCallTool, name, &p.InputResponses, &p.RequestState, func(m mcp.RequestMetaObject) { p.Meta = m },
		func(ctx context.Context) (*mcp.InputRequiredResult, error) {
			var r mcp.CallToolResultResponseResult
			err := c.call(ctx, o, mcp.MethodCallTool, p, func(m mcp.RequestMetaObject) { p.Meta = m }, name, &r)
			var rpc *wire.Error
			if errors.As(err, &rpc) && rpc.Code == mcp.CodeHeaderMismatch && c.t.http() {
				// XMH-8: the tool may have changed; re-fetch and retry once.
				c.refreshTools(ctx)
				r = mcp.CallToolResultResponseResult{}
				err = c.call(ctx, o, mcp.MethodCallTool, p, func(m mcp.RequestMetaObject) { p.Meta = m }, name, &r)
			}
			if err != nil {
				return nil, err
			}
			res = r.CallToolResult
			return r.InputRequiredResult, nil
		})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (c *Client) refreshTools(ctx context.Context) {
	c.cache.invalidate(mcp.MethodListTools, "")
	for _, err := range c.ListTools(ctx) {
		if err != nil {
			c.log.Warn("cannot list tools to learn their headers", "error", err.Error())
			return
		}
	}
}

// GetPrompt gets a prompt, answering input requests as CallTool does.
func (c *Client) GetPrompt(ctx context.Context, name string, arguments map[string]string, opts ...CallOption) (*mcp.GetPromptResult, error) {
	o := buildOptions(opts)
	p := &mcp.GetPromptRequestParams{Name: name, Arguments: arguments}
	var res *mcp.GetPromptResult
	err := c.roundTrips(ctx, o, mcp.MethodGetPrompt, name, &p.InputResponses, &p.RequestState, func(m mcp.RequestMetaObject) { p.Meta = m },
		func(ctx context.Context) (*mcp.InputRequiredResult, error) {
			var r mcp.GetPromptResultResponseResult
			if err := c.call(ctx, o, mcp.MethodGetPrompt, p, func(m mcp.RequestMetaObject) { p.Meta = m }, name, &r); err != nil {
				return nil, err
			}
			res = r.GetPromptResult
			return r.InputRequiredResult, nil
		})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// ReadResource reads a resource, answering input requests as CallTool
// does. First-round results are cached per their hints; results of
// retried requests are not (MRTR-14).
func (c *Client) ReadResource(ctx context.Context, uri string, opts ...CallOption) (*mcp.ReadResourceResult, error) {
	o := buildOptions(opts)
	var cached mcp.ReadResourceResult
	if c.cache.get(mcp.MethodReadResource, uri, &cached) {
		return &cached, nil
	}
	p := &mcp.ReadResourceRequestParams{URI: uri}
	var res *mcp.ReadResourceResult
	rounds := 0
	err := c.roundTrips(ctx, o, mcp.MethodReadResource, uri, &p.InputResponses, &p.RequestState, func(m mcp.RequestMetaObject) { p.Meta = m },
		func(ctx context.Context) (*mcp.InputRequiredResult, error) {
			rounds++
			var r mcp.ReadResourceResultResponseResult
			if err := c.call(ctx, o, mcp.MethodReadResource, p, func(m mcp.RequestMetaObject) { p.Meta = m }, uri, &r); err != nil {
				return nil, err
			}
			res = r.ReadResourceResult
			return r.InputRequiredResult, nil
		})
	if err != nil {
		return nil, err
	}
	if rounds == 1 {
		c.cache.put(mcp.MethodReadResource, uri, res.TTLMs, res.CacheScope, res)
	}
	return res, nil
}

// RoundsError reports a call that still needed input after
// Options.MaxRounds rounds.
type RoundsError struct {
	Method string
	Rounds int
}

func (e *RoundsError) Error() string {
	return fmt.Sprintf("client: %s still asks for input after %d rounds (Options.MaxRounds)", e.Method, e.Rounds)
}
