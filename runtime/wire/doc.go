// Package wire holds the values that generated MCP types are made of and
// that users of those types touch: optional members (Opt), verbatim JSON
// (Raw, Members), JSON-RPC request ids (ID) and the errors decoding,
// validation and JSON-RPC calls report (DecodeError, ValidationError,
// Error).
//
// The other half of the seam between generated code and the runtime, the
// decoder and the helpers only generated code calls, is package
// runtime/wireimpl.
package wire
