package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
)

type forecastArgs struct {
	City  string   `json:"city" description:"City name"`
	Days  int      `json:"days,omitempty"`
	Units *string  `json:"units"`
	Tags  []string `json:"tags,omitempty"`
	Skip  string   `json:"-"`
}

// TestTOOL5_AddTypedToolSchema: AddTypedTool derives the inputSchema from
// the struct (json names, required unless omitempty or a pointer,
// descriptions) and hands the handler decoded arguments.
func TestTOOL5_AddTypedToolSchema(t *testing.T) {
	s := New(testInfo, nil)
	must(t, AddTypedTool(s, mcp.Tool{Name: "forecast"}, func(ctx context.Context, req *ToolRequest, in forecastArgs) (*mcp.CallToolResult, error) {
		return TextResult(fmt.Sprintf("%s/%d/%v", in.City, in.Days, in.Tags)), nil
	}))
	forEachTransport(t, s, func(t *testing.T, call caller) {
		_, m := call(1, "tools/list", params(nil))
		tools, _ := wantResult(t, m)["tools"].([]any)
		if len(tools) != 1 {
			t.Fatalf("tools/list: %s", m)
		}
		want := obj{
			"type": "object",
			"properties": obj{
				"city":  obj{"type": "string", "description": "City name"},
				"days":  obj{"type": "integer"},
				"units": obj{"type": "string"},
				"tags":  obj{"type": "array", "items": obj{"type": "string"}},
			},
			"required": []any{"city"},
		}
		if got := dig(tools[0], "inputSchema"); !reflect.DeepEqual(got, want) {
			t.Errorf("inputSchema = %v\nwant %v", mustJSON(got), mustJSON(want))
		}
		_, m = call(2, "tools/call", params(obj{"name": "forecast", "arguments": obj{"city": "Oslo", "days": 3, "tags": []any{"a"}}}))
		if m.text() != "Oslo/3/[a]" {
			t.Errorf("typed call: %s", m)
		}
	})
}

// TestTOOL10_SchemaViolationIsError: arguments that break the inputSchema
// never reach the handler and are answered with a CallToolResult with
// isError: true (the server's side of the TOOL-10 / A3 conflict).
func TestTOOL10_SchemaViolationIsError(t *testing.T) {
	s := New(testInfo, nil)
	var calls atomic.Int32
	must(t, AddTypedTool(s, mcp.Tool{Name: "forecast"}, func(ctx context.Context, req *ToolRequest, in forecastArgs) (*mcp.CallToolResult, error) {
		calls.Add(1)
		return TextResult("ok"), nil
	}))
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for i, args := range []any{
			nil,                                   // city required
			obj{"days": 3},                        // city required
			obj{"city": 5},                        // wrong type
			obj{"city": "Oslo", "days": 1.5},      // not an integer
			obj{"city": "Oslo", "tags": "a"},      // not an array
			obj{"city": "Oslo", "tags": []any{1}}, // wrong item type
		} {
			p := params(obj{"name": "forecast"})
			if args != nil {
				p["arguments"] = args
			}
			status, m := call(i, "tools/call", p)
			r := wantResult(t, m)
			wantStatus(t, status, http.StatusOK)
			if r["isError"] != true || r["resultType"] != "complete" || !strings.Contains(m.text(), "forecast") {
				t.Errorf("arguments %v: %s, want an isError result naming the tool", args, m)
			}
		}
	})
	if n := calls.Load(); n != 0 {
		t.Errorf("the handler ran %d times on invalid arguments", n)
	}
}

// TestJS5_LocalRefResolves: a $ref into the schema's own $defs works and
// is enforced.
func TestJS5_LocalRefResolves(t *testing.T) {
	s := New(testInfo, nil)
	must(t, s.AddTool(mcp.Tool{Name: "point", InputSchema: []byte(`{"type":"object",
		"properties":{"p":{"$ref":"#/$defs/pt"},"q":{"$ref":"#pos"}},
		"$defs":{"pt":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]},
		         "pos":{"$anchor":"pos","type":"integer","minimum":0}}}`)}, okTool))
	c := startStdio(t, s)
	for i, tc := range []struct {
		args    obj
		isError bool
	}{
		{obj{"p": obj{"x": 1}, "q": 2}, false},
		{obj{"p": obj{"x": "one"}}, true},
		{obj{"p": obj{}}, true},
		{obj{"q": -1}, true},
	} {
		m := c.roundTrip(i, "tools/call", params(obj{"name": "point", "arguments": tc.args}))
		if got := wantResult(t, m)["isError"] == true; got != tc.isError {
			t.Errorf("%v: %s, want isError %v", tc.args, m, tc.isError)
		}
	}
	c.finish()
}

// TestJS6_NetworkRefRejected: a $ref to an http(s) (or file) URI makes
// AddTool fail, without any fetch (JS-5).
func TestJS6_NetworkRefRejected(t *testing.T) {
	var fetched atomic.Int32
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		w.Header().Set("Content-Type", "application/schema+json")
		_, _ = w.Write([]byte(`{"type":"string"}`))
	}))
	defer remote.Close()
	s := New(testInfo, nil)
	for _, ref := range []string{remote.URL + "/s.json", "https://example.com/schemas/x.json", "file:///etc/passwd", "other.json"} {
		sch := fmt.Sprintf(`{"type":"object","properties":{"a":{"$ref":%q}}}`, ref)
		if err := s.AddTool(mcp.Tool{Name: "remote", InputSchema: []byte(sch)}, okTool); err == nil {
			t.Errorf("$ref %s: AddTool succeeded", ref)
		}
	}
	for name, def := range map[string]mcp.Tool{
		"$id base":     {Name: "id", InputSchema: []byte(`{"$id":"https://example.com/root.json","type":"object","properties":{"a":{"$ref":"other.json"}}}`)},
		"outputSchema": {Name: "out", InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(`{"$ref":"` + remote.URL + `/o.json"}`)},
	} {
		if err := s.AddTool(def, okTool); err == nil {
			t.Errorf("%s: AddTool succeeded with an external $ref", name)
		}
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("the schema was fetched %d times", n)
	}
	c := startStdio(t, s)
	wantError(t, c.roundTrip(1, "tools/call", params(obj{"name": "remote"})), -32601) // nothing was registered
	c.finish()
}

// TestJS3_UnknownDialectRejected: a $schema naming a dialect the validator
// does not support makes AddTool fail; draft-07 and 2020-12 work (JS-1),
// each with its own semantics.
func TestJS3_UnknownDialectRejected(t *testing.T) {
	s := New(testInfo, nil)
	for _, dialect := range []string{"https://example.com/my-dialect", "http://json-schema.org/draft-03/schema#"} {
		sch := fmt.Sprintf(`{"$schema":%q,"type":"object"}`, dialect)
		if err := s.AddTool(mcp.Tool{Name: "bad", InputSchema: []byte(sch)}, okTool); err == nil {
			t.Errorf("$schema %s: AddTool succeeded", dialect)
		}
	}
	// items as an array means a tuple in draft-07; 2020-12 rejects that
	// form's meaning (prefixItems) — the same document validates differently.
	must(t, s.AddTool(mcp.Tool{Name: "d7", InputSchema: []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
		"properties":{"n":{"type":"integer"},"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}]}},"required":["n"]}`)}, okTool))
	must(t, s.AddTool(mcp.Tool{Name: "d2020", InputSchema: []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"properties":{"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}}}`)}, okTool))
	c := startStdio(t, s)
	for i, tc := range []struct {
		tool    string
		args    obj
		isError bool
	}{
		{"d7", obj{"n": 1, "pair": []any{"a", 1}}, false},
		{"d7", obj{"n": 1, "pair": []any{1, "a"}}, true},
		{"d7", obj{}, true},
		{"d2020", obj{"pair": []any{"a", 1}}, false},
		{"d2020", obj{"pair": []any{"a", 1, 2}}, true},
	} {
		m := c.roundTrip(i, "tools/call", params(obj{"name": tc.tool, "arguments": tc.args}))
		if got := wantResult(t, m)["isError"] == true; got != tc.isError {
			t.Errorf("%s %v: %s, want isError %v", tc.tool, tc.args, m, tc.isError)
		}
	}
	c.finish()
}

// TestTOOL5_InvalidToolDefinitions: AddTool refuses definitions that break
// the tool rules: a non-object root (TOOL-5), an invalid schema (JS-4),
// bad x-mcp-header annotations (XMH-1..5); nothing is registered.
func TestTOOL5_InvalidToolDefinitions(t *testing.T) {
	s := New(testInfo, nil)
	for name, sch := range map[string]string{
		"array root":         `{"type":"array"}`,
		"not JSON Schema":    `{"type":"object","properties":{"a":{"type":"strnig"}}}`,
		"not an object":      `"object"`,
		"header on number":   `{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`,
		"header bad token":   `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`,
		"header empty":       `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`,
		"header duplicate":   `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}`,
		"header under items": `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`,
		"header under anyOf": `{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
		"header on root":     `{"type":"object","x-mcp-header":"Root"}`,
		"header no type":     `{"type":"object","properties":{"a":{"x-mcp-header":"A"}}}`,
	} {
		if err := s.AddTool(mcp.Tool{Name: "t", InputSchema: []byte(sch)}, okTool); err == nil {
			t.Errorf("%s: AddTool accepted %s", name, sch)
		}
	}
	if err := s.AddTool(mcp.Tool{Name: "", InputSchema: []byte(`{"type":"object"}`)}, okTool); err == nil {
		t.Errorf("AddTool accepted a tool without a name")
	}
	if err := s.AddTool(mcp.Tool{Name: "nil"}, nil); err == nil {
		t.Errorf("AddTool accepted a nil handler")
	}
	c := startStdio(t, s)
	wantError(t, c.roundTrip(1, "tools/list", params(nil)), -32601)
	c.finish()
}

type embeddedID struct {
	ID string `json:"id"`
}

type EmbeddedKind struct {
	Kind string `json:"kind"`
}

type embedArgs struct {
	embeddedID
	*EmbeddedKind
	When time.Time `json:"when"`
	Name string    `json:"name"`
}

// TestTOOL5_SchemaForFollowsEncodingJSON: the derived schema describes
// what encoding/json accepts for the type: fields of embedded structs are
// promoted (optional when embedded through a pointer), and a time.Time is
// a string.
func TestTOOL5_SchemaForFollowsEncodingJSON(t *testing.T) {
	raw, err := SchemaFor[embedArgs]()
	must(t, err)
	var got obj
	must(t, json.Unmarshal(raw, &got))
	want := obj{
		"type": "object",
		"properties": obj{
			"id":   obj{"type": "string"},
			"kind": obj{"type": "string"},
			"when": obj{"type": "string", "format": "date-time"},
			"name": obj{"type": "string"},
		},
		"required": []any{"id", "when", "name"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SchemaFor = %s\nwant %s", raw, mustJSON(want))
	}

	s := New(testInfo, nil)
	must(t, AddTypedTool(s, mcp.Tool{Name: "embed"}, func(ctx context.Context, req *ToolRequest, in embedArgs) (*mcp.CallToolResult, error) {
		kind := ""
		if in.EmbeddedKind != nil {
			kind = in.Kind
		}
		return TextResult(fmt.Sprintf("%s/%s/%d/%s", in.ID, kind, in.When.Year(), in.Name)), nil
	}))
	c := startStdio(t, s)
	m := c.roundTrip(1, "tools/call", params(obj{"name": "embed", "arguments": obj{"id": "a", "kind": "k", "when": "2026-07-28T00:00:00Z", "name": "n"}}))
	if m.text() != "a/k/2026/n" {
		t.Errorf("call: %s", m)
	}
	m = c.roundTrip(2, "tools/call", params(obj{"name": "embed", "arguments": obj{"kind": "k", "when": "2026-07-28T00:00:00Z", "name": "n"}}))
	if wantResult(t, m)["isError"] != true {
		t.Errorf("without the promoted id: %s, want isError", m)
	}
	c.finish()
}

// TestTOOL5_AddTypedToolGeneratedType: a generated type as the arguments
// type is decoded by its own codec and checked by its own validator.
func TestTOOL5_AddTypedToolGeneratedType(t *testing.T) {
	s := New(testInfo, nil)
	must(t, AddTypedTool(s, mcp.Tool{Name: "arg"}, func(ctx context.Context, req *ToolRequest, in mcp.PromptArgument) (*mcp.CallToolResult, error) {
		return TextResult(fmt.Sprintf("%s/%v", in.Name, in.Required.Value)), nil
	}))
	c := startStdio(t, s)
	r := wantResult(t, c.roundTrip(0, "tools/list", params(nil)))
	tools, _ := r["tools"].([]any)
	if len(tools) != 1 || dig(tools[0], "inputSchema", "type") != "object" {
		t.Fatalf("tools/list: %v", r)
	}
	for i, tc := range []struct {
		args obj
		text string // "" = isError
	}{
		{obj{"name": "x", "required": true}, "x/true"},
		{obj{"name": "y"}, "y/false"},
		{obj{"title": "no name"}, ""},
		{obj{"name": 5}, ""},
		{obj{"name": "x", "required": "yes"}, ""},
	} {
		m := c.roundTrip(i+1, "tools/call", params(obj{"name": "arg", "arguments": tc.args}))
		res := wantResult(t, m)
		if tc.text == "" && res["isError"] != true || tc.text != "" && m.text() != tc.text {
			t.Errorf("%v: %s, want %q (empty: isError)", tc.args, m, tc.text)
		}
	}
	c.finish()
}
