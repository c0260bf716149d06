package wire

import (
	"errors"
	"strconv"

	"github.com/go-faster/jx"
)

// JSON-RPC and MCP error codes (digest section 3.1).
const (
	CodeParseError                      = -32700
	CodeInvalidRequest                  = -32600
	CodeMethodNotFound                  = -32601
	CodeInvalidParams                   = -32602
	CodeInternalError                   = -32603
	CodeHeaderMismatch                  = -32020
	CodeMissingRequiredClientCapability = -32021
	CodeUnsupportedProtocolVersion      = -32022
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

// DecodeJSON reads an error object; members other than code, message and
// data are ignored.
func (e *Error) DecodeJSON(d *Decoder) error {
	var seen uint8
	err := d.Obj(func(key []byte) error {
		var bit uint8
		var err error
		switch string(key) {
		case "code":
			bit = 1
			e.Code, err = d.Int64()
		case "message":
			bit = 2
			e.Message, err = d.Str()
		case "data":
			bit = 4
			e.Data, err = d.Raw()
		default:
			return d.Skip()
		}
		if seen&bit != 0 {
			return DuplicateKey(key)
		}
		seen |= bit
		if err != nil {
			return AtKey(err, string(key))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if seen&3 != 3 {
		return &DecodeError{Msg: "error object needs code and message"}
	}
	return nil
}

// NewError returns an Error with data encoded from the given encoder
// function (nil for no data).
func NewError(code int64, msg string, data func(e *jx.Encoder)) *Error {
	err := &Error{Code: code, Message: msg}
	if data != nil {
		var e jx.Encoder
		data(&e)
		err.Data = Raw(e.Bytes())
	}
	return err
}

// MethodNotFound answers a method the receiver does not implement.
func MethodNotFound(method string) *Error {
	return NewError(CodeMethodNotFound, "Method not found: "+method, nil)
}

// InvalidParams turns a decoding or validation failure of a request's params
// into -32602. The violations, with paths rooted at "params", are listed in
// data.violations.
func InvalidParams(err error) *Error {
	var rpc *Error
	if errors.As(err, &rpc) {
		return rpc
	}
	var vs []Violation
	var ve *ValidationError
	var de *DecodeError
	switch {
	case errors.As(err, &ve):
		vs = ve.Violations
	case errors.As(err, &de):
		vs = []Violation{{Path: de.JSONPath(), Message: de.Msg}}
	default:
		vs = []Violation{{Message: err.Error()}}
	}
	msg := "Invalid params: " + prefixPath("params", vs[0].Path) + ": " + vs[0].Message
	if len(vs) > 1 {
		msg += " (and " + strconv.Itoa(len(vs)-1) + " more)"
	}
	return NewError(CodeInvalidParams, msg, func(e *jx.Encoder) {
		e.ObjStart()
		e.FieldStart("violations")
		e.ArrStart()
		for _, v := range vs {
			e.ObjStart()
			e.FieldStart("path")
			e.Str(prefixPath("params", v.Path))
			e.FieldStart("message")
			e.Str(v.Message)
			e.ObjEnd()
		}
		e.ArrEnd()
		e.ObjEnd()
	})
}

func prefixPath(root, p string) string {
	switch {
	case p == "":
		return root
	case p[0] == '[':
		return root + p
	}
	return root + "." + p
}
