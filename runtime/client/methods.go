package client

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Discover calls server/discover (optional, DISC-4).
//
// With a legacy server the result describes what initialize said: the
// negotiated version as the one supported version, the server's
// capabilities, instructions and serverInfo (in _meta, as 2026-07-28 servers
// put it).
func (c *Client) Discover(ctx context.Context, opts ...CallOption) (*mcp.DiscoverResult, error) {
	return c.discover(ctx, buildOptions(opts))
}

func (c *Client) discover(ctx context.Context, o *callOptions) (*mcp.DiscoverResult, error) {
	r, err := c.cached(ctx, o, mcp.MethodDiscover, &mcp.RequestParams{})
	if err != nil {
		return nil, err
	}
	return r.(*mcp.DiscoverResult), nil
}

// cached makes a request of a method whose result carries caching hints
// (the revision's descriptors say which): a fresh cached result is
// returned without asking the server (CACHE-2, CACHE-3); a new one is kept
// as long as its hints allow. The entry is keyed by what shapes the result
// besides the method: the cursor of a page, the member mirrored into
// Mcp-Name (a read's URI) (CACHE-6).
func (c *Client) cached(ctx context.Context, o *callOptions, method string, p wireimpl.Codec) (wireimpl.Codec, error) {
	desc := c.rev.Lookup(method)
	key := cacheParam(desc, p)
	if desc.Cacheable {
		if r := desc.NewResult(); c.cache.get(method, key, r) {
			return r, nil
		}
	}
	r, err := c.request(ctx, o, method, p)
	if err != nil {
		return nil, err
	}
	c.keep(desc, key, r)
	return r, nil
}

// keep caches r per its hints when its method is cacheable.
func (c *Client) keep(desc *wireimpl.Method, key string, r wireimpl.Codec) {
	if !desc.Cacheable {
		return
	}
	var v any = r
	if u, ok := v.(interface{ Member() any }); ok {
		v = u.Member() // the result, not an input-required result
	}
	if h, ok := v.(interface {
		CacheHints() (mcp.CacheScope, int64)
	}); ok {
		scope, ttl := h.CacheHints()
		c.cache.put(desc.Name, key, ttl, scope, v.(wireimpl.Codec))
	}
}

// cacheParam is the cache key of a request besides its method.
func cacheParam(desc *wireimpl.Method, p wireimpl.Codec) string {
	switch {
	case desc.Paginated:
		if pp, ok := p.(*mcp.PaginatedRequestParams); ok && pp.Cursor.Set {
			return "c" + pp.Cursor.Value // "" is a real cursor (PAG-2)
		}
	case desc.MirroredName != nil:
		return desc.MirroredName(p)
	}
	return ""
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
	r, err := c.cached(ctx, buildOptions(opts), mcp.MethodListTools, paginated(cursor))
	if err != nil {
		return nil, err
	}
	res := r.(*mcp.ListToolsResult)
	res.Tools = c.learnTools(res.Tools)
	return res, nil
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
	r, err := c.cached(ctx, buildOptions(opts), mcp.MethodListPrompts, paginated(cursor))
	if err != nil {
		return nil, err
	}
	return r.(*mcp.ListPromptsResult), nil
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
	r, err := c.cached(ctx, buildOptions(opts), mcp.MethodListResources, paginated(cursor))
	if err != nil {
		return nil, err
	}
	return r.(*mcp.ListResourcesResult), nil
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
	r, err := c.cached(ctx, buildOptions(opts), mcp.MethodListResourceTemplates, paginated(cursor))
	if err != nil {
		return nil, err
	}
	return r.(*mcp.ListResourceTemplatesResult), nil
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
	r, err := c.request(ctx, buildOptions(opts), mcp.MethodComplete, p)
	if err != nil {
		return nil, err
	}
	return r.(*mcp.CompleteResult), nil
}

// CallTool calls a tool. arguments is a JSON object (nil for none); use
// wire.RawOf to encode a Go value. Input requests are answered through the
// Options callbacks and the call retried (MRTR). With Options.Tasks, a
// server may answer with a task: CallTool then waits for its result (see
// Task.Wait; StartTool does not wait). A result whose structuredContent
// breaks the tool's listed outputSchema is an *OutputError (see
// Options.DisableOutputValidation).
func (c *Client) CallTool(ctx context.Context, name string, arguments wire.Raw, opts ...CallOption) (*mcp.CallToolResult, error) {
	v, err := c.callTool(ctx, name, arguments, opts)
	if err != nil {
		return nil, err
	}
	res, task, err := c.toolOutcome(v)
	if task != nil {
		res, err = task.Wait(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := c.checkOutput(name, res); err != nil {
		return nil, err
	}
	return res, nil
}

// callTool is tools/call with its multi round-trip retries: the final
// result, or a task handle.
func (c *Client) callTool(ctx context.Context, name string, arguments wire.Raw, opts []CallOption) (any, error) {
	o := buildOptions(opts)
	p := &mcp.CallToolRequestParams{Name: name, Arguments: arguments}
	if c.session().mirrorsHeaders() {
		c.mu.Lock()
		_, known := c.toolHdrs[name]
		c.mu.Unlock()
		if !known {
			// The tool's x-mcp-header parameters come from its definition.
			c.refreshTools(ctx)
			c.mu.Lock()
			if _, listed := c.toolHdrs[name]; !listed {
				c.toolHdrs[name] = nil // listed or not: do not list again for it (XMH-8 covers changes)
			}
			c.mu.Unlock()
		}
	}
	send := func(ctx context.Context) (wireimpl.Codec, error) {
		r, err := c.request(ctx, o, mcp.MethodCallTool, p)
		var rpc *wire.Error
		if errors.As(err, &rpc) && rpc.Code == mcp.CodeHeaderMismatch && c.session().mirrorsHeaders() {
			// XMH-8: the tool may have changed; re-fetch and retry once.
			c.refreshTools(ctx)
			r, err = c.request(ctx, o, mcp.MethodCallTool, p)
		}
		return r, err
	}
	return c.roundTrips(ctx, o, mcp.MethodCallTool, p, send, func(in mcp.InputResponses, st wire.Opt[string]) {
		p.InputResponses, p.RequestState = in, st
	})
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
	v, err := c.roundTrips(ctx, o, mcp.MethodGetPrompt, p, nil, func(in mcp.InputResponses, st wire.Opt[string]) {
		p.InputResponses, p.RequestState = in, st
	})
	if err != nil {
		return nil, err
	}
	return v.(*mcp.GetPromptResult), nil
}

// ReadResource reads a resource, answering input requests as CallTool
// does. First-round results are cached per their hints; results of
// retried requests are not (MRTR-14).
func (c *Client) ReadResource(ctx context.Context, uri string, opts ...CallOption) (*mcp.ReadResourceResult, error) {
	o := buildOptions(opts)
	p := &mcp.ReadResourceRequestParams{URI: uri}
	v, err := c.roundTrips(ctx, o, mcp.MethodReadResource, p, nil, func(in mcp.InputResponses, st wire.Opt[string]) {
		p.InputResponses, p.RequestState = in, st
	})
	if err != nil {
		return nil, err
	}
	return v.(*mcp.ReadResourceResult), nil
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
