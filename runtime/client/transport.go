package client

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// A Transport carries one client's JSON-RPC messages to one server and
// the server's back. Three are built in: CommandTransport (stdio to a
// process the transport starts), StreamTransport (stdio framing over any
// reader and writer) with InMemory on top (a *server.Server in the same
// process), and HTTPTransport (Streamable HTTP). Connect takes any.
//
// A Transport is used by one Client; its methods may be called
// concurrently.
type Transport interface {
	// Call sends call's request and returns the server's response to it.
	// Messages that belong to the request and arrive before its response —
	// notifications it caused (progress, log messages, a listen stream's
	// notifications) — are passed to call.OnMessage in order, on the
	// transport's goroutine: OnMessage must not block. When ctx ends first,
	// Call cancels the request the transport's way (stdio: a
	// notifications/cancelled naming it; HTTP: closing its response
	// stream) and returns ctx.Err(). A response that is a JSON-RPC error
	// is returned as a message, not as an error; the error is for what
	// kept a response from arriving.
	Call(ctx context.Context, call *Call) (*jsonrpc.Message, error)
	// Notify sends a notification (a JSON-RPC message without id) or, in a
	// legacy (2025-11-25) session, the client's response to a request of
	// the server (LS2C-3). On Streamable HTTP in 2026-07-28 there is no
	// client notification: cancelling is closing the stream (HCAN-2).
	Notify(ctx context.Context, msg []byte) error
	// Close ends the connection (stdio: closes the server's stdin, waits,
	// then terminates it, STDIO-7).
	Close() error
}

// Call is one request, ready to send.
type Call struct {
	ID     wire.ID
	Method string
	// Body is the encoded JSON-RPC request, one line of JSON.
	Body []byte
	// Header holds the headers of a Streamable HTTP request: the metadata
	// headers mirrored from the body (MCP-Protocol-Version, Mcp-Method,
	// Mcp-Name, Mcp-Param-*, §5.3.2) and Content-Type and Accept. It may be
	// shared between calls: a transport must not modify it. Other
	// transports ignore it.
	Header http.Header
	// Token is the request's progressToken, when it has one: stdio routes
	// progress notifications by it (STDIO-5).
	Token string
	// Listen marks subscriptions/listen: its notifications carry the
	// request's id as their subscriptionId (SUB-6), and it has no timeout.
	Listen bool
	// OnMessage receives the messages that belong to the request (see
	// Transport.Call); in a legacy session also the server's requests,
	// which the client answers with Notify.
	OnMessage func(*jsonrpc.Message)
	// Result, when set, is the value the result is to be decoded into: a
	// transport that knows it is reading this call's response may decode
	// the result straight into it while reading the envelope (see
	// jsonrpc.DecodeResponse), marking the message Decoded.
	Result wireimpl.Codec
	// Status is set by HTTP transports to the HTTP status of the response
	// (era detection looks at it, COMPAT-7); 0 elsewhere.
	Status int

	resp jsonrpc.Message // room for the response, for transports that want it
}

// httpTransport marks transports that speak Streamable HTTP: the client
// then mirrors body members into headers and applies the rules of
// x-mcp-header (XMH-6).
type httpTransport interface {
	Transport
	mirrorsHeaders()
}

// isHTTP reports whether t mirrors headers.
func isHTTP(t Transport) bool {
	_, ok := t.(httpTransport)
	return ok
}
