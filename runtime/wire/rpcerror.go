package wire

import (
	"strconv"

	"github.com/go-faster/jx"
)

// The error codes JSON-RPC 2.0 itself defines. The codes an MCP revision
// adds are constants of its generated package (mcp.CodeHeaderMismatch, ...).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Error is a JSON-RPC error object. It implements error, so handlers return
// it to answer with a specific code; any other error becomes -32603.
type Error struct {
	Code    int64
	Message string
	// Data is the optional error.data member, verbatim.
	Data Raw
}

func (e *Error) Error() string {
	return "jsonrpc error " + strconv.FormatInt(e.Code, 10) + ": " + e.Message
}

// EncodeJSON writes the error object.
func (e *Error) EncodeJSON(enc *jx.Encoder) {
	enc.ObjStart()
	enc.FieldStart("code")
	enc.Int64(e.Code)
	enc.FieldStart("message")
	enc.Str(e.Message)
	if e.Data != nil {
		enc.FieldStart("data")
		enc.Raw(e.Data)
	}
	enc.ObjEnd()
}

// NewError returns an Error whose data is written by data (nil for none).
func NewError(code int64, msg string, data func(e *jx.Encoder)) *Error {
	err := &Error{Code: code, Message: msg}
	if data != nil {
		var e jx.Encoder
		data(&e)
		err.Data = Raw(e.Bytes())
	}
	return err
}
