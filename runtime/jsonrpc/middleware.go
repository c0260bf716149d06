package jsonrpc

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Handler handles one call: a method and its params, decoded and
// validated into the method's generated type, giving the result (also a
// generated type) or an error. On a server it runs the handler the request
// is for; on a client it sends the request and returns the server's answer.
type Handler func(ctx context.Context, method string, params wire.Value) (wire.Value, error)

// Middleware wraps a Handler: the one shape of middleware for servers
// (server.Options.Middleware) and clients (client.Options.Middleware).
// It may look at or change the params, the result and the error, or answer
// without calling next. Params and results are pointers to generated types
// (*mcp.CallToolRequestParams, *mcp.CallToolResultResponseResult); a
// middleware that replaces one must use the same type.
type Middleware func(next Handler) Handler
