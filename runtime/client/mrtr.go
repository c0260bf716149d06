package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// roundTrips runs a request of a method that may ask for input (§6.1):
// while the server answers with an InputRequiredResult, the inputs are
// gathered through the callbacks and the request is sent again (a new id
// each time, ID-3), echoing requestState byte for byte (MRTR-11); retry
// sets them on the params, which belong to this one call (MRTR-12). It
// returns the final result: the member of the method's result union that
// is not the input-required one. A cacheable method's first-round result
// is served from and kept in the cache; results of retried requests are
// not (MRTR-14). send, when not nil, replaces sending p as it is.
func (c *Client) roundTrips(ctx context.Context, o *callOptions, method string, p wireimpl.Codec,
	send func(ctx context.Context) (wireimpl.Codec, error), retry func(mcp.InputResponses, wire.Opt[string])) (any, error) {
	desc := c.rev.Lookup(method)
	key := cacheParam(desc, p)
	if desc.Cacheable {
		if r := desc.NewResult(); c.cache.get(method, key, r) {
			return memberOf(r), nil
		}
	}
	if send == nil {
		send = func(ctx context.Context) (wireimpl.Codec, error) { return c.request(ctx, o, method, p) }
	}
	for round := 1; ; round++ {
		r, err := send(ctx)
		if err != nil {
			return nil, err
		}
		v := memberOf(r)
		irr, more := v.(*mcp.InputRequiredResult)
		if !more {
			if v == nil {
				return nil, &ResultError{Method: method, Err: errors.New("the result holds no member")}
			}
			if round == 1 {
				c.keep(desc, key, r)
			}
			return v, nil
		}
		if round >= c.opts.MaxRounds {
			return nil, &RoundsError{Method: method, Rounds: round}
		}
		answers, err := c.answer(ctx, irr.InputRequests)
		if err != nil {
			return nil, err
		}
		retry(answers, irr.RequestState) // absent stays absent (MRTR-11)
	}
}

// memberOf is the member of a result union that is set (r itself when r
// is no union).
func memberOf(r wireimpl.Codec) any {
	if u, ok := r.(interface{ Member() any }); ok {
		return u.Member()
	}
	return r
}

// ErrNoHandler reports an input request the client has no callback for:
// the server asked for a capability this client did not declare.
var ErrNoHandler = errors.New("client: the server asked for input this client cannot provide")

// answer gathers every input the server asked for (MRTR-9, MRTR-10).
// Declined or cancelled elicitations are answers (MRTR-13); a failed
// sampling or roots callback ends the call, since the server is not
// waiting for it.
func (c *Client) answer(ctx context.Context, reqs mcp.InputRequests) (mcp.InputResponses, error) {
	if len(reqs) == 0 {
		return nil, nil // a requestState-only result: retry at once (MRTR-9)
	}
	out := make(mcp.InputResponses, len(reqs))
	for _, key := range wireimpl.SortedKeys(reqs) {
		r, err := c.answerOne(ctx, key, reqs[key])
		if err != nil {
			return nil, err
		}
		out[key] = r
	}
	return out, nil
}

// answerOne answers one input request through the Options callbacks: an
// MRTR input request (key names it) or, with a legacy server, a request
// the server sent (LS2C-3). An accepted form elicitation gets the schema's
// defaults for the fields the callback left out (ELI-5, LELIC-2).
func (c *Client) answerOne(ctx context.Context, key string, req mcp.InputRequest) (mcp.InputResponse, error) {
	switch {
	case req.ElicitRequest != nil:
		if c.opts.Elicit == nil {
			return mcp.InputResponse{}, fmt.Errorf("%w: elicitation (input %q)", ErrNoHandler, key)
		}
		if req.ElicitRequest.Params.ElicitRequestURLParams != nil && !c.opts.ElicitURL {
			return mcp.InputResponse{}, fmt.Errorf("%w: URL elicitation (input %q)", ErrNoHandler, key)
		}
		r, err := c.opts.Elicit(ctx, &req.ElicitRequest.Params)
		if err != nil {
			return mcp.InputResponse{}, fmt.Errorf("client: elicitation %q: %w", key, err)
		}
		if r == nil {
			return mcp.InputResponse{}, fmt.Errorf("client: elicitation %q: the Elicit callback returned no result", key)
		}
		if form := req.ElicitRequest.Params.ElicitRequestFormParams; form != nil {
			r = withDefaults(form, r)
		}
		return mcp.InputResponse{ElicitResult: r}, nil
	case req.CreateMessageRequest != nil:
		if c.opts.Sample == nil {
			return mcp.InputResponse{}, fmt.Errorf("%w: sampling (input %q)", ErrNoHandler, key)
		}
		r, err := c.opts.Sample(ctx, &req.CreateMessageRequest.Params)
		if err != nil {
			return mcp.InputResponse{}, fmt.Errorf("client: sampling %q: %w", key, err)
		}
		if r == nil {
			return mcp.InputResponse{}, fmt.Errorf("client: sampling %q: the Sample callback returned no result", key)
		}
		return mcp.InputResponse{CreateMessageResult: r}, nil
	case req.ListRootsRequest != nil:
		if c.opts.Roots == nil {
			return mcp.InputResponse{}, fmt.Errorf("%w: roots (input %q)", ErrNoHandler, key)
		}
		roots, err := c.opts.Roots(ctx)
		if err != nil {
			return mcp.InputResponse{}, fmt.Errorf("client: roots %q: %w", key, err)
		}
		if roots == nil {
			roots = []mcp.Root{}
		}
		return mcp.InputResponse{ListRootsResult: &mcp.ListRootsResult{Roots: roots}}, nil
	}
	return mcp.InputResponse{}, fmt.Errorf("client: input request %q of an unknown kind", key)
}

// withDefaults returns r with the schema's default filled in for every
// field an accepted form left out (SEP-1034: clients SHOULD pre-fill
// defaults, so a user who accepts without touching a field means its
// default). Fields the callback set are kept; r itself is not modified.
func withDefaults(form *mcp.ElicitRequestFormParams, r *mcp.ElicitResult) *mcp.ElicitResult {
	if r.Action != mcp.ElicitResultActionAccept {
		return r
	}
	var out *mcp.ElicitResult
	for name, field := range form.RequestedSchema.Properties {
		if _, set := r.Content[name]; set {
			continue
		}
		v, ok := defaultOf(field)
		if !ok {
			continue
		}
		if out == nil {
			cp := *r
			cp.Content = make(map[string]mcp.ElicitResultContentValue, len(r.Content)+1)
			for k, v := range r.Content {
				cp.Content[k] = v
			}
			out = &cp
		}
		out.Content[name] = v
	}
	if out == nil {
		return r
	}
	return out
}

// defaultOf is the default value a form field declares, if any.
func defaultOf(f mcp.PrimitiveSchemaDefinition) (mcp.ElicitResultContentValue, bool) {
	var v mcp.ElicitResultContentValue
	switch {
	case f.StringSchema != nil && f.StringSchema.Default.Set:
		v.String = f.StringSchema.Default
	case f.NumberSchema != nil && f.NumberSchema.Default.Set:
		v.Number = f.NumberSchema.Default
	case f.BooleanSchema != nil && f.BooleanSchema.Default.Set:
		v.Boolean = f.BooleanSchema.Default
	case f.UntitledSingleSelectEnumSchema != nil && f.UntitledSingleSelectEnumSchema.Default.Set:
		v.String = f.UntitledSingleSelectEnumSchema.Default
	case f.TitledSingleSelectEnumSchema != nil && f.TitledSingleSelectEnumSchema.Default.Set:
		v.String = f.TitledSingleSelectEnumSchema.Default
	case f.LegacyTitledEnumSchema != nil && f.LegacyTitledEnumSchema.Default.Set:
		v.String = f.LegacyTitledEnumSchema.Default
	case f.UntitledMultiSelectEnumSchema != nil && f.UntitledMultiSelectEnumSchema.Default != nil:
		v.Array = f.UntitledMultiSelectEnumSchema.Default
	case f.TitledMultiSelectEnumSchema != nil && f.TitledMultiSelectEnumSchema.Default != nil:
		v.Array = f.TitledMultiSelectEnumSchema.Default
	default:
		return v, false
	}
	return v, true
}
