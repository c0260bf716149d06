// Package otelmcp traces MCP requests with OpenTelemetry, following the
// semantic conventions for the Model Context Protocol
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/): a CLIENT span
// for each request a client sends and a SERVER span for each request a
// server handles, named "{mcp.method.name} {target}" (the tool or prompt
// name for tools/call and prompts/get, the method alone otherwise), with
// the mcp.*, gen_ai.*, jsonrpc.* and network attributes the conventions
// list.
//
// Trace context crosses from client to server inside the request's
// params._meta, under the keys the MCP specification reserves for it:
// traceparent, tracestate (W3C Trace Context) and baggage (W3C Baggage),
// so it travels with the message on every transport and era (stdio,
// Streamable HTTP, 2025-11-25 sessions) and is independent of the HTTP
// request that carries it. The server span's parent is the context found
// in _meta; the ambient context of the transport (an otelhttp server span,
// say) is recorded as a link.
//
//	s := server.New(info, &server.Options{Middleware: []jsonrpc.Middleware{otelmcp.ServerMiddleware(nil)}})
//	c, err := client.ConnectURL(ctx, url, info, &client.Options{Middleware: []jsonrpc.Middleware{otelmcp.ClientMiddleware(nil)}})
//
// The package lives in a module of its own (github.com/mcpgen/mcpgen/contrib/otel)
// so that mcpgen's core module does not depend on OpenTelemetry.
package otelmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ScopeName is the instrumentation scope of the spans.
const ScopeName = "github.com/mcpgen/mcpgen/contrib/otel/otelmcp"

// Attribute keys of the semantic conventions (registry: mcp, gen_ai,
// jsonrpc, rpc, error, network, client).
const (
	AttrMethodName      = attribute.Key("mcp.method.name")
	AttrProtocolVersion = attribute.Key("mcp.protocol.version")
	AttrSessionID       = attribute.Key("mcp.session.id")
	AttrResourceURI     = attribute.Key("mcp.resource.uri")
	AttrToolName        = attribute.Key("gen_ai.tool.name")
	AttrPromptName      = attribute.Key("gen_ai.prompt.name")
	AttrOperationName   = attribute.Key("gen_ai.operation.name")
	AttrRequestID       = attribute.Key("jsonrpc.request.id")
	AttrStatusCode      = attribute.Key("rpc.response.status_code")
	AttrErrorType       = attribute.Key("error.type")
	AttrNetworkTrans    = attribute.Key("network.transport")
	AttrNetworkProto    = attribute.Key("network.protocol.name")
	AttrClientAddress   = attribute.Key("client.address")
	AttrClientPort      = attribute.Key("client.port")
)

// Options configure the middleware. The zero value (or nil) is usable.
type Options struct {
	// TracerProvider makes the tracer. Default: otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// Propagator injects and extracts the context in params._meta.
	// Default: W3C Trace Context and Baggage, the keys MCP reserves
	// (traceparent, tracestate, baggage); pass otel.GetTextMapPropagator()
	// to use the global one.
	Propagator propagation.TextMapPropagator
	// Attributes are added to every span, e.g. server.address and
	// server.port on a client, which the middleware cannot see.
	Attributes []attribute.KeyValue
}

func (o *Options) tracer() trace.Tracer {
	tp := otel.GetTracerProvider()
	if o != nil && o.TracerProvider != nil {
		tp = o.TracerProvider
	}
	return tp.Tracer(ScopeName)
}

func (o *Options) propagator() propagation.TextMapPropagator {
	if o != nil && o.Propagator != nil {
		return o.Propagator
	}
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

func (o *Options) attributes() []attribute.KeyValue {
	if o == nil {
		return nil
	}
	return o.Attributes
}

// metaHolder is every request params type: its _meta.
type metaHolder interface {
	RequestMeta() *mcp.RequestMetaObject
}

// ServerMiddleware traces the requests a server handles (server.Options.Middleware).
func ServerMiddleware(opts *Options) jsonrpc.Middleware {
	tracer, prop, extra := opts.tracer(), opts.propagator(), opts.attributes()
	return func(next jsonrpc.Handler) jsonrpc.Handler {
		return func(ctx context.Context, method string, params wire.Value) (wire.Value, error) {
			var meta *mcp.RequestMetaObject
			if m, ok := params.(metaHolder); ok {
				meta = m.RequestMeta()
			}
			ambient := trace.SpanContextFromContext(ctx)
			start := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}
			if meta != nil {
				ctx = prop.Extract(ctx, metaCarrier{meta})
				if remote := trace.SpanContextFromContext(ctx); remote.IsValid() && !remote.Equal(ambient) && ambient.IsValid() {
					start = append(start, trace.WithLinks(trace.Link{SpanContext: ambient}))
				}
			}
			attrs := requestAttributes(method, params, meta)
			if info, ok := server.RequestInfoFrom(ctx); ok {
				if info.ID.IsValid() {
					attrs = append(attrs, AttrRequestID.String(idString(info.ID)))
				}
				if info.SessionID != "" {
					attrs = append(attrs, AttrSessionID.String(info.SessionID))
				}
				switch info.Transport {
				case "stdio":
					attrs = append(attrs, AttrNetworkTrans.String("pipe"))
				case "http":
					attrs = append(attrs, AttrNetworkTrans.String("tcp"), AttrNetworkProto.String("http"))
					if host, port, err := net.SplitHostPort(info.RemoteAddr); err == nil {
						attrs = append(attrs, AttrClientAddress.String(host))
						if n, err := strconv.Atoi(port); err == nil {
							attrs = append(attrs, AttrClientPort.Int(n))
						}
					}
				}
			}
			attrs = append(attrs, extra...)
			start = append(start, trace.WithAttributes(attrs...))
			ctx, span := tracer.Start(ctx, spanName(method, params), start...)
			defer span.End()
			res, err := next(ctx, method, params)
			record(span, res, err, true)
			return res, err
		}
	}
}

// ClientMiddleware traces the requests a client sends (client.Options.Middleware)
// and puts the span's context into each request's _meta. A multi
// round-trip call passes through it once per round: one span per request
// sent.
func ClientMiddleware(opts *Options) jsonrpc.Middleware {
	tracer, prop, extra := opts.tracer(), opts.propagator(), opts.attributes()
	return func(next jsonrpc.Handler) jsonrpc.Handler {
		return func(ctx context.Context, method string, params wire.Value) (wire.Value, error) {
			var meta *mcp.RequestMetaObject
			if m, ok := params.(metaHolder); ok {
				meta = m.RequestMeta()
			}
			attrs := append(requestAttributes(method, params, meta), extra...)
			ctx, span := tracer.Start(ctx, spanName(method, params), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
			defer span.End()
			if meta != nil {
				prop.Inject(ctx, metaCarrier{meta})
			}
			ctx = client.OnRequestID(ctx, func(id wire.ID) {
				span.SetAttributes(AttrRequestID.String(idString(id)))
			})
			res, err := next(ctx, method, params)
			record(span, res, err, false)
			return res, err
		}
	}
}

// spanName is "{mcp.method.name} {target}", the target being the tool or
// prompt name; a resource URI is left out (high cardinality).
func spanName(method string, params wire.Value) string {
	switch p := params.(type) {
	case *mcp.CallToolRequestParams:
		return method + " " + p.Name
	case *mcp.GetPromptRequestParams:
		return method + " " + p.Name
	}
	return method
}

// requestAttributes are what the params tell.
func requestAttributes(method string, params wire.Value, meta *mcp.RequestMetaObject) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 12)
	attrs = append(attrs, AttrMethodName.String(method))
	switch p := params.(type) {
	case *mcp.CallToolRequestParams:
		attrs = append(attrs, AttrToolName.String(p.Name), AttrOperationName.String("execute_tool"))
	case *mcp.GetPromptRequestParams:
		attrs = append(attrs, AttrPromptName.String(p.Name))
	case *mcp.ReadResourceRequestParams:
		attrs = append(attrs, AttrResourceURI.String(p.URI))
	}
	if meta != nil && meta.ProtocolVersion != "" {
		attrs = append(attrs, AttrProtocolVersion.String(meta.ProtocolVersion))
	}
	return attrs
}

// record ends a span's story: a JSON-RPC error is error.type and
// rpc.response.status_code (its code) with the message as the status; a
// tool result with isError is error.type tool_error. On a server an error
// that is not a *wire.Error is answered with -32603.
func record(span trace.Span, res wire.Value, err error, isServer bool) {
	if err != nil {
		var rpc *wire.Error
		switch {
		case errors.As(err, &rpc):
			code := strconv.FormatInt(rpc.Code, 10)
			span.SetAttributes(AttrErrorType.String(code), AttrStatusCode.String(code))
			span.SetStatus(codes.Error, rpc.Message)
		case isServer:
			span.SetAttributes(AttrErrorType.String("-32603"), AttrStatusCode.String("-32603"))
			span.SetStatus(codes.Error, "Internal error")
		case errors.Is(err, context.DeadlineExceeded):
			span.SetAttributes(AttrErrorType.String("timeout"))
			span.SetStatus(codes.Error, err.Error())
		default:
			span.SetAttributes(AttrErrorType.String(fmt.Sprintf("%T", err)))
			span.SetStatus(codes.Error, err.Error())
		}
		span.RecordError(err)
		return
	}
	if r, ok := res.(*mcp.CallToolResultResponseResult); ok && r.CallToolResult != nil && r.CallToolResult.IsError.Value {
		span.SetAttributes(AttrErrorType.String("tool_error"))
		span.SetStatus(codes.Error, "tool_error")
	}
}

// idString is jsonrpc.request.id: an integer in decimal, a string as it is.
func idString(id wire.ID) string {
	if id.IsInt() {
		return strconv.FormatInt(id.Int(), 10)
	}
	return id.Str()
}

// metaCarrier is a request's _meta as a propagation.TextMapCarrier: the
// keys are members of _meta, their values JSON strings.
type metaCarrier struct{ m *mcp.RequestMetaObject }

func (c metaCarrier) Get(key string) string {
	raw, ok := c.m.Extra.Get(key)
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func (c metaCarrier) Set(key, value string) {
	raw, err := json.Marshal(value)
	if err != nil {
		return
	}
	c.m.Extra.Set(key, raw)
}

func (c metaCarrier) Keys() []string {
	keys := make([]string, 0, len(c.m.Extra))
	for _, mb := range c.m.Extra {
		keys = append(keys, mb.Key)
	}
	return keys
}
