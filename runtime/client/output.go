package client

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/internal/toolschema"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A client SHOULD check structured results against the tool's outputSchema
// (TOOL-7). The schemas come from tools/list: each listed tool's is kept
// verbatim and compiled at its first use, with the same validator and
// rules as the server's (JSON Schema 2020-12 by default, no network
// references: JS-1, JS-5).

// outputSchema is a listed tool's outputSchema, compiled when first used.
type outputSchema struct {
	raw      wire.Raw
	compiled bool
	schema   *toolschema.Schema // nil when it does not compile
}

// An OutputError reports a tool result that breaks the outputSchema of the
// tool as listed: its structuredContent is missing or does not conform
// (TOOL-7). Result is the result as received.
type OutputError struct {
	Tool       string
	Result     *mcp.CallToolResult
	Violations []wire.Violation
}

func (e *OutputError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "client: tool %q returned a result that does not match its outputSchema (TOOL-7; Options.DisableOutputValidation turns the check off)", e.Tool)
	for i, v := range e.Violations {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(e.Violations)-i)
			break
		}
		b.WriteString("; ")
		if v.Path != "" {
			b.WriteString(v.Path)
			b.WriteString(": ")
		}
		b.WriteString(v.Message)
	}
	return b.String()
}

// learnOutput records a listed tool's outputSchema; c.mu is held.
func (c *Client) learnOutput(name string, raw wire.Raw) {
	if raw == nil {
		delete(c.toolOut, name)
		return
	}
	if old := c.toolOut[name]; old != nil && bytes.Equal(old.raw, raw) {
		return
	}
	c.toolOut[name] = &outputSchema{raw: raw}
}

// checkOutput checks a result of tool name against its listed
// outputSchema.
func (c *Client) checkOutput(name string, r *mcp.CallToolResult) error {
	if c.opts.DisableOutputValidation || r.IsError.Value {
		return nil
	}
	c.mu.Lock()
	o := c.toolOut[name]
	if o != nil && !o.compiled {
		o.compiled = true
		sch, err := toolschema.Compile("mcp://tool/"+url.PathEscape(name)+"/outputSchema", o.raw)
		if err != nil {
			c.log.Warn("the outputSchema of a listed tool does not compile; its results are not checked", "tool", name, "error", err.Error())
		}
		o.schema = sch
	}
	c.mu.Unlock()
	if o == nil || o.schema == nil {
		return nil
	}
	if r.StructuredContent == nil {
		return &OutputError{Tool: name, Result: r, Violations: []wire.Violation{{Path: "structuredContent", Message: "required member is missing: the tool declares an outputSchema"}}}
	}
	if err := o.schema.Check(r.StructuredContent); err != nil {
		return &OutputError{Tool: name, Result: r, Violations: toolschema.Violations(err, "structuredContent")}
	}
	return nil
}
