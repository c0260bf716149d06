package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/internal/toolschema"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// syncBuffer is a log destination that handlers on several goroutines
// may write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func loggedServer(t *testing.T) (*Server, *syncBuffer) {
	var logs syncBuffer
	return New(testInfo, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}), &logs
}

type bmiIn struct {
	WeightKg float64 `json:"weightKg" description:"Body weight in kilograms"`
	HeightM  float64 `json:"heightM"`
}

type bmiOut struct {
	BMI        float64   `json:"bmi"`
	Overweight bool      `json:"overweight"`        // false is written, and required
	Flagged    bool      `json:"flagged,omitempty"` // false is left out, so not required
	Notes      []string  `json:"notes"`             // nil is written as null
	Extra      *string   `json:"extra,omitempty"`   // nil is left out
	When       string    `json:"-"`                 // never written
	Meta       any       `json:"meta,omitempty"`    // any value: {} (never true)
	Raw        []byte    `json:"raw,omitempty"`     // base64
	Count      int64     `json:"count,string"`      // a number in a string
	Tags       []*tag    `json:"tags,omitempty"`    // elements may be null
	Seen       time.Time `json:"seen"`
}

type tag struct {
	Name string `json:"name"`
}

// TestTOOL7_TypedOutput: AddTypedTool with an output type derives the
// outputSchema from it, fills structuredContent and a text block with the
// same JSON, and the result conforms; a false without omitempty stays.
func TestTOOL7_TypedOutput(t *testing.T) {
	s := New(testInfo, nil)
	must(t, AddTypedTool(s, mcp.Tool{Name: "bmi"}, func(ctx context.Context, req *ToolRequest, in bmiIn) (bmiOut, error) {
		return bmiOut{BMI: in.WeightKg / (in.HeightM * in.HeightM), Count: 7, Seen: time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)}, nil
	}))
	wantOut := obj{
		"type": "object",
		"properties": obj{
			"bmi":        obj{"type": "number"},
			"overweight": obj{"type": "boolean"},
			"flagged":    obj{"type": "boolean"},
			"notes":      obj{"type": []any{"array", "null"}, "items": obj{"type": "string"}},
			"extra":      obj{"type": "string"},
			"meta":       obj{},
			"raw":        obj{"type": "string", "contentEncoding": "base64"},
			"count":      obj{"type": "string"},
			"tags":       obj{"type": "array", "items": obj{"type": []any{"object", "null"}, "properties": obj{"name": obj{"type": "string"}}, "required": []any{"name"}}},
			"seen":       obj{"type": "string", "format": "date-time"},
		},
		"required": []any{"bmi", "overweight", "notes", "count", "seen"},
	}
	forEachTransport(t, s, func(t *testing.T, call caller) {
		_, m := call(1, "tools/list", params(nil))
		tools, _ := wantResult(t, m)["tools"].([]any)
		if len(tools) != 1 {
			t.Fatalf("tools/list: %s", m)
		}
		if got := dig(tools[0], "outputSchema"); !reflect.DeepEqual(got, wantOut) {
			t.Errorf("outputSchema = %s\nwant %s", mustJSON(got), mustJSON(wantOut))
		}
		_, m = call(2, "tools/call", params(obj{"name": "bmi", "arguments": obj{"weightKg": 72.0, "heightM": 1.8}}))
		r := wantResult(t, m)
		sc, _ := r["structuredContent"].(obj)
		if sc == nil || sc["overweight"] != false || sc["notes"] != nil || sc["count"] != "7" {
			t.Fatalf("structuredContent: %s", m)
		}
		if _, ok := sc["overweight"]; !ok {
			t.Errorf("overweight: false vanished: %s", m)
		}
		if _, ok := sc["flagged"]; ok {
			t.Errorf("flagged,omitempty written: %s", m)
		}
		var fromText obj
		if err := json.Unmarshal([]byte(m.text()), &fromText); err != nil || !reflect.DeepEqual(fromText, sc) {
			t.Errorf("text block %q is not the structuredContent %v", m.text(), sc)
		}
	})
}

// celsius encodes itself as a string: its schema cannot be inferred from
// its Go type.
type celsius float64

func (c celsius) MarshalJSON() ([]byte, error) {
	return json.Marshal(fmt.Sprintf("%.1f°C", float64(c)))
}

// fahrenheit encodes itself too, and describes its JSON.
type fahrenheit float64

func (f *fahrenheit) MarshalJSON() ([]byte, error) {
	return json.Marshal(fmt.Sprintf("%.1f°F", float64(*f)))
}
func (fahrenheit) JSONSchema() wire.Raw { return wire.Raw(`{"type":"string","pattern":"°F$"}`) }

type reading struct {
	C celsius               `json:"c"`
	F fahrenheit            `json:"f"`
	M map[string]fahrenheit `json:"m,omitempty"` // map values are not addressable: MarshalJSON with a pointer receiver is not used
}

type node struct {
	Name     string  `json:"name"`
	Children []node  `json:"children,omitempty"`
	Parent   *node   `json:"-"`
	Link     *branch `json:"link,omitempty"`
}

type branch struct {
	To   *branch `json:"to,omitempty"`
	Leaf *node   `json:"leaf,omitempty"`
}

type cyclic struct {
	*other
	X int `json:"x"`
}

type other struct {
	*cyclic
	Y int `json:"y"`
}

type forest struct {
	Trees []node `json:"trees"`
}

// TestTOOL7_OutputSchemaEdges: types that encode themselves, Schemers and
// recursive types get schemas that describe what they really write, and
// their values pass the full validator.
func TestTOOL7_OutputSchemaEdges(t *testing.T) {
	raw, err := OutputSchemaFor[reading]()
	must(t, err)
	var got obj
	must(t, json.Unmarshal(raw, &got))
	want := obj{"type": "object", "properties": obj{
		"c": obj{},
		"f": obj{"type": "string", "pattern": "°F$"},
		"m": obj{"type": "object", "additionalProperties": obj{"type": "number"}},
	}, "required": []any{"c", "f"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reading: %s\nwant %s", raw, mustJSON(want))
	}
	v := reading{C: 21.5, F: 70.7, M: map[string]fahrenheit{"x": 1}}
	checkValue(t, raw, &v)

	raw, err = OutputSchemaFor[forest]()
	must(t, err)
	must(t, json.Unmarshal(raw, &got))
	if dig(got, "properties", "trees", "items", "$ref") != "#/$defs/node" || dig(got, "$defs", "node", "properties", "children", "items", "$ref") != "#/$defs/node" ||
		dig(got, "$defs", "branch", "properties", "to", "$ref") != "#/$defs/branch" {
		t.Errorf("forest: %s", raw)
	}
	checkValue(t, raw, &forest{Trees: []node{{Name: "a", Children: []node{{Name: "b", Link: &branch{To: &branch{Leaf: &node{Name: "c"}}}}}}}})
	if err := checkJSON(raw, `{"trees":[{"name":"a","children":[{"nom":"b"}]}]}`); err == nil {
		t.Errorf("forest: a child without its name passes")
	}

	raw, err = OutputSchemaFor[node]()
	must(t, err)
	must(t, json.Unmarshal(raw, &got))
	if dig(got, "type") != "object" || dig(got, "properties", "children", "items", "$ref") != "#" {
		t.Errorf("node: %s", raw)
	}
	checkValue(t, raw, &node{Name: "root", Children: []node{{Name: "kid"}}})

	// No boolean schema anywhere, in either direction.
	type loose struct {
		A any            `json:"a"`
		M map[string]any `json:"m"`
		L []any          `json:"l"`
	}
	for _, f := range []func() (wire.Raw, error){SchemaFor[loose], OutputSchemaFor[loose]} {
		raw, err := f()
		must(t, err)
		if strings.Contains(string(raw), "true") || strings.Contains(string(raw), "false") {
			t.Errorf("a boolean schema: %s", raw)
		}
	}

	// A generated type is described as any value and encoded by its codec.
	raw, err = OutputSchemaFor[mcp.Implementation]()
	must(t, err)
	if string(raw) != `{}` {
		t.Errorf("mcp.Implementation: %s", raw)
	}
	// Embedding through a pointer may cycle; each embedded type counts once.
	raw, err = OutputSchemaFor[cyclic]()
	must(t, err)
	must(t, json.Unmarshal(raw, &got))
	if dig(got, "properties", "x") == nil || dig(got, "properties", "y") == nil {
		t.Errorf("cyclic: %s", raw)
	}
	if _, err := OutputSchemaFor[chan int](); err == nil {
		t.Errorf("chan int: no error")
	}
	if _, err := SchemaFor[struct{ F func() }](); err == nil || !strings.Contains(err.Error(), ".F") {
		t.Errorf("func field: %v, want an error naming the field", err)
	}
}

// checkValue checks that v, encoded as a typed tool encodes it, passes
// the schema.
func checkValue[T any](t *testing.T, schema wire.Raw, v *T) {
	t.Helper()
	raw, err := encodeOutput(v)
	must(t, err)
	if err := checkJSON(schema, string(raw)); err != nil {
		t.Errorf("%s fails its schema %s: %v", raw, schema, err)
	}
}

func checkJSON(schema wire.Raw, value string) error {
	sch, err := toolschema.Compile("mcp://tool/t/outputSchema", schema)
	if err != nil {
		return err
	}
	return sch.Check(wire.Raw(value))
}

// TestTOOL7_TypedTools: the other shapes of output — a *mcp.CallToolResult
// as it is, a generated type, a map, any (no outputSchema) — and
// ToolError, which is an isError result for the model.
func TestTOOL7_TypedTools(t *testing.T) {
	s := New(testInfo, nil)
	type none struct{}
	must(t, AddTypedTool(s, mcp.Tool{Name: "whole"}, func(ctx context.Context, req *ToolRequest, _ none) (*mcp.CallToolResult, error) {
		return TextResult("as is"), nil
	}))
	must(t, AddTypedTool(s, mcp.Tool{Name: "impl"}, func(ctx context.Context, req *ToolRequest, _ none) (*mcp.Implementation, error) {
		return &mcp.Implementation{Name: "x", Version: "1"}, nil
	}))
	must(t, AddTypedTool(s, mcp.Tool{Name: "map"}, func(ctx context.Context, req *ToolRequest, _ none) (map[string]int, error) {
		return map[string]int{"a": 1}, nil
	}))
	must(t, AddTypedTool(s, mcp.Tool{Name: "any"}, func(ctx context.Context, req *ToolRequest, _ none) (any, error) {
		return []int{1, 2}, nil
	}))
	must(t, AddTypedTool(s, mcp.Tool{Name: "fails"}, func(ctx context.Context, req *ToolRequest, _ none) (bmiOut, error) {
		return bmiOut{}, ToolErrorf("the scale is %s", "broken")
	}))
	c := startStdio(t, s)
	defer c.finish()
	tools, _ := wantResult(t, c.roundTrip(0, "tools/list", params(nil)))["tools"].([]any)
	schemas := map[string]any{}
	for _, tl := range tools {
		schemas[dig(tl, "name").(string)] = dig(tl, "outputSchema")
	}
	if schemas["whole"] != nil || schemas["any"] != nil || !reflect.DeepEqual(schemas["map"], obj{"type": "object", "additionalProperties": obj{"type": "integer"}}) || !reflect.DeepEqual(schemas["impl"], obj{}) {
		t.Errorf("outputSchemas: %v", mustJSON(schemas))
	}
	for i, tc := range []struct{ tool, structured, text string }{
		{"whole", "", "as is"},
		{"impl", `{"name":"x","version":"1"}`, `{"name":"x","version":"1"}`},
		{"map", `{"a":1}`, `{"a":1}`},
		{"any", `[1,2]`, `[1,2]`},
	} {
		m := c.roundTrip(i+1, "tools/call", params(obj{"name": tc.tool}))
		r := wantResult(t, m)
		if sc, _ := json.Marshal(r["structuredContent"]); tc.structured != "" && string(sc) != tc.structured || tc.structured == "" && r["structuredContent"] != nil || m.text() != tc.text {
			t.Errorf("%s: %s", tc.tool, m)
		}
	}
	m := c.roundTrip(9, "tools/call", params(obj{"name": "fails"}))
	if r := wantResult(t, m); r["isError"] != true || m.text() != "the scale is broken" || r["structuredContent"] != nil {
		t.Errorf("ToolError: %s", m)
	}
}

// TestTOOL7_InvalidOutputNotSent: structuredContent that breaks the
// outputSchema, or is missing, is not sent: the call is answered with
// -32603 and the log names the path; an isError result is not checked.
func TestTOOL7_InvalidOutputNotSent(t *testing.T) {
	s, logs := loggedServer(t)
	var out atomicValue
	must(t, s.AddTool(mcp.Tool{Name: "sum", OutputSchema: wire.Raw(`{"type":"object","properties":{"sum":{"type":"number"},"parts":{"type":"array","items":{"type":"integer"}}},"required":["sum"]}`)},
		func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
			return out.get(), nil
		}))
	structured := func(v string) *mcp.CallToolResult {
		r := TextResult(v)
		r.StructuredContent = wire.Raw(v)
		return r
	}
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for i, tc := range []struct {
			result *mcp.CallToolResult
			log    string // "" means valid
		}{
			{structured(`{"sum":3}`), ""},
			{structured(`{"sum":3,"parts":[1,2]}`), ""},
			{structured(`{"sum":"3"}`), "result.structuredContent.sum:"},
			{structured(`{"parts":[1]}`), "result.structuredContent:"},
			{structured(`{"sum":3,"parts":[1,"x"]}`), "result.structuredContent.parts[1]:"},
			{structured(`[1]`), "result.structuredContent:"},
			{TextResult("no structure"), "result.structuredContent: required member is missing"},
			{ErrorResult("failed, nothing structured"), ""},
		} {
			out.set(tc.result)
			before := len(logs.String())
			status, m := call(i, "tools/call", params(obj{"name": "sum"}))
			if tc.log == "" {
				wantResult(t, m)
				continue
			}
			wantStatus(t, status, 200)
			if e := wantError(t, m, -32603); e != nil && strings.Contains(e.Message, "sum") {
				t.Errorf("the error leaks the result: %s", m)
			}
			if l := logs.String()[before:]; !strings.Contains(l, tc.log) || !strings.Contains(l, "name=sum") {
				t.Errorf("%s: log %q does not name %q", tc.result.StructuredContent, l, tc.log)
			}
		}
	})
}

// atomicValue hands a result from the test to a handler.
type atomicValue struct {
	mu sync.Mutex
	r  *mcp.CallToolResult
}

func (a *atomicValue) set(r *mcp.CallToolResult) { a.mu.Lock(); a.r = r; a.mu.Unlock() }
func (a *atomicValue) get() *mcp.CallToolResult {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.r
}

// TestNothingInvalidLeaves: a result a handler (or middleware)
// builds wrongly — a content block with no member set, two members set, a
// prompt message without content — is never sent: -32603 instead, and the
// log names the path.
func TestNothingInvalidLeaves(t *testing.T) {
	s, logs := loggedServer(t)
	toolFunc(t, s, "empty-block", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{TextContent: &mcp.TextContent{Text: "ok"}}, {}}}, nil
	})
	toolFunc(t, s, "two-members", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{TextContent: &mcp.TextContent{Text: "a"}, ImageContent: &mcp.ImageContent{Data: "AA==", MIMEType: "image/png"}}}}, nil
	})
	must(t, s.AddPrompt(mcp.Prompt{Name: "hollow"}, func(ctx context.Context, req *PromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser}}}, nil
	}))
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for i, tc := range []struct {
			method, name, path string
		}{
			{"tools/call", "empty-block", "result.content[1]:"},
			{"tools/call", "two-members", "result.content[0]:"},
			{"prompts/get", "hollow", "result.messages[0].content:"},
		} {
			before := len(logs.String())
			_, m := call(i, tc.method, params(obj{"name": tc.name}))
			wantError(t, m, -32603)
			if l := logs.String()[before:]; !strings.Contains(l, tc.path) || !strings.Contains(l, "method="+tc.method) || !strings.Contains(l, "name="+tc.name) {
				t.Errorf("%s: log %q does not name %s", tc.name, l, tc.path)
			}
		}
	})
}

// TestTOOL4_ToolNames: tool names follow TOOL-4 unless AllowAnyName says
// otherwise; the error names the rule.
func TestTOOL4_ToolNames(t *testing.T) {
	s := New(testInfo, nil)
	for _, name := range []string{"getUser", "DATA_EXPORT_v2", "admin.tools.list", "a", strings.Repeat("x", 128), "with-hyphen"} {
		must(t, s.AddTool(mcp.Tool{Name: name}, okTool))
	}
	for _, name := range []string{"", "my tool", "a/b", "a,b", strings.Repeat("x", 129), "déploy", "tab\t", "emoji😀"} {
		err := s.AddTool(mcp.Tool{Name: name}, okTool)
		var ne *NameError
		if !errors.As(err, &ne) || ne.Rule != "TOOL-4" || !strings.Contains(err.Error(), "TOOL-4") {
			t.Errorf("%q: %v, want a *NameError citing TOOL-4", name, err)
		}
	}
	for _, name := range []string{"my tool", "a/b", "déploy"} {
		must(t, s.AddTool(mcp.Tool{Name: name}, okTool, AllowAnyName()))
	}
	for _, name := range []string{"", "tab\t", "bad\xff"} {
		if err := s.AddTool(mcp.Tool{Name: name}, okTool, AllowAnyName()); err == nil {
			t.Errorf("AllowAnyName accepted %q", name)
		}
	}
	if err := AddTypedTool(s, mcp.Tool{Name: "a b"}, func(ctx context.Context, req *ToolRequest, in struct{}) (*mcp.CallToolResult, error) { return nil, nil }); err == nil {
		t.Errorf("AddTypedTool accepted %q", "a b")
	}
}

// TestPRM8_RES10_Names: prompt and resource template names are refused
// when empty or holding control characters, citing the rule.
func TestPRM8_RES10_Names(t *testing.T) {
	s := New(testInfo, nil)
	prompt := func(ctx context.Context, req *PromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}
	read := func(ctx context.Context, req *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
		return nil, nil
	}
	for _, name := range []string{"", "line\nbreak", "nul\x00"} {
		if err := s.AddPrompt(mcp.Prompt{Name: name}, prompt); err == nil || !strings.Contains(err.Error(), "PRM-8") {
			t.Errorf("prompt %q: %v", name, err)
		}
		if err := s.AddResourceTemplate(mcp.ResourceTemplate{Name: name, URITemplate: "file:///{x}"}, read); err == nil || !strings.Contains(err.Error(), "RES-10") {
			t.Errorf("template %q: %v", name, err)
		}
	}
	must(t, s.AddPrompt(mcp.Prompt{Name: "Code review, ünïcode"}, prompt))
	must(t, s.AddResourceTemplate(mcp.ResourceTemplate{Name: "Project files", URITemplate: "file:///{x}"}, read))
}

// TestTOOL4_Duplicates: registering a name twice is an error unless
// Replace is given; a replaced item keeps its place.
func TestTOOL4_Duplicates(t *testing.T) {
	s := New(testInfo, nil)
	text := func(s string) ToolHandler {
		return func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) { return TextResult(s), nil }
	}
	prompt := func(ctx context.Context, req *PromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}
	read := func(ctx context.Context, req *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
		return []mcp.ReadResourceResultContentsItem{TextContents(req.URI, "", "x")}, nil
	}
	must(t, s.AddTool(mcp.Tool{Name: "a"}, text("first")))
	must(t, s.AddTool(mcp.Tool{Name: "b"}, text("b")))
	must(t, s.AddPrompt(mcp.Prompt{Name: "p"}, prompt))
	must(t, s.AddResource(mcp.Resource{URI: "file:///r", Name: "r"}, read))
	must(t, s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///t/{x}", Name: "t"}, read))
	for kind, err := range map[string]error{
		"tool":              s.AddTool(mcp.Tool{Name: "a"}, text("second")),
		"typed tool":        AddTypedTool(s, mcp.Tool{Name: "a"}, func(ctx context.Context, req *ToolRequest, in struct{}) (*mcp.CallToolResult, error) { return nil, nil }),
		"prompt":            s.AddPrompt(mcp.Prompt{Name: "p"}, prompt),
		"resource":          s.AddResource(mcp.Resource{URI: "file:///r", Name: "other"}, read),
		"resource template": s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///t/{x}", Name: "other"}, read),
	} {
		var de *DuplicateError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "server.Replace()") {
			t.Errorf("%s registered twice: %v, want a *DuplicateError", kind, err)
		}
	}
	must(t, s.AddTool(mcp.Tool{Name: "a"}, text("second"), Replace()))
	must(t, s.AddPrompt(mcp.Prompt{Name: "p", Description: wire.Some("new")}, prompt, Replace()))
	must(t, s.AddResource(mcp.Resource{URI: "file:///r", Name: "renamed"}, read, Replace()))
	must(t, s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///t/{x}", Name: "renamed"}, read, Replace()))
	c := startStdio(t, s)
	defer c.finish()
	tools, _ := wantResult(t, c.roundTrip(1, "tools/list", params(nil)))["tools"].([]any)
	if len(tools) != 2 || dig(tools[0], "name") != "a" || dig(tools[1], "name") != "b" {
		t.Errorf("tools/list after the replacement: %v", mustJSON(tools))
	}
	if m := c.roundTrip(2, "tools/call", params(obj{"name": "a"})); m.text() != "second" {
		t.Errorf("the replaced tool answers: %s", m)
	}
}
