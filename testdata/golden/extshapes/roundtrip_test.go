package extshapes

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.
// The shapes come from schemas generated from TypeScript, such as the
// tasks extension's.

import (
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// A union of string constants is an enumeration; the same values inline
// are the definition's type.
func TestConstUnionIsEnum(t *testing.T) {
	var d Device
	if err := wireimpl.Decode([]byte(`{"status":"on","labels":{"a":1}}`), &d); err != nil {
		t.Fatal(err)
	}
	var s Status = d.Status // the definition's type
	if s != StatusOn || d.Validate() != nil || string(d.Labels) != `{"a":1}` {
		t.Fatalf("decoded %+v", d)
	}
	if err := wireimpl.Decode([]byte(`{"status":"dim"}`), &d); err != nil {
		t.Fatal(err)
	}
	var ve *wire.ValidationError
	if err := d.Validate(); !errors.As(err, &ve) || ve.Violations[0].String() != `status: "dim" is not one of "on", "off"` {
		t.Fatalf("Validate() = %v", err)
	}
}

// additionalProperties {"not": {}} admits no member: one is a decoding
// error, {} is the value.
func TestNotEmptyAdmitsNothing(t *testing.T) {
	var e Empty
	if err := wireimpl.Decode([]byte(`{}`), &e); err != nil {
		t.Fatal(err)
	}
	if out, _ := wireimpl.Marshal(&e); string(out) != `{}` {
		t.Fatalf("re-encoded %s", out)
	}
	var de *wire.DecodeError
	if err := wireimpl.Decode([]byte(`{"x":1}`), &e); !errors.As(err, &de) {
		t.Fatalf("a member of Empty: %v", err)
	}
}

// The members beside a union belong to each of its members.
func TestSiblingsInEveryVariant(t *testing.T) {
	var s Shape
	if err := wireimpl.Decode([]byte(`{"kind":"k","form":"square","side":2}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.ShapeVariant1 == nil || s.ShapeVariant1.Kind != "k" || s.ShapeVariant1.Side != 2 || s.Validate() != nil {
		t.Fatalf("decoded %+v", s)
	}
	if out, _ := wireimpl.Marshal(&s); string(out) != `{"form":"square","side":2,"kind":"k"}` {
		t.Fatalf("re-encoded %s", out)
	}
	if err := wireimpl.Decode([]byte(`{"form":"circle","r":1}`), &s); err != nil {
		t.Fatal(err)
	}
	var ve *wire.ValidationError
	if err := s.Validate(); !errors.As(err, &ve) || ve.Violations[0].String() != "kind: required member is missing" {
		t.Fatalf("a member without the shared required member: %v", err)
	}
}

// A message's params are a struct: its declared member is a field, the
// open members are kept.
func TestMessageParamsStruct(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"token":"t","_meta":{"a":1}}}`
	var p PingRequest
	if err := wireimpl.Decode([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	meta, ok := p.Params.Extra.Get("_meta")
	if p.Params.Token != "t" || !ok || string(meta) != `{"a":1}` || p.Validate() != nil {
		t.Fatalf("decoded %+v", p)
	}
	if out, _ := wireimpl.Marshal(&p); string(out) != in {
		t.Fatalf("re-encoded %s", out)
	}
}
