package numbers

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Bounds and multipleOf hold exactly: integers compare in int64 (an
// integer bound of 0.5 is 1), numbers as the decimals they were sent as
// (0.3 is a multiple of 0.01, though 0.3/0.01 is 29.999999999999996 in
// float64).
func TestNumberKeywords(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: the violations, "" for a valid value
	}{
		{`{"quantity":1,"half":1,"step":10,"ratio":0.75,"price":19.99,"level":3}`, ""},
		{`{"quantity":1000000000000000000,"half":10,"step":-5,"ratio":1,"price":0.3,"level":"x"}`, ""},
		{`{"quantity":1,"level":9223372036854775806}`, ""},
		{`{"quantity":1,"level":9223372036854775807}`, "level: must be a multiple of 3"},
		{`{"quantity":1,"step":0,"ratio":0.25,"price":0}`, ""},
		{`{"quantity":0}`, "quantity: must be >= 1"},
		{`{"quantity":9223372036854775807}`, "quantity: must be <= 1000000000000000000"},
		{`{"quantity":1,"half":0}`, "half: must be >= 1"},
		{`{"quantity":1,"half":11}`, "half: must be <= 10"},
		{`{"quantity":1,"step":7}`, "step: must be a multiple of 5"},
		{`{"quantity":1,"ratio":0}`, "ratio: must be > 0"},
		{`{"quantity":1,"ratio":1.25}`, "ratio: must be <= 1"},
		{`{"quantity":1,"ratio":0.3}`, "ratio: must be a multiple of 0.25"},
		{`{"quantity":1,"price":19.999}`, "price: must be a multiple of 0.01"},
		{`{"quantity":1,"price":0.30000000000000004}`, "price: must be a multiple of 0.01"},
		{`{"quantity":1,"price":1000000}`, "price: must be < 1e+06"},
		{`{"quantity":1,"price":-0.01}`, "price: must be >= 0"},
		{`{"quantity":1,"huge":5}`, "huge: must be >= 1e+30 (no int64 is)"},
		{`{"quantity":1,"level":4}`, "level: must be a multiple of 3"},
		{`{"quantity":1,"level":-3}`, "level: must be >= 1"}, // exclusiveMinimum 0 on an integer
	} {
		var o Order
		if err := wireimpl.Decode([]byte(tc.in), &o); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		err := o.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.want != "" && (err == nil || err.Error() != "invalid value: "+tc.want):
			t.Errorf("%s: %v, want %s", tc.in, err, tc.want)
		}
		if tc.want == "" {
			if out, _ := wireimpl.Marshal(&o); string(out) != tc.in {
				t.Errorf("%s re-encoded as %s", tc.in, out)
			}
		}
	}
}
