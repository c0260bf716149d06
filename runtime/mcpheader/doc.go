// Package mcpheader implements the Streamable HTTP request metadata headers
// of revision 2026-07-28 (digest §5.3.2–5.3.4): their names, the value
// encoding with its Base64 sentinel, and the x-mcp-header annotations that
// mirror tool arguments into Mcp-Param-* headers. Server and client share it.
package mcpheader

// Header names (compared case-insensitively, HDR-1).
const (
	ProtocolVersion = "MCP-Protocol-Version"
	Method          = "Mcp-Method"
	Name            = "Mcp-Name"
	ParamPrefix     = "Mcp-Param-"
)
