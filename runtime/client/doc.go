// Package client is an MCP client for protocol revision 2026-07-28, built
// on the generated tables of gen/mcp.
//
// Connect to a server by launching a command (ConnectCommand, stdio) or by
// URL (ConnectURL, Streamable HTTP), then call its methods: every request
// carries the protocol version, the capabilities your callbacks provide and
// the client's identity in its _meta (META-1). Multi round-trip requests
// are answered through those callbacks and retried automatically; list and
// read results are cached by their ttlMs and cacheScope; Listen follows
// subscriptions/listen.
package client
