package server

import (
	"strings"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// unsupportedVersion is -32022 naming the versions served (VER-2).
func (s *Server) unsupportedVersion(requested string) *wire.Error {
	return wire.NewError(mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version: "+requested, func(e *jx.Encoder) {
		d := mcp.UnsupportedProtocolVersionErrorErrorData{Supported: s.statelessVersions, Requested: requested}
		d.EncodeJSON(e)
	})
}

// notSupported is -32601 for a method whose capability is not advertised
// (GATE-1).
func notSupported(method, capability string) error {
	return wire.NewError(wire.CodeMethodNotFound, "Method not found: "+method, func(e *jx.Encoder) {
		e.ObjStart()
		e.FieldStart("reason")
		e.Str("Server does not support the " + capability + " capability")
		e.ObjEnd()
	})
}

// missingCapability is the -32021 answer (META-6, MRTR-4): data names the
// client capability the request needs, as a ClientCapabilities object.
func missingCapability(capability string) error {
	d := mcp.MissingRequiredClientCapabilityErrorErrorData{RequiredCapabilities: capabilityObject(capability)}
	return wire.NewError(mcp.CodeMissingRequiredClientCapability, "This request needs the client's "+capability+" capability", d.EncodeJSON)
}

// capabilityObject is the ClientCapabilities declaring just the named
// capability ("elicitation.form" is {"elicitation":{"form":{}}}).
func capabilityObject(name string) mcp.ClientCapabilities {
	var c mcp.ClientCapabilities
	raw := "{}"
	parts := strings.Split(name, ".")
	for i := len(parts) - 1; i > 0; i-- {
		raw = `{"` + parts[i] + `":` + raw + `}`
	}
	_ = c.UnmarshalJSON([]byte(`{"` + parts[0] + `":` + raw + `}`))
	return c
}

func headerMismatch(msg string) error {
	return &wire.Error{Code: mcp.CodeHeaderMismatch, Message: "Header mismatch: " + msg}
}

// ResourceNotFound is the answer for an unknown resource, with the URI in
// data: -32602 for modern requests (RES-5), -32002 in a 2025-11-25
// session (LERR-2).
func ResourceNotFound(uri string) error {
	return &conditionError{name: "ResourceNotFound", rpc: wire.NewError(mcp.CodeResourceNotFound, "Resource not found: "+uri, func(e *jx.Encoder) {
		e.ObjStart()
		e.FieldStart("uri")
		e.Str(uri)
		e.ObjEnd()
	})}
}

// conditionError is an error for a condition each revision answers with
// its own code: name is its key in the generated Revision.ErrorCodes.
type conditionError struct {
	name string
	rpc  *wire.Error // the modern answer
}

func (e *conditionError) Error() string { return e.rpc.Error() }
func (e *conditionError) Unwrap() error { return e.rpc }
