package server

import (
	"errors"
	"strings"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/internal/toolschema"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Nothing invalid leaves: before a result is sent, the server checks what
// it can cheaply — the result against its generated validator (union
// values hold exactly one member, required members are present, constants
// and bounds hold; it allocates nothing on a valid value), and a tool's
// structuredContent against its outputSchema, compiled at registration
// (TOOL-7). A result that fails is not sent: it is logged with the path of
// every violation and the request is answered with -32603, the code of a
// server fault (TOOL-10), which a client reports as such instead of
// rejecting an invalid result later, in someone else's code.

// errInvalidResult answers a request whose result failed the checks.
var errInvalidResult = &wire.Error{Code: wire.CodeInternalError, Message: "Internal error: the server produced an invalid result"}

// checkResult validates a handler's result (or the one middleware made),
// except a shared list page, which was checked when it was kept. name is
// the tool, prompt or resource the request names, if any.
func (s *Server) checkResult(method, name string, result wireimpl.Codec) error {
	if result == nil || s.pages.shared(result) {
		return nil
	}
	err := result.Validate()
	if err == nil {
		return nil
	}
	var ve *wire.ValidationError
	if errors.As(err, &ve) {
		return s.invalidResult(method, name, ve.Violations)
	}
	return s.invalidResult(method, name, []wire.Violation{{Message: err.Error()}})
}

// checkOutput checks a tool result's structuredContent against the tool's
// outputSchema: present and conforming, unless the result is an isError
// result (whose structured content, if any, the schema does not describe).
func (s *Server) checkOutput(t *tool, r *mcp.CallToolResult) error {
	if t.out == nil || r.IsError.Value {
		return nil
	}
	if r.StructuredContent == nil {
		return s.invalidResult(mcp.MethodCallTool, t.def.Name, []wire.Violation{{Path: "structuredContent",
			Message: "required member is missing: the tool declares an outputSchema (TOOL-7)"}})
	}
	if err := t.out.Check(r.StructuredContent); err != nil {
		return s.invalidResult(mcp.MethodCallTool, t.def.Name, toolschema.Violations(err, "structuredContent"))
	}
	return nil
}

// invalidResult logs why a result was not sent and returns the answer.
func (s *Server) invalidResult(method, name string, vs []wire.Violation) error {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteString("; ")
		}
		path := "result"
		if v.Path != "" {
			path += "." + v.Path
			if strings.HasPrefix(v.Path, "[") {
				path = "result" + v.Path
			}
		}
		b.WriteString(path)
		b.WriteString(": ")
		b.WriteString(v.Message)
	}
	args := []any{"method", method}
	if name != "" {
		args = append(args, "name", name)
	}
	args = append(args, "violations", b.String())
	s.log.Error("invalid result not sent; answered with -32603", args...)
	return errInvalidResult
}
