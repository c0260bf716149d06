package wireimpl

import (
	"strings"
	"testing"
)

// TestRawMovesPastValue: Raw returns each member's value verbatim and
// leaves the decoder just past it.
func TestRawMovesPastValue(t *testing.T) {
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
// scanner, and lone surrogates are refused.
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
		{`"\ud800"`, "lone surrogate"},
		{`"\udc00x"`, "lone surrogate"},
		{`"\ud800\u0041"`, "lone surrogate"},
		{`{"\ud800":1}`, "lone surrogate"},
		{`"\ud834\udd1e"`, ""},
	} {
		var v verbatim
		_, err := v.scan([]byte(tc.in), 0, MaxDepth, true)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("scan(%s) = %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("scan(%s) = %v, want %q", tc.in, err, tc.err)
		}
	}
	deep := strings.Repeat("[", 5) + strings.Repeat("]", 5)
	var v verbatim
	if _, err := v.scan([]byte(deep), 0, 4, true); err == nil {
		t.Error("5 levels passed a budget of 4")
	}
	if _, err := v.scan([]byte(deep), 0, 5, true); err != nil {
		t.Errorf("5 levels failed a budget of 5: %v", err)
	}
}
