package names

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Every enum value has its own constant even when their natural names
// collide (a-b / a_b) or collide with a type (MethodGet).
func TestEnumConstantsAreDistinct(t *testing.T) {
	consts := map[Method]string{
		MethodGet2: "get", MethodGET: "GET", MethodAB: "a-b", MethodAB2: "a_b",
		MethodValue4: "", MethodValue5: "-", Method1x: "1x",
	}
	if len(consts) != 7 {
		t.Fatalf("constants share values: %v", consts)
	}
	for c, v := range consts {
		if string(c) != v || c.Validate() != nil {
			t.Errorf("%q: %v", v, c.Validate())
		}
	}
	var m MethodGet = "free text" // the type kept its name
	_ = m
	if Method("a.b").Validate() == nil {
		t.Error("a.b is not a value")
	}
}

// Members keep their JSON names whatever Go names they get.
func TestMemberNames(t *testing.T) {
	in := `{"foo_bar":"s","fooBar":1,"extra":"e","validate":true,"string":"x","io.example/id":"i","2fa":false,"other":null}`
	var o Obj
	if err := wireimpl.Decode([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	if o.FooBar.Value != "s" || o.FooBar_.Value != 1 || o.Extra_.Value != "e" || !o.Validate_.Value || o.String_.Value != "x" || o.ID.Value != "i" || !o.X2fa.Set || len(o.Extra) != 1 {
		t.Fatalf("decoded %+v", o)
	}
	if out, _ := wireimpl.Marshal(&o); string(out) != in {
		t.Fatalf("re-encoded %s", out)
	}
}

// Union members named like union methods are renamed; decoding picks them.
func TestUnionMemberNames(t *testing.T) {
	var u U
	if err := wireimpl.Decode([]byte(`{"a":"x"}`), &u); err != nil || u.Validate2 == nil || u.Validate2.A != "x" {
		t.Fatalf("%v %+v", err, u)
	}
	if err := wireimpl.Decode([]byte(`{"b":"y"}`), &u); err != nil || u.IsZero2 == nil {
		t.Fatalf("%v %+v", err, u)
	}
	if err := wireimpl.Decode([]byte(`"z"`), &u); err != nil || u.String.Value != "z" || u.IsZero() || u.Validate() != nil {
		t.Fatalf("%v %+v", err, u)
	}
}
