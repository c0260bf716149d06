package client

import (
	"context"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// A session is one era's way of carrying the client's requests. The typed
// methods (ListTools, CallTool, Listen, Discover, ...) build 2026-07-28
// params and expect 2026-07-28 results whatever the server speaks; the
// session in use turns them into what its era puts on the wire:
//
//   - modernSession (2026-07-28): every request stands alone, with its
//     version, capabilities and identity in _meta (META-1), mirrored into
//     headers on Streamable HTTP; input requests come back as
//     InputRequiredResult (MRTR).
//   - legacySession (2025-11-25, 2025-06-18, 2025-03-26): a connection or
//     HTTP session opened by initialize (LLIFE-1), requests and results
//     converted between the two revisions' generated types by their shape
//     tables, server-to-client requests answered through the same callbacks
//     (LS2C-3), subscriptions/listen emulated with the legacy notifications
//     and resources/subscribe.
//
// Connect picks the session from the server's answer to a probe (COMPAT-1..7,
// BC-4); everything that differs between the eras lives behind this
// interface.
type session interface {
	// version is the protocol version the session speaks.
	version() string
	// exchange sends one request of a 2026-07-28 method with its params
	// (their _meta filled in by meta) and returns the method's 2026-07-28
	// result type. server/discover and subscriptions/listen are answered
	// the session's way.
	exchange(ctx context.Context, o *callOptions, method string, p wireimpl.Codec) (wireimpl.Codec, error)
	// meta builds a request's _meta.
	meta(o *callOptions) mcp.RequestMetaObject
	// mirrorsHeaders reports that requests carry the 2026-07-28 metadata
	// headers (Streamable HTTP), so the x-mcp-header rules apply (XMH-6).
	mirrorsHeaders() bool
	// unsolicited handles a message from the server that belongs to no
	// request of ours (stdio: notifications without a request to route them
	// to, and the server's own requests).
	unsolicited(m *jsonrpc.Message)
	// close ends the session and the connection.
	close() error
}

// sessionRef lets an atomic.Pointer hold the session interface.
type sessionRef struct{ session }

func (c *Client) session() session { return c.sess.Load().session }

func (c *Client) setSession(s session) { c.sess.Store(&sessionRef{s}) }

// modernSession speaks 2026-07-28 (§1.3, §5): the requests are built by the
// Client itself (exchangeModern).
type modernSession struct {
	c *Client
	// v is the version requests carry: the preferred one, or the one a
	// -32022 answer made the client pick (VER-3).
	v atomic.Value // string
}

func newModernSession(c *Client) *modernSession {
	s := &modernSession{c: c}
	s.v.Store(c.modernVersions()[0])
	return s
}

func (s *modernSession) version() string { return s.v.Load().(string) }

func (s *modernSession) exchange(ctx context.Context, o *callOptions, method string, p wireimpl.Codec) (wireimpl.Codec, error) {
	return s.c.exchangeModern(ctx, o, method, p)
}

func (s *modernSession) meta(o *callOptions) mcp.RequestMetaObject {
	return s.c.modernMeta(o, s.version())
}

func (s *modernSession) mirrorsHeaders() bool { return s.c.http }

func (s *modernSession) unsolicited(m *jsonrpc.Message) {
	if m.Kind == jsonrpc.KindRequest {
		s.c.log.Warn("ignoring a request from the server (MSG-3)", "method", m.Method)
		return
	}
	s.c.deliver(&callOptions{}, m)
}

func (s *modernSession) close() error { return s.c.t.Close() }
