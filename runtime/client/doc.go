// Package client is an MCP client for protocol revision 2026-07-28, built
// on the generated tables of gen/mcp, that also reaches servers of the
// initialize-based revisions (2025-11-25, 2025-06-18, 2025-03-26) through
// gen/mcp20251125.
//
// Connect to a server by launching a command (ConnectCommand, stdio) or by
// URL (ConnectURL, Streamable HTTP), then call its methods: every request
// carries the protocol version, the capabilities your callbacks provide and
// the client's identity in its _meta (META-1). Multi round-trip requests
// are answered through those callbacks and retried automatically; list and
// read results are cached by their ttlMs and cacheScope; Listen follows
// subscriptions/listen.
//
// Connect probes the server first (server/discover): a legacy server gets
// a 2025-11-25 session instead — initialize, server-to-client requests
// answered through the same callbacks, Listen fed by the legacy
// notifications — behind the same methods and the same 2026-07-28 types
// (docs/dual-era-client.md).
package client
