// Package server is an MCP server for protocol revision 2026-07-28, built
// on the generated tables of gen/mcp.
//
// Register tools, prompts, resources and resource templates on a Server,
// then serve it over stdio (ServeStdio) or Streamable HTTP (Handler). Every
// request stands alone: its protocol version and the client's capabilities
// come from its own _meta (STL-1), never from earlier requests.
//
// The flow of one request is transport → JSON-RPC (runtime/jsonrpc) →
// per-request checks (version, headers, _meta) → generated dispatch
// (mcp.DispatchServer: decode, validate) → the handler you registered.
package server
