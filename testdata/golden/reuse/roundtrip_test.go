package reuse

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.
// The package is generated with -reuse against the golden case reusecore.

import (
	"errors"
	"slices"
	"testing"

	"example.com/tmpgen/reusecore"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// The repeated definitions are the core package's types, not copies: a
// value of one is a value of the other, with no conversion.
func TestReusedDefinitionsAreCoreTypes(t *testing.T) {
	var e *reusecore.Error = &Error{Code: 1, Message: "m"} // an alias: the same type
	var k Kind = reusecore.KindFolder
	var items Items = reusecore.Items{"x": {Name: "x", Kind: k}}
	j := Job{ID: "1", State: JobStateRunning, Error: e, ByName: items, Kind: wire.Some(k)}
	if err := j.Validate(); err != nil {
		t.Fatal(err)
	}
	v, ok := NewDefinition("Error")
	if _, isCore := v.(*reusecore.Error); !ok || !isCore {
		t.Fatalf("NewDefinition(Error) = %T", v)
	}
	if Shapes["Error"] != reusecore.Shapes["Error"] || Shapes["Job"].Members["error"] != reusecore.Shapes["Error"] {
		t.Fatal("the shapes of reused definitions are not the core package's")
	}
	if _, ok := NewDefinition("Core"); ok {
		t.Fatal("Core, which the extension's schema does not declare, is a definition of the extension")
	}
}

// An extension type that refers to core types decodes them with the core
// codecs and re-encodes byte for byte.
func TestReferenceToCoreRoundTrip(t *testing.T) {
	in := `{"id":"j1","state":"done","error":{"code":-32603,"message":"boom","data":{"x":[1]}},` +
		`"inputs":[{"name":"a","kind":"file"},{"name":"b","kind":"folder","size":2}],` +
		`"byName":{"a":{"name":"a","kind":"file"}},"kind":"folder","extra":true}`
	var j Job
	if err := wireimpl.Decode([]byte(in), &j); err != nil {
		t.Fatal(err)
	}
	if err := j.Validate(); err != nil {
		t.Fatal(err)
	}
	if j.Error.Code != -32603 || string(j.Error.Data) != `{"x":[1]}` || j.Inputs[1].Size.Value != 2 || j.ByName["a"].Kind != reusecore.KindFile {
		t.Fatalf("decoded %+v", j)
	}
	out, err := wireimpl.Marshal(&j)
	if err != nil || string(out) != in {
		t.Fatalf("re-encoded %s (%v)", out, err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"id":"1","state":"done","error":{"code":1}}`, `error.message: required member is missing`},
		{`{"id":"1","state":"done","error":{"code":40000,"message":"m"}}`, `error.code: must be <= 32767`},
		{`{"id":"1","state":"done","inputs":[{"name":"a","kind":"file"},{"name":"","kind":"file"}]}`, `inputs[1].name: must not be empty`},
		{`{"id":"1","state":"done","byName":{"a b":{"name":"x","kind":"disk"}}}`, `byName["a b"].kind: "disk" is not one of "file", "folder"`},
		{`{"id":"1","state":"done","kind":"disk"}`, `kind: "disk" is not one of "file", "folder"`},
		{`{"id":"1","state":"paused"}`, `state: "paused" is not one of "running", "done"`},
	} {
		var j Job
		if err := wireimpl.Decode([]byte(tc.in), &j); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		var ve *wire.ValidationError
		if err := j.Validate(); !errors.As(err, &ve) || !slices.ContainsFunc(ve.Violations, func(v wire.Violation) bool { return v.String() == tc.want }) {
			t.Errorf("%s: Validate() = %v, want %s", tc.in, err, tc.want)
		}
	}
}

// A union of the extension whose members are core types picks the member
// with the core decoders.
func TestUnionOfCoreTypes(t *testing.T) {
	var o Outcome
	if err := wireimpl.Decode([]byte(`{"code":7,"message":"no"}`), &o); err != nil {
		t.Fatal(err)
	}
	if o.Error == nil || o.Error.Code != 7 || o.Item != nil {
		t.Fatalf("decoded %+v", o)
	}
	if err := wireimpl.Decode([]byte(`{"name":"n","kind":"file"}`), &o); err != nil {
		t.Fatal(err)
	}
	if o.Item == nil || o.Item.Name != "n" {
		t.Fatalf("decoded %+v", o)
	}
}
