package wire

import (
	"strings"
	"testing"
)

// TestVerbatimFastPathAvailable: Raw moves jx past a verbatim value
// through jx.Decoder's read offset. If a jx upgrade renames that field,
// decoding still works (the slower path lets jx skip the value first), but
// this test says so.
func TestVerbatimFastPathAvailable(t *testing.T) {
	if jxHead == ^uintptr(0) {
		t.Fatal(`jx.Decoder has no int field "head": Raw falls back to a second pass over verbatim values`)
	}
	d := NewDecoder([]byte(`{"a":{"b":[1,2,{"c":"x"}]},"z":true}`))
	var got []string
	err := d.Obj(func(k []byte) error {
		r, err := d.Raw()
		got = append(got, string(k)+"="+string(r))
		return err
	})
	if err != nil || strings.Join(got, " ") != `a={"b":[1,2,{"c":"x"}]} z=true` {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestVerbatimScan: syntax, depth and duplicate checks of the one-pass
// scanner, each against a value jx accepts or rejects the same way.
func TestVerbatimScan(t *testing.T) {
	for _, tc := range []struct {
		in, err string
	}{
		{`{"a":1,"b":[true,false,null,-0.5e+3,"s\"\\\/\b\f\n\r\t\u00e9"]}`, ""},
		{`{"a":1,"a":2}`, `duplicate member "a"`},
		{`{"a":1,"\u0061":2}`, `duplicate member "a"`},
		{`{"x":{"a":1,"a":2}}`, `x: duplicate member "a"`},
		{`[{"a":1},{"a":1}]`, ""},
		{`{"a":01}`, "invalid JSON"},
		{`{"a":1.}`, "invalid JSON"},
		{`{"a":tru}`, "invalid JSON"},
		{`{"a":"x` + "\x01" + `"}`, "invalid JSON"},
		{`{"a":"\x"}`, "invalid JSON"},
		{`{"a":"\u12"}`, "invalid JSON"},
		{`{"a" 1}`, "invalid JSON"},
		{`{"a":1,}`, "invalid JSON"},
		{`[1,]`, "invalid JSON"},
		{`[1 2]`, "invalid JSON"},
		{`{"a":[}`, "invalid JSON"},
		{`"unterminated`, "invalid JSON"},
	} {
		var v verbatim
		_, err := v.scan([]byte(tc.in), 0, MaxDepth)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("scan(%s) = %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("scan(%s) = %v, want %q", tc.in, err, tc.err)
		}
	}
	deep := strings.Repeat("[", 5) + strings.Repeat("]", 5)
	var v verbatim
	if _, err := v.scan([]byte(deep), 0, 4); err == nil {
		t.Error("5 levels passed a budget of 4")
	}
	if _, err := v.scan([]byte(deep), 0, 5); err != nil {
		t.Errorf("5 levels failed a budget of 5: %v", err)
	}
}
