package wireimpl

import (
	"errors"
	"strconv"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// MethodNotFound answers a method the receiver does not implement.
func MethodNotFound(method string) *wire.Error {
	return &wire.Error{Code: wire.CodeMethodNotFound, Message: "Method not found: " + method}
}

// NilResult reports a handler that returned neither a result nor an error.
func NilResult(method string) error {
	return &wire.Error{Code: wire.CodeInternalError, Message: "Internal error: handler for " + method + " returned no result"}
}

// InvalidParams turns a decoding or validation failure of a request's params
// into -32602. The violations, with paths rooted at "params", are listed in
// data.violations.
func InvalidParams(err error) *wire.Error {
	var rpc *wire.Error
	if errors.As(err, &rpc) {
		return rpc
	}
	var vs []wire.Violation
	var ve *wire.ValidationError
	var de *wire.DecodeError
	switch {
	case errors.As(err, &ve):
		vs = ve.Violations
	case errors.As(err, &de):
		vs = []wire.Violation{{Path: de.Path, Message: de.Msg}}
	default:
		vs = []wire.Violation{{Message: err.Error()}}
	}
	msg := "Invalid params: " + prefixPath("params", vs[0].Path) + ": " + vs[0].Message
	if len(vs) > 1 {
		msg += " (and " + strconv.Itoa(len(vs)-1) + " more)"
	}
	return wire.NewError(wire.CodeInvalidParams, msg, func(e *jx.Encoder) {
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
