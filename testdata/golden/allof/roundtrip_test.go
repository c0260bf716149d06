package allof

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// allOf [Error, {code: const -32020}]: the merged error object fixes code
// (checked while decoding, written by the encoder) and keeps Error's other
// members; the shared Error definition still accepts any code.
func TestErrorCodeConst(t *testing.T) {
	in := `{"jsonrpc":"2.0","error":{"code":-32020,"message":"Header mismatch","data":{"header":"Mcp-Method"}}}`
	var m MismatchError
	if err := wireimpl.Decode([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.Error.Message != "Header mismatch" || string(m.Error.Data) != `{"header":"Mcp-Method"}` {
		t.Fatalf("decoded %+v", m.Error)
	}
	if out, _ := wireimpl.Marshal(&m); string(out) != in {
		t.Fatalf("re-encoded %s", out)
	}
	if out, _ := wireimpl.Marshal(&MismatchError{Error: MismatchErrorError{Message: "m"}}); string(out) != `{"jsonrpc":"2.0","error":{"code":-32020,"message":"m"}}` {
		t.Fatalf("built in Go: %s", out)
	}
	var bad MismatchError
	err := wireimpl.Decode([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"x"}}`), &bad)
	var de *wire.DecodeError
	if !errors.As(err, &de) || de.JSONPath() != "error.code" || !strings.Contains(de.Msg, "must be -32020") {
		t.Fatalf("code -32000: got %v", err)
	}
	// The shared definition was not narrowed by the merge.
	var plain PlainErrorResponse
	if err := wireimpl.Decode([]byte(`{"error":{"code":-32000,"message":"x"}}`), &plain); err != nil || plain.Error.Code != -32000 {
		t.Fatalf("Error took the const of MismatchError: %v", err)
	}
	var e Error
	if err := wireimpl.Decode([]byte(`{"code":1,"message":"x"}`), &e); err != nil || e.Validate() != nil {
		t.Fatal(err)
	}
	// Missing code in the merged object: Validate reports it.
	if err := wireimpl.Decode([]byte(`{"jsonrpc":"2.0","error":{"message":"x"}}`), &bad); err != nil {
		t.Fatal(err)
	}
	if err := bad.Validate(); err == nil || err.Error() != "invalid value: error.code: required member is missing" {
		t.Fatalf("got %v", err)
	}
}

// allOf [Base, {size integer >= 1, required}]: the merge narrows number to
// integer, adds the minimum and the requirement, and keeps Base's members.
func TestMergedStruct(t *testing.T) {
	var s Sized
	if err := wireimpl.Decode([]byte(`{"name":"n","size":3,"unit":"KiB"}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Name != "n" || s.Size != 3 || s.Unit.Value != SizedUnitKiB || s.Validate() != nil {
		t.Fatalf("decoded %+v", s)
	}
	var de *wire.DecodeError
	if err := wireimpl.Decode([]byte(`{"name":"n","size":1.5}`), &s); !errors.As(err, &de) || de.JSONPath() != "size" {
		t.Fatalf("size 1.5: got %v", err)
	}
	if err := wireimpl.Decode([]byte(`{"size":0,"unit":"MiB"}`), &s); err != nil {
		t.Fatal(err)
	}
	var ve *wire.ValidationError
	if err := s.Validate(); !errors.As(err, &ve) {
		t.Fatalf("got %v", err)
	}
	var got []string
	for _, v := range ve.Violations {
		got = append(got, v.String())
	}
	want := `name: required member is missing|size: must be >= 1|unit: "MiB" is not one of "B", "KiB"`
	if strings.Join(got, "|") != want {
		t.Fatalf("got %q", got)
	}
	// Base itself still takes a fractional, optional size.
	var b Base
	if err := wireimpl.Decode([]byte(`{"name":"n","size":1.5}`), &b); err != nil || b.Size.Value != 1.5 || b.Validate() != nil {
		t.Fatalf("Base: %v", err)
	}
}
