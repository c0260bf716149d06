package maps

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// A map with typed values decodes into a Go map, validates every value at
// its key and encodes with sorted keys.
func TestTypedMap(t *testing.T) {
	var s Scores
	if err := wireimpl.Decode([]byte(`{"zoe":3,"al":0,"a b":1}`), &s); err != nil {
		t.Fatal(err)
	}
	if len(s) != 3 || s["zoe"] != 3 {
		t.Fatalf("decoded %v", s)
	}
	if out, _ := wireimpl.Marshal(&s); string(out) != `{"a b":1,"al":0,"zoe":3}` {
		t.Fatalf("encoded %s", out)
	}
	if err := wireimpl.Decode([]byte(`{"al":-1,"a b":-2}`), &s); err != nil {
		t.Fatal(err)
	}
	var ve *wire.ValidationError
	if err := s.Validate(); !errors.As(err, &ve) || len(ve.Violations) != 2 ||
		ve.Violations[0].String() != `["a b"]: must be >= 0` || ve.Violations[1].String() != "al: must be >= 0" {
		t.Fatalf("got %v", err)
	}
	var de *wire.DecodeError
	if err := wireimpl.Decode([]byte(`{"al":1,"al":2}`), &s); !errors.As(err, &de) || !strings.Contains(de.Msg, `duplicate member "al"`) {
		t.Fatalf("duplicate key: %v", err)
	}
	if err := wireimpl.Decode([]byte(`{"al":"1"}`), &s); !errors.As(err, &de) || de.JSONPath() != "al" {
		t.Fatalf("string value: %v", err)
	}
	// {} stays a present, empty map.
	if err := wireimpl.Decode([]byte(`{}`), &s); err != nil || s == nil || len(s) != 0 {
		t.Fatalf("{}: %v %#v", err, s)
	}
}

// Free-form members (additionalProperties {} or true, or no members at
// all) are kept verbatim, byte for byte; nested typed maps decode.
func TestFreeFormVerbatim(t *testing.T) {
	in := `{"labels":{"b":"2","a":"1"},"limits":{"x":{"max":3}},"experimental":{"z" : 1.50, "a":[null,{"k":true}]},"extensions":{"io.x/y":{}},"arguments":{"n":1e400},"inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`
	var s Settings
	if err := wireimpl.Decode([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if string(s.Experimental) != `{"z" : 1.50, "a":[null,{"k":true}]}` || string(s.Arguments) != `{"n":1e400}` {
		t.Fatalf("verbatim values changed: %s %s", s.Experimental, s.Arguments)
	}
	if s.Limits["x"].Max != 3 {
		t.Fatalf("limits: %+v", s.Limits)
	}
	out, _ := wireimpl.Marshal(&s)
	want := strings.Replace(in, `{"b":"2","a":"1"}`, `{"a":"1","b":"2"}`, 1) // typed maps are written sorted
	if string(out) != want {
		t.Fatalf("re-encoded\n%s\nwant\n%s", out, want)
	}
	// A free-form object member must still be an object.
	var de *wire.DecodeError
	if err := wireimpl.Decode([]byte(`{"labels":{},"inputSchema":{"type":"object"},"experimental":[]}`), &s); !errors.As(err, &de) || de.JSONPath() != "experimental" {
		t.Fatalf("experimental: []: %v", err)
	}
	// The declared members of an open object are checked on the raw bytes.
	for _, tc := range []struct{ in, want string }{
		{`{"labels":{},"inputSchema":{}}`, "inputSchema.type: required member is missing"},
		{`{"labels":{},"inputSchema":{"type":"string"}}`, `inputSchema.type: must be "object"`},
		{`{"labels":{},"inputSchema":{"type":5}}`, "inputSchema.type: expected string, got number"},
		{`{"inputSchema":{"type":"object"}}`, "labels: required member is missing"},
		{`{"labels":{},"inputSchema":{"type":"object"},"limits":{"a":{}}}`, "limits.a.max: required member is missing"},
		// extensions keeps its members verbatim, yet each must be an object.
		{`{"labels":{},"inputSchema":{"type":"object"},"extensions":{"a":{},"io.x/y":5}}`, `extensions["io.x/y"]: expected object, got number`},
	} {
		var s Settings
		if err := wireimpl.Decode([]byte(tc.in), &s); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		var ve *wire.ValidationError
		if err := s.Validate(); !errors.As(err, &ve) || len(ve.Violations) != 1 || ve.Violations[0].String() != tc.want {
			t.Errorf("%s: got %v, want %s", tc.in, err, tc.want)
		}
	}
	// A missing required verbatim object is not invented.
	var m Settings
	if err := wireimpl.Decode([]byte(`{"labels":{}}`), &m); err != nil {
		t.Fatal(err)
	}
	if out, _ := wireimpl.Marshal(&m); string(out) != `{"labels":{}}` {
		t.Fatalf("got %s", out)
	}
	// Built in Go, a nil required object is written as the smallest object
	// its schema admits: {"type":"object"} for one that requires a constant
	// member (a tool's inputSchema), {} for one that requires nothing; so
	// the zero value validates, and what it encodes decodes and validates.
	zero := Settings{}
	out, err := wireimpl.Marshal(&zero)
	if string(out) != `{"labels":{},"inputSchema":{"type":"object"}}` || err != nil || zero.Validate() != nil {
		t.Fatalf("got %s, %v, Validate %v", out, err, zero.Validate())
	}
	var back Settings
	if err := wireimpl.Decode(out, &back); err != nil || back.Validate() != nil {
		t.Fatalf("decoding %s: %v, Validate %v", out, err, back.Validate())
	}
}

// Definitions that are free-form JSON are wire.Raw: any value, verbatim.
func TestFreeFormDefinitions(t *testing.T) {
	for _, in := range []string{`null`, `1.25`, `"s"`, `[1,{"a":[]}]`, `{"k" : "v"}`} {
		var a Anything
		if err := wireimpl.Decode([]byte(in), &a); err != nil || string(a) != in {
			t.Fatalf("%s: %v %s", in, err, a)
		}
	}
	// A member referring to a free-form object definition keeps it
	// verbatim and still requires an object.
	var s Settings
	if err := wireimpl.Decode([]byte(`{"labels":{},"inputSchema":{"type":"object"},"free":{"a" :1}}`), &s); err != nil || string(s.Free) != `{"a" :1}` {
		t.Fatalf("free: %v %s", err, s.Free)
	}
	var de *wire.DecodeError
	if err := wireimpl.Decode([]byte(`{"labels":{},"inputSchema":{"type":"object"},"free":"x"}`), &s); !errors.As(err, &de) || de.JSONPath() != "free" {
		t.Fatalf("free: \"x\": %v", err)
	}
}

// A _meta member is a struct wherever it appears, held by pointer when
// optional: MetaObject (a definition declaring no key) and an inline _meta
// schema alike keep every key in Extra, values verbatim.
func TestMetaIsAStruct(t *testing.T) {
	var s Settings
	in := `{"labels":{},"inputSchema":{"type":"object"},"_meta":{"com.example/a":{"b": 1},"c":"d"},"limits":{"x":{"max":1,"_meta":{"e":[ ]}}}}`
	if err := wireimpl.Decode([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	var _ *MetaObject = s.Meta
	var _ *Meta = s.Limits["x"].Meta
	if v, ok := s.Meta.Extra.Get("com.example/a"); !ok || string(v) != `{"b": 1}` {
		t.Fatalf("com.example/a = %s, %v", v, ok)
	}
	if v, ok := s.Limits["x"].Meta.Extra.Get("e"); !ok || string(v) != `[ ]` {
		t.Fatalf("e = %s, %v", v, ok)
	}
	out, err := wireimpl.Marshal(&s)
	if err != nil || string(out) != `{"labels":{},"limits":{"x":{"max":1,"_meta":{"e":[ ]}}},"_meta":{"com.example/a":{"b": 1},"c":"d"},"inputSchema":{"type":"object"}}` {
		t.Fatalf("got %s, %v", out, err)
	}
}
