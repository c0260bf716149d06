package server

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/gen/mcp"
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
	schema  *jsonschema.Schema // compiled inputSchema
	flat    *flatSchema        // nil unless the schema is flat (arguments.go)
	params  []mcpheader.Param  // x-mcp-header arguments
	scopes  []string           // RequireScopes
	task    taskPolicy         // RunAsTask
}

// AddTool registers (or replaces) a tool. Its InputSchema must be a JSON
// Schema object with "type": "object" (TOOL-5); it is compiled once with
// full JSON Schema 2020-12 support (another dialect when $schema names one)
// and every call's arguments are checked against it. References are
// resolved inside the schema only, never over the network (JS-5).
func (s *Server) AddTool(def mcp.Tool, h ToolHandler, opts ...ItemOption) error {
	if def.Name == "" {
		return errors.New("server: a tool needs a name")
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
	// The base URI must be hierarchical: against an opaque one ("mcp:x")
	// a relative $ref such as "other.json" resolves to the document itself
	// and an unresolvable reference would pass unnoticed (JS-6).
	base := "mcp://tool/" + url.PathEscape(def.Name)
	sch, err := compileSchema(base+"/inputSchema", def.InputSchema)
	if err != nil {
		return fmt.Errorf("server: tool %q: inputSchema: %w", def.Name, err)
	}
	if def.OutputSchema != nil {
		if _, err := compileSchema(base+"/outputSchema", def.OutputSchema); err != nil {
			return fmt.Errorf("server: tool %q: outputSchema: %w", def.Name, err)
		}
	}
	params, err := mcpheader.ToolParams(def.InputSchema)
	if err != nil {
		return fmt.Errorf("server: tool %q: %w", def.Name, err)
	}
	o := applyItemOptions(opts)
	s.mu.Lock()
	s.tools.put(def.Name, &tool{def: def, handler: h, schema: sch, flat: newFlatSchema(def.InputSchema), params: params, scopes: o.scopes, task: o.task})
	s.mu.Unlock()
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

// AddTypedTool registers a tool whose arguments decode into In. When the
// tool has no InputSchema, one is derived from In once, here (see
// SchemaFor). At call time the arguments are checked against the schema,
// then decoded: with In's own DecodeJSON when it has one (generated types
// do), else with encoding/json, and checked with In's Validate method when
// it has one. Arguments that fail any of this are an isError result.
func AddTypedTool[In any](s *Server, def mcp.Tool, h func(ctx context.Context, req *ToolRequest, in In) (*mcp.CallToolResult, error), opts ...ItemOption) error {
	if def.InputSchema == nil {
		sch, err := SchemaFor[In]()
		if err != nil {
			return fmt.Errorf("server: tool %q: %w", def.Name, err)
		}
		def.InputSchema = sch
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
		return h(ctx, req, in)
	}, opts...)
}

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

// refuseLoader refuses every external reference (JS-5, JS-6).
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("reference %s is outside the schema; network and file references are not followed", url)
}

// compileSchema compiles a tool schema. A schema without $schema is JSON
// Schema 2020-12 (JS-1); a dialect the validator does not know is refused
// (JS-3).
func compileSchema(url string, raw wire.Raw) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// checkArguments validates a call's arguments against the tool's schema.
func (t *tool) checkArguments(args *arguments) error {
	if t.flat != nil && t.flat.accepts(args.object()) {
		return nil
	}
	v, err := args.value()
	if err != nil {
		return err
	}
	return t.schema.Validate(v)
}

// SchemaFor derives a JSON Schema for the Go type T (a struct): one
// property per exported field, named by its json tag, "required" unless the
// tag says omitempty/omitzero or the field is a pointer; a
// `description:"..."` tag adds a description. Fields of embedded structs
// are promoted as encoding/json does; time.Time is a date-time string, a
// type with UnmarshalText a string, and a type with its own UnmarshalJSON
// (generated types) is left unconstrained for its decoder to check.
// Reflection runs here, once per registration, never per call.
func SchemaFor[T any]() (wire.Raw, error) {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("server: arguments type %s is not a struct", t)
	}
	s, err := schemaOf(t, 0)
	if err != nil {
		return nil, err
	}
	if s["type"] == nil {
		s["type"] = "object" // a struct that decodes itself (TOOL-5)
	}
	return wire.RawOf(s)
}

var (
	timeType            = reflect.TypeFor[time.Time]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func schemaOf(t reflect.Type, depth int) (map[string]any, error) {
	if depth > 16 {
		return nil, fmt.Errorf("server: type %s nests too deeply for a schema", t)
	}
	// Types that decode themselves: their JSON form is theirs to define.
	if k := t.Kind(); k != reflect.Pointer && k != reflect.Interface {
		switch pt := reflect.PointerTo(t); {
		case t == timeType:
			return map[string]any{"type": "string", "format": "date-time"}, nil
		case pt.Implements(jsonUnmarshalerType):
			return map[string]any{}, nil // any value; its decoder checks it
		case pt.Implements(textUnmarshalerType):
			return map[string]any{"type": "string"}, nil
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem(), depth+1)
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}, nil
	case reflect.Slice, reflect.Array:
		items, err := schemaOf(t.Elem(), depth+1)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "array", "items": items}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("server: map key type %s is not a string", t.Key())
		}
		vals, err := schemaOf(t.Elem(), depth+1)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "object", "additionalProperties": vals}, nil
	case reflect.Interface:
		return map[string]any{}, nil
	case reflect.Struct:
		props := map[string]any{}
		var required []string
		if err := structFields(t, depth, props, &required, true); err != nil {
			return nil, err
		}
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s, nil
	}
	return nil, fmt.Errorf("server: type %s has no JSON Schema", t)
}

// structFields adds the members encoding/json reads into struct t: its
// exported fields and, as encoding/json promotes them, the fields of
// embedded structs without a json name (optional when embedded through a
// pointer, which may stay nil).
func structFields(t reflect.Type, depth int, props map[string]any, required *[]string, mayRequire bool) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := cutComma(tag)
		if f.Anonymous && name == "" {
			ft, ptr := f.Type, f.Type.Kind() == reflect.Pointer
			if ptr {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if err := structFields(ft, depth+1, props, required, mayRequire && !ptr); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		ps, err := schemaOf(f.Type, depth+1)
		if err != nil {
			return err
		}
		if d := f.Tag.Get("description"); d != "" {
			ps["description"] = d
		}
		props[name] = ps
		if mayRequire && !containsOpt(opts, "omitempty") && !containsOpt(opts, "omitzero") && f.Type.Kind() != reflect.Pointer {
			*required = append(*required, name)
		}
	}
	return nil
}

func cutComma(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func containsOpt(opts, o string) bool {
	for opts != "" {
		var cur string
		cur, opts, _ = cutComma(opts)
		if cur == o {
			return true
		}
	}
	return false
}
