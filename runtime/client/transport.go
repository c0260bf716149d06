package client

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// outbound is one request ready to send.
type outbound struct {
	id     wire.ID
	method string
	body   []byte      // the complete JSON-RPC request
	header http.Header // request metadata headers (HTTP only)
	// token is the progressToken of the request, when it has one (stdio
	// demultiplexes progress by it, STDIO-5).
	token string
	// listen marks subscriptions/listen: its notifications carry its id as
	// subscriptionId (SUB-6).
	listen bool
}

// transport carries requests to the server.
type transport interface {
	// do sends req and returns its response. Notifications that belong to
	// the request (progress, log messages, listen notifications) are passed
	// to note as they arrive, in order. When ctx ends, do cancels the
	// request the transport's way (stdio: notifications/cancelled; HTTP:
	// closing the stream) and returns ctx.Err().
	do(ctx context.Context, req *outbound, note func(*jsonrpc.Message)) (*jsonrpc.Message, error)
	// http reports whether this is Streamable HTTP (headers apply).
	http() bool
	close() error
}
