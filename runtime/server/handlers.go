package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// handler adapts Server to the generated mcp.ServerHandler: one method per
// request, each given its params decoded and validated, and each
// answering with a value the server encodes. Capability gates, caching
// hints and the request pipeline around it are in handle.go.
type handler struct{ s *Server }

func (h handler) Discover(ctx context.Context, p *mcp.RequestParams) (*mcp.DiscoverResult, error) {
	s := h.s
	r := &mcp.DiscoverResult{
		SupportedVersions: s.statelessVersions, // those a request may name in _meta
		Capabilities:      *s.advertised(),
		ResultType:        mcp.ResultTypeComplete,
		Meta:              s.resultMeta(),
	}
	if s.opts.Instructions != "" {
		r.Instructions = wire.Some(s.opts.Instructions)
	}
	return r, nil
}

func (h handler) ListTools(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return listCached(h.s, mcp.MethodListTools, p.Cursor, &h.s.tools, func(x *tool) mcp.Tool { return x.def },
		func(items []mcp.Tool, next wire.Opt[string]) *mcp.ListToolsResult {
			return &mcp.ListToolsResult{Tools: items, NextCursor: next, ResultType: mcp.ResultTypeComplete, Meta: h.s.resultMeta()}
		})
}

func (h handler) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResultResponseResult, error) {
	s := h.s
	s.mu.RLock()
	t, ok := s.tools.get(p.Name)
	s.mu.RUnlock()
	if !ok {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: "Unknown tool: " + p.Name}
	}
	req := &ToolRequest{Name: p.Name, Arguments: p.Arguments}
	req.args.raw = p.Arguments
	req.init(ctx, s, mcp.MethodCallTool, &p.Meta)
	args := &req.args
	if v, ok := req.ex.out.(paramVerifier); ok && len(t.params) > 0 {
		if err := v.verifyParams(t.params, args); err != nil {
			return nil, err
		}
	}
	if err := s.beginInputs(&req.Request, req, p.InputResponses, p.RequestState); err != nil {
		return nil, err
	}
	defer req.finish()
	// Arguments that break the tool's inputSchema are a tool execution
	// error (isError), as the tools page prescribes for input validation;
	// the schema's InvalidParamsError doc would use -32602 (digest TOOL-10,
	// Appendix A3: we side with the tools page).
	if err := t.checkArguments(args); err != nil {
		return &mcp.CallToolResultResponseResult{CallToolResult: s.complete(ErrorResult("Invalid arguments for tool " + p.Name + ": " + err.Error()))}, nil
	}
	res, err := t.handler(ctx, req)
	if err != nil {
		if te := (*toolError)(nil); errors.As(err, &te) {
			res, err = ErrorResult(te.Error()), nil // TOOL-10: the model sees it
		}
	}
	if ir, err := s.outcome(&req.Request, err); ir != nil || err != nil {
		return &mcp.CallToolResultResponseResult{InputRequiredResult: ir}, err
	}
	if res == nil {
		return nil, fmt.Errorf("tool %q returned no result", p.Name)
	}
	if err := s.checkOutput(t, res); err != nil {
		return nil, err
	}
	return &mcp.CallToolResultResponseResult{CallToolResult: s.complete(res)}, nil
}

// complete marks a tool result final, with serverInfo unless it has _meta.
func (s *Server) complete(r *mcp.CallToolResult) *mcp.CallToolResult {
	r.ResultType = mcp.ResultTypeComplete
	if r.Meta == nil {
		r.Meta = s.resultMeta()
	}
	return r
}

func (h handler) ListPrompts(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListPromptsResult, error) {
	return listCached(h.s, mcp.MethodListPrompts, p.Cursor, &h.s.prompts, func(x *prompt) mcp.Prompt { return x.def },
		func(items []mcp.Prompt, next wire.Opt[string]) *mcp.ListPromptsResult {
			return &mcp.ListPromptsResult{Prompts: items, NextCursor: next, ResultType: mcp.ResultTypeComplete, Meta: h.s.resultMeta()}
		})
}

func (h handler) GetPrompt(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResultResponseResult, error) {
	s := h.s
	s.mu.RLock()
	pr, ok := s.prompts.get(p.Name)
	s.mu.RUnlock()
	if !ok {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: "Unknown prompt: " + p.Name}
	}
	for _, a := range pr.def.Arguments {
		if _, given := p.Arguments[a.Name]; a.Required.Value && !given {
			return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: "Missing required argument " + strconv.Quote(a.Name) + " for prompt " + p.Name}
		}
	}
	req := &PromptRequest{Name: p.Name, Arguments: p.Arguments}
	req.init(ctx, s, mcp.MethodGetPrompt, &p.Meta)
	if err := s.beginInputs(&req.Request, req, p.InputResponses, p.RequestState); err != nil {
		return nil, err
	}
	defer req.finish()
	res, err := pr.handler(ctx, req)
	if ir, err := s.outcome(&req.Request, err); ir != nil || err != nil {
		return &mcp.GetPromptResultResponseResult{InputRequiredResult: ir}, err
	}
	if res == nil {
		return nil, fmt.Errorf("prompt %q returned no result", p.Name)
	}
	res.ResultType = mcp.ResultTypeComplete
	if res.Meta == nil {
		res.Meta = s.resultMeta()
	}
	return &mcp.GetPromptResultResponseResult{GetPromptResult: res}, nil
}

func (h handler) ListResources(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListResourcesResult, error) {
	return listCached(h.s, mcp.MethodListResources, p.Cursor, &h.s.resources, func(x *resource) mcp.Resource { return x.def },
		func(items []mcp.Resource, next wire.Opt[string]) *mcp.ListResourcesResult {
			return &mcp.ListResourcesResult{Resources: items, NextCursor: next, ResultType: mcp.ResultTypeComplete, Meta: h.s.resultMeta()}
		})
}

func (h handler) ListResourceTemplates(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListResourceTemplatesResult, error) {
	return listCached(h.s, mcp.MethodListResourceTemplates, p.Cursor, &h.s.templates, func(x *template) mcp.ResourceTemplate { return x.def },
		func(items []mcp.ResourceTemplate, next wire.Opt[string]) *mcp.ListResourceTemplatesResult {
			return &mcp.ListResourceTemplatesResult{ResourceTemplates: items, NextCursor: next, ResultType: mcp.ResultTypeComplete, Meta: h.s.resultMeta()}
		})
}

func (h handler) ReadResource(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResultResponseResult, error) {
	s := h.s
	handle, vars := s.findResource(p.URI)
	if handle == nil {
		return nil, ResourceNotFound(p.URI)
	}
	req := &ResourceRequest{URI: p.URI, Vars: vars}
	req.init(ctx, s, mcp.MethodReadResource, &p.Meta)
	if err := s.beginInputs(&req.Request, req, p.InputResponses, p.RequestState); err != nil {
		return nil, err
	}
	defer req.finish()
	contents, err := handle(ctx, req)
	if ir, err := s.outcome(&req.Request, err); ir != nil || err != nil {
		return &mcp.ReadResourceResultResponseResult{InputRequiredResult: ir}, err
	}
	if len(contents) == 0 { // RES-5: never an empty list for a resource that is not there
		return nil, ResourceNotFound(p.URI)
	}
	return &mcp.ReadResourceResultResponseResult{ReadResourceResult: &mcp.ReadResourceResult{
		Contents: contents, ResultType: mcp.ResultTypeComplete, Meta: s.resultMeta(),
	}}, nil
}

func (h handler) Complete(ctx context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	s := h.s
	s.mu.RLock()
	c := s.completer
	s.mu.RUnlock()
	req := &CompletionRequest{Params: p}
	req.init(ctx, s, mcp.MethodComplete, &p.Meta)
	defer req.finish()
	res, err := c(ctx, req)
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &mcp.CompleteResultCompletion{}
	}
	if res.Values == nil {
		res.Values = []string{}
	}
	if len(res.Values) > maxCompletions {
		res.Values = res.Values[:maxCompletions]
		res.HasMore = wire.Some(true)
	}
	return &mcp.CompleteResult{Completion: *res, ResultType: mcp.ResultTypeComplete, Meta: s.resultMeta()}, nil
}

// maxCompletions is the most values a completion result may hold (CMP-3).
const maxCompletions = 100

func (h handler) SubscriptionsListen(ctx context.Context, p *mcp.SubscriptionsListenRequestParams) (*mcp.SubscriptionsListenResult, error) {
	return h.s.listen(ctx, p)
}

// about binds a tool call's requestState to the tool and its arguments.
func (r *ToolRequest) about() string { return r.Name + "\x00" + r.args.digest() }

// about binds a prompt's requestState to the prompt and its arguments.
func (r *PromptRequest) about() string {
	args, _ := json.Marshal(r.Arguments) // map keys sorted
	return r.Name + "\x00" + (&arguments{raw: args}).digest()
}

// about binds a read's requestState to the URI.
func (r *ResourceRequest) about() string { return r.URI }
