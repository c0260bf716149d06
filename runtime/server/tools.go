package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/internal/toolschema"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// ToolRequest is a tools/call request.
type ToolRequest struct {
	Request
	// Name is the tool's name.
	Name string
	// Arguments are the call's arguments, verbatim (nil when absent). They
	// have been checked against the tool's inputSchema.
	Arguments wire.Raw

	args arguments // Arguments, parsed once when something needs their values
}

// ToolHandler serves calls of one tool. Failures of the tool itself belong
// in the result (IsError, ERR-2); a returned error becomes a JSON-RPC error
// (a *wire.Error keeps its code, anything else is -32603).
type ToolHandler func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error)

type tool struct {
	def     mcp.Tool
	handler ToolHandler
	schema  *toolschema.Schema // compiled inputSchema
	out     *toolschema.Schema // compiled outputSchema; nil without one
	params  []mcpheader.Param  // x-mcp-header arguments
	scopes  []string           // RequireScopes
	task    taskPolicy         // RunAsTask
}

// AddTool registers a tool. Its name must follow TOOL-4 (1–128 characters
// of A-Z, a-z, 0-9, _, - and .; AllowAnyName lifts this) and must not be
// registered already, unless Replace is given: a replaced tool keeps its
// place in tools/list. Its InputSchema must be a JSON Schema object with
// "type": "object" (TOOL-5); it is compiled once with full JSON Schema
// 2020-12 support (another dialect when $schema names one) and every
// call's arguments are checked against it. References are resolved inside
// the schema only, never over the network (JS-5). An OutputSchema is
// compiled once too, and every result that is not an isError result must
// carry structuredContent that conforms to it (TOOL-7): one that does not
// is logged with the path of each violation and answered with -32603
// instead (see Options.Logger).
func (s *Server) AddTool(def mcp.Tool, h ToolHandler, opts ...ItemOption) error {
	o := applyItemOptions(opts)
	if err := checkToolName(def.Name, o.anyName); err != nil {
		return err
	}
	if h == nil {
		return fmt.Errorf("server: tool %q has no handler", def.Name)
	}
	if def.InputSchema == nil {
		def.InputSchema = wire.Raw(`{"type":"object"}`)
	}
	if err := def.Validate(); err != nil {
		return fmt.Errorf("server: tool %q: %w", def.Name, err)
	}
	// The base URI must be hierarchical (see toolschema.Compile).
	base := "mcp://tool/" + url.PathEscape(def.Name)
	sch, err := toolschema.Compile(base+"/inputSchema", def.InputSchema)
	if err != nil {
		return fmt.Errorf("server: tool %q: inputSchema: %w", def.Name, err)
	}
	var out *toolschema.Schema
	if def.OutputSchema != nil {
		if out, err = toolschema.Compile(base+"/outputSchema", def.OutputSchema); err != nil {
			return fmt.Errorf("server: tool %q: outputSchema: %w", def.Name, err)
		}
	}
	params, err := mcpheader.ToolParams(def.InputSchema)
	if err != nil {
		return fmt.Errorf("server: tool %q: %w", def.Name, err)
	}
	s.mu.Lock()
	added := s.tools.add(def.Name, &tool{def: def, handler: h, schema: sch, out: out, params: params, scopes: o.scopes, task: o.task}, o.replace)
	s.mu.Unlock()
	if !added {
		return &DuplicateError{Kind: "tool", Name: def.Name}
	}
	s.changed(changeTools, "")
	return nil
}

// RemoveTool unregisters a tool and reports whether it existed.
func (s *Server) RemoveTool(name string) bool {
	s.mu.Lock()
	ok := s.tools.remove(name)
	s.mu.Unlock()
	if ok {
		s.changed(changeTools, "")
	}
	return ok
}

// AddTypedTool registers a tool whose arguments decode into In and whose
// handler returns Out.
//
// When the tool has no InputSchema, one is derived from In once, here
// (SchemaFor). At call time the arguments are checked against the schema,
// then decoded: with In's own DecodeJSON when it has one (generated types
// do), else with encoding/json, and checked with In's Validate method when
// it has one. Arguments that fail any of this are an isError result.
//
// Out is the tool's output. A *mcp.CallToolResult is the result as it
// is. Any other type is structured output: when the tool has no
// OutputSchema, one is derived from Out (OutputSchemaFor; none when Out is
// an interface type), and the value the handler returns is encoded once —
// with its own EncodeJSON (generated types, checked with Validate first),
// else with encoding/json — into structuredContent and, for clients that
// read only content, into a text block holding the same JSON (TOOL-8).
// The result is checked against the outputSchema before it is sent (see
// AddTool).
//
// A handler reports a failure of the tool itself, which the model should
// see, by returning ToolError(err); any other error is a JSON-RPC error
// (a *wire.Error keeps its code, anything else is -32603), and
// ErrInputRequired asks the client for input (Request.Elicit).
func AddTypedTool[In, Out any](s *Server, def mcp.Tool, h func(ctx context.Context, req *ToolRequest, in In) (Out, error), opts ...ItemOption) error {
	if h == nil {
		return fmt.Errorf("server: tool %q has no handler", def.Name)
	}
	if def.InputSchema == nil {
		sch, err := SchemaFor[In]()
		if err != nil {
			return fmt.Errorf("server: tool %q: %w", def.Name, err)
		}
		def.InputSchema = sch
	}
	ot := reflect.TypeFor[Out]()
	whole := ot == reflect.TypeFor[*mcp.CallToolResult]()
	if !whole && def.OutputSchema == nil && ot.Kind() != reflect.Interface {
		sch, err := OutputSchemaFor[Out]()
		if err != nil {
			return fmt.Errorf("server: tool %q: output: %w", def.Name, err)
		}
		def.OutputSchema = sch
	}
	return s.AddTool(def, func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		var in In
		args := req.Arguments
		if args == nil {
			args = wire.Raw("{}")
		}
		var err error
		if d, ok := any(&in).(wireimpl.DecodeJSONer); ok {
			err = wireimpl.Decode(args, d)
		} else {
			err = json.Unmarshal(args, &in)
		}
		if v, ok := any(&in).(interface{ Validate() error }); ok && err == nil {
			err = v.Validate() // generated types check their own schema
		}
		if err != nil {
			return ErrorResult("invalid arguments: " + err.Error()), nil
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		if whole {
			r, _ := any(out).(*mcp.CallToolResult)
			return r, nil
		}
		o := out // escapes here only: out stays on the stack for a whole result
		raw, err := encodeOutput(&o)
		if err != nil {
			return nil, fmt.Errorf("tool %q: encoding its output: %w", req.Name, err)
		}
		r := TextResult(string(raw))
		r.StructuredContent = raw
		return r, nil
	}, opts...)
}

// encodeOutput encodes a typed tool's output: with its own codec when it
// has one, after its validator, else with encoding/json, through a pointer
// so that methods with pointer receivers are used as on the fields.
func encodeOutput[Out any](v *Out) (wire.Raw, error) {
	c, ok := any(v).(wireimpl.Codec)
	if !ok {
		// Out may be a pointer to a generated type.
		if p, isCodec := any(*v).(wireimpl.Codec); isCodec {
			if rv := reflect.ValueOf(p); rv.Kind() == reflect.Pointer && !rv.IsNil() {
				c, ok = p, true
			}
		}
	}
	if ok {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		return wireimpl.Marshal(c)
	}
	return wire.RawOf(v)
}

// ToolError marks err as a failure of the tool itself (an upstream API
// failing, input out of range, a business rule: TOOL-10): returned by a
// tool handler, it becomes an isError result whose text is err's message,
// which the client shows to its model (TOOL-11), instead of a JSON-RPC
// error. errors.Is and errors.As see err through it.
func ToolError(err error) error {
	if err == nil {
		return nil
	}
	return &toolError{err}
}

// ToolErrorf is ToolError(fmt.Errorf(format, args...)).
func ToolErrorf(format string, args ...any) error {
	return &toolError{fmt.Errorf(format, args...)}
}

type toolError struct{ err error }

func (e *toolError) Error() string { return e.err.Error() }
func (e *toolError) Unwrap() error { return e.err }

// TextResult is a tool result holding one text block.
func TextResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{TextContent: &mcp.TextContent{Text: text}}}}
}

// ErrorResult is a tool execution error (isError: true) explained by text.
func ErrorResult(text string) *mcp.CallToolResult {
	r := TextResult(text)
	r.IsError = wire.Some(true)
	return r
}

// StructuredResult returns v as structuredContent and, for clients that
// read only content, as serialized JSON in a text block (TOOL-8).
func StructuredResult(v any) (*mcp.CallToolResult, error) {
	raw, err := wire.RawOf(v)
	if err != nil {
		return nil, err
	}
	r := TextResult(string(raw))
	r.StructuredContent = raw
	return r, nil
}

// checkArguments validates a call's arguments against the tool's schema.
func (t *tool) checkArguments(args *arguments) error {
	if t.schema.Accepts(args.object()) {
		return nil
	}
	v, err := args.value()
	if err != nil {
		return err
	}
	return t.schema.Validate(v)
}
