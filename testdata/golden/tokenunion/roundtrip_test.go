package tokenunion

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// A string-or-integer id keeps its JSON kind: 1 and "1" stay different
// (digest ID-5) and re-encode as they came.
func TestRequestIdKeepsKind(t *testing.T) {
	for _, tc := range []struct {
		in     string
		str    bool
		strVal string
		intVal int64
	}{
		{`{"id":1}`, false, "", 1},
		{`{"id":"1"}`, true, "1", 0},
		{`{"id":-9223372036854775808}`, false, "", -9223372036854775808},
		{`{"id":""}`, true, "", 0},
		{`{"id":0,"progressToken":"tok","selection":["a","b"]}`, false, "", 0},
		{`{"id":"x","progressToken":7,"selection":"a"}`, true, "x", 0},
	} {
		var r Request
		if err := wireimpl.Decode([]byte(tc.in), &r); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if r.ID.String.Set != tc.str || r.ID.Integer.Set == tc.str || r.ID.String.Value != tc.strVal || r.ID.Integer.Value != tc.intVal {
			t.Fatalf("%s: decoded id %+v", tc.in, r.ID)
		}
		if err := r.Validate(); err != nil {
			t.Fatal(err)
		}
		out, _ := wireimpl.Marshal(&r)
		if string(out) != tc.in {
			t.Fatalf("%s re-encoded as %s", tc.in, out)
		}
	}
	var r Request
	if err := wireimpl.Decode([]byte(`{"id":1,"selection":["a"]}`), &r); err != nil || r.Selection.Array == nil || r.Selection.String.Set {
		t.Fatalf("selection array: %v %+v", err, r.Selection)
	}
	if err := wireimpl.Decode([]byte(`{"id":1,"selection":[]}`), &r); err != nil || r.Selection.Array == nil || r.Selection.IsZero() {
		t.Fatalf("selection []: %v %+v", err, r.Selection)
	}
	if err := wireimpl.Decode([]byte(`{"id":1}`), &r); err != nil || !r.Selection.IsZero() || !r.ProgressToken.IsZero() {
		t.Fatalf("absent unions: %v %+v", err, r)
	}
}

// Floats, booleans, null, objects and out-of-range integers are not ids
// (digest ID-1).
func TestID1_RejectsOtherKinds(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{`{"id":1.5}`, "integer"},
		{`{"id":1e3}`, "integer"},
		{`{"id":true}`, "boolean matches no member of RequestId"},
		{`{"id":null}`, "null matches no member of RequestId"},
		{`{"id":{}}`, "object matches no member of RequestId"},
		{`{"id":99999999999999999999}`, "integer"},
		{`{"id":1,"progressToken":false}`, "boolean matches no member"},
		{`{"id":1,"selection":[1]}`, "expected string"},
		{`{"id":1,"selection":5}`, "number matches no member of Selection"},
	} {
		var r Request
		err := wireimpl.Decode([]byte(tc.in), &r)
		var de *wire.DecodeError
		if !errors.As(err, &de) || !strings.Contains(de.Msg, tc.msg) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.msg)
		}
	}
	var id RequestId
	if err := wireimpl.Decode([]byte(`"abc"`), &id); err != nil || id.String.Value != "abc" {
		t.Fatal(err)
	}
	var empty RequestId
	if empty.Validate() == nil {
		t.Fatal("an empty RequestId must not validate")
	}
	// A required id that is missing is reported by Validate, not invented.
	var r Request
	if err := wireimpl.Decode([]byte(`{}`), &r); err != nil {
		t.Fatal(err)
	}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "id: required member is missing") {
		t.Fatalf("got %v", err)
	}
	if out, _ := wireimpl.Marshal(&r); string(out) != `{}` {
		t.Fatalf("missing id re-encoded as %s", out)
	}
}
