// Package wire is the narrow seam between the code mcpgen generates and the
// hand-written runtime: the JSON decoder and encoder conventions generated
// codecs rely on, optional values, verbatim JSON, validation results and the
// JSON-RPC error value that generated dispatch functions return.
//
// Generated packages import wire and nothing else from the runtime; the
// runtime packages in turn only touch generated types through the methods
// this package names (DecodeJSON, EncodeJSON, Validate).
package wire
