package mcpheader

import (
	"strings"
	"testing"
)

// TestENC_Vectors: the encoding test vectors of digest §5.3.3 (ENC-1..4),
// and Decode inverts Encode (ENC-5).
func TestENC_Vectors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"us-west1", "us-west1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"tab\tinside", "tab\tinside"},
		{"", ""},
		{"\ttab-leading", "=?base64?CXRhYi1sZWFkaW5n?="},
		{"cr\r", "=?base64?Y3IN?="},
	} {
		if got := Encode(tc.in); got != tc.want {
			t.Errorf("Encode(%q) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := Decode(tc.want)
		if err != nil || back != tc.in {
			t.Errorf("Decode(%q) = %q, %v; want %q", tc.want, back, err, tc.in)
		}
	}
}

// TestHDR2_DecodeRejectsInvalid: bad Base64 (padding, characters) and
// control or non-ASCII characters in a plain value are errors; a value
// missing either sentinel marker is taken literally.
func TestHDR2_DecodeRejectsInvalid(t *testing.T) {
	for _, h := range []string{"=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "caf\u00e9", "a\x01b"} {
		if v, err := Decode(h); err == nil {
			t.Errorf("Decode(%q) = %q, want an error", h, v)
		}
	}
	for _, h := range []string{"SGVsbG8=", "=?base64?SGVsbG8=", "SGVsbG8=?="} {
		if v, err := Decode(h); err != nil || v != h {
			t.Errorf("Decode(%q) = %q, %v; want it literally", h, v, err)
		}
	}
}

// TestXMH_ToolParams: valid annotations are found at their properties
// path; each XMH-1..5 violation invalidates the tool with its reason.
func TestXMH_ToolParams(t *testing.T) {
	prms, err := ToolParams([]byte(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}},
		"flag":{"type":"boolean","x-mcp-header":"Flag"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range prms {
		got[p.Header] = strings.Join(p.Path, ".") + ":" + p.Type
	}
	want := map[string]string{"Region": "region:string", "N": "opts.n:integer", "Flag": "flag:boolean"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("param %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	for _, tc := range []struct{ name, schema, reason string }{
		{"empty", `{"properties":{"a":{"type":"string","x-mcp-header":""}}}`, "XMH-1"},
		{"space", `{"properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`, "XMH-1"},
		{"colon", `{"properties":{"a":{"type":"string","x-mcp-header":"A:B"}}}`, "XMH-1"},
		{"non-ASCII", `{"properties":{"a":{"type":"string","x-mcp-header":"Région"}}}`, "XMH-1"},
		{"not a string", `{"properties":{"a":{"type":"string","x-mcp-header":5}}}`, "XMH-1"},
		{"duplicate", `{"properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}`, "XMH-2"},
		{"number", `{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}`, "XMH-3"},
		{"object", `{"properties":{"a":{"type":"object","x-mcp-header":"A"}}}`, "XMH-3"},
		{"no type", `{"properties":{"a":{"x-mcp-header":"A"}}}`, "XMH-3"},
		{"in items", `{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, "XMH-5"},
		{"in anyOf", `{"anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, "XMH-5"},
		{"at the root", `{"type":"string","x-mcp-header":"A"}`, "XMH-5"},
	} {
		if _, err := ToolParams([]byte(tc.schema)); err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: err = %v, want one citing %s", tc.name, err, tc.reason)
		}
	}
}

// TestXMH7_ValueFormatting: arguments become header strings per ENC-1;
// absent and null arguments send no header; integers beyond ±(2^53-1) and
// fractions are refused (XMH-4); HDR-3 compares integers numerically.
func TestXMH7_ValueFormatting(t *testing.T) {
	p := Param{Header: "N", Path: []string{"n"}, Type: "integer"}
	for _, tc := range []struct {
		args, want string
		present    bool
		fails      bool
	}{
		{`{"n":42}`, "42", true, false},
		{`{"n":-7}`, "-7", true, false},
		{`{"n":42.0}`, "42", true, false},
		{`{"n":null}`, "", false, false},
		{`{}`, "", false, false},
		{`{"n":1.5}`, "", true, true},
		{`{"n":9007199254740992}`, "", true, true},
	} {
		v, present, err := p.Value([]byte(tc.args))
		if (err != nil) != tc.fails || present != tc.present || v != tc.want {
			t.Errorf("Value(%s) = %q, %v, %v", tc.args, v, present, err)
		}
	}
	b := Param{Header: "B", Path: []string{"b"}, Type: "boolean"}
	if v, _, _ := b.Value([]byte(`{"b":true}`)); v != "true" {
		t.Errorf("boolean = %q", v)
	}
	if !p.Equal("42", "42.0") || p.Equal("42", "43") {
		t.Error("integers must compare numerically (HDR-3)")
	}
}
