package typearrays

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// type ["integer","null"]: absent, null and a number are three different
// states, each kept through a round trip.
func TestNullableTriState(t *testing.T) {
	for _, tc := range []struct {
		in          string
		totalAbsent bool
		totalNull   bool
		total       int64
	}{
		{`{"done":1}`, true, false, 0},
		{`{"total":null,"done":null}`, false, true, 0},
		{`{"total":0,"done":0}`, false, false, 0},
		{`{"total":12,"done":3,"label":null,"value":"x"}`, false, false, 12},
		{`{"done":3,"label":"","value":false}`, true, false, 0},
		{`{"done":3,"value":2.5}`, true, false, 0},
	} {
		var p Progress
		if err := wireimpl.Decode([]byte(tc.in), &p); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if p.Total.IsZero() != tc.totalAbsent || p.Total.Null != tc.totalNull || p.Total.Integer.Value != tc.total {
			t.Fatalf("%s: total %+v", tc.in, p.Total)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if out, _ := wireimpl.Marshal(&p); string(out) != tc.in {
			t.Fatalf("%s re-encoded as %s", tc.in, out)
		}
	}
	var p Progress
	if err := wireimpl.Decode([]byte(`{"done":null,"value":1}`), &p); err != nil || !p.Value.Number.Set || p.Value.Number.Value != 1 {
		t.Fatalf("value 1: %v %+v", err, p.Value)
	}
}

// Keywords beside a type list apply to the members they concern
// (minimum to the integer); other kinds are rejected while decoding.
func TestTypeListChecks(t *testing.T) {
	var p Progress
	if err := wireimpl.Decode([]byte(`{"done":-1}`), &p); err != nil {
		t.Fatal(err)
	}
	var ve *wire.ValidationError
	if err := p.Validate(); !errors.As(err, &ve) || len(ve.Violations) != 1 || ve.Violations[0].String() != "done: must be >= 0" {
		t.Fatalf("got %v", err)
	}
	for _, tc := range []struct{ in, path, msg string }{
		{`{"done":"1"}`, "done", "string matches no member of ProgressDone"},
		{`{"done":1.5}`, "done", "integer"},
		{`{"done":1,"total":true}`, "total", "boolean matches no member of Total"},
		{`{"done":1,"label":1}`, "label", "number matches no member of ProgressLabel"},
		{`{"done":1,"value":null}`, "value", "null matches no member of Scalar"},
		{`{"done":1,"value":[]}`, "value", "array matches no member of Scalar"},
	} {
		var p Progress
		err := wireimpl.Decode([]byte(tc.in), &p)
		var de *wire.DecodeError
		if !errors.As(err, &de) || de.JSONPath() != tc.path || !strings.Contains(de.Msg, tc.msg) {
			t.Errorf("%s: got %v, want %q at %q", tc.in, err, tc.msg, tc.path)
		}
	}
	// The required member "done" missing is not the same as null.
	if err := wireimpl.Decode([]byte(`{}`), &p); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err == nil || err.Error() != "invalid value: done: required member is missing" {
		t.Fatalf("got %v", err)
	}
}
