package wireimpl

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

// decimalOf is the Decimal of a positive decimal literal, as the generator
// writes it.
func decimalOf(t testing.TB, s string) Decimal {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		t.Fatalf("bad multipleOf %q", s)
	}
	d, e, _ := shortestDecimal(f)
	return Decimal{Digits: d, Exp: e, Text: s}
}

// multipleRat is the reference: v / m is an integer, in exact rationals.
func multipleRat(v, m string) bool {
	x, _ := new(big.Rat).SetString(v)
	y, _ := new(big.Rat).SetString(m)
	return new(big.Rat).Quo(x, y).IsInt()
}

// multipleOf holds exactly, on decimals: 0.3 is a multiple of 0.1 though
// no float64 quotient says so, 1e308 of 1e-300, 9007199254740993 (an
// int64) of 3.
func TestMultipleOf(t *testing.T) {
	for _, tc := range []struct {
		v, m string
		ok   bool
	}{
		{"0", "0.01", true}, {"-0", "7", true},
		{"0.3", "0.1", true}, {"0.7", "0.1", true}, {"0.35", "0.1", false},
		{"1.1", "0.01", true}, {"19.99", "0.01", true}, {"19.999", "0.01", false},
		{"4.5", "1.5", true}, {"-4.5", "1.5", true}, {"5", "1.5", false},
		{"10", "2.5", true}, {"1e308", "1e-300", true}, {"1e-300", "1e-301", true},
		{"1e-301", "1e-300", false}, {"5e-324", "5e-324", true}, {"1.7976931348623157e308", "1e292", true},
		{"1", "3", false}, {"9", "3", true}, {"1e20", "3", false}, {"3e20", "3", true},
		{"123456789012345.6", "0.1", true}, {"0.1", "0.3", false}, {"2", "0.0001", true},
		{"12345678901234567", "0.5", true}, {"1.5", "1e-17", true},
	} {
		v, _ := strconv.ParseFloat(tc.v, 64)
		var c Checker
		c.MultipleOf(nil, v, decimalOf(t, tc.m))
		if got := c.Err() == nil; got != tc.ok || got != multipleRat(tc.v, tc.m) {
			t.Errorf("%s multipleOf %s: %v, want %v (reference %v)", tc.v, tc.m, got, tc.ok, multipleRat(tc.v, tc.m))
		}
	}
	for _, tc := range []struct {
		v  int64
		m  string
		ok bool
	}{
		{0, "3", true}, {9007199254740993, "3", true}, {9007199254740993, "2", false},
		{math.MaxInt64, "7", true}, {math.MinInt64, "2", true}, {math.MinInt64, "3", false},
		{-6, "1.5", true}, {7, "0.5", true}, {100, "1e2", true}, {100, "1e3", false},
		{1000000000000000000, "1e18", true}, {10, "1e19", false},
	} {
		var c Checker
		c.MultipleOfInt(nil, tc.v, decimalOf(t, tc.m))
		if got := c.Err() == nil; got != tc.ok || got != multipleRat(strconv.FormatInt(tc.v, 10), tc.m) {
			t.Errorf("%d multipleOf %s: %v, want %v", tc.v, tc.m, got, tc.ok)
		}
	}
	// NaN and infinities are no JSON numbers, so no multiples.
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		var c Checker
		if c.MultipleOf(nil, v, decimalOf(t, "1")); c.Err() == nil {
			t.Errorf("%v is a multiple of 1", v)
		}
	}
	var c Checker
	p := Path{Key: "price", Index: -1}
	c.MultipleOf(&p, 19.999, decimalOf(t, "0.01"))
	if err := c.Err(); err == nil || err.Error() != "invalid value: price: must be a multiple of 0.01" {
		t.Errorf("message: %v", err)
	}
}

// Random values against the big.Rat reference, and no allocation on
// success.
func TestMultipleOfRandom(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	ms := []string{"0.01", "0.1", "0.25", "3", "7", "1.5", "1e-5", "1e5", "0.125", "12.34"}
	for i := 0; i < 20000; i++ {
		m := ms[rnd.IntN(len(ms))]
		// A multiple (k × m) half the time, a near miss otherwise.
		k := rnd.Int64N(2_000_000) - 1_000_000
		r, _ := new(big.Rat).SetString(m)
		r.Mul(r, new(big.Rat).SetInt64(k))
		if rnd.IntN(2) == 0 {
			r.Add(r, big.NewRat(1, 1000))
		}
		f, _ := r.Float64()
		s := strconv.FormatFloat(f, 'g', -1, 64)
		var c Checker
		c.MultipleOf(nil, f, decimalOf(t, m))
		if got := c.Err() == nil; got != multipleRat(s, m) {
			t.Fatalf("%s multipleOf %s: %v", s, m, got)
		}
	}
	d := decimalOf(t, "0.01")
	if n := testing.AllocsPerRun(100, func() {
		var c Checker
		c.MultipleOf(nil, 19.99, d)
		c.MultipleOfInt(nil, 1999, d)
		c.MinimumInt(nil, 5, 0)
		c.MaximumInt(nil, 5, 10)
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

// Integer bounds compare in int64, exactly at the ends of the range.
func TestIntBounds(t *testing.T) {
	for _, tc := range []struct {
		v, min, max int64
		ok          bool
	}{
		{0, 0, 0, true}, {-1, 0, 10, false}, {11, 0, 10, false},
		{math.MaxInt64, math.MaxInt64 - 1, math.MaxInt64, true},
		{math.MaxInt64 - 1, math.MaxInt64, math.MaxInt64, false}, // float64 would call them equal
		{1<<53 + 1, 1<<53 + 1, 1<<53 + 1, true},
		{1 << 53, 1<<53 + 1, math.MaxInt64, false},
	} {
		var c Checker
		c.MinimumInt(nil, tc.v, tc.min)
		c.MaximumInt(nil, tc.v, tc.max)
		if got := c.Err() == nil; got != tc.ok {
			t.Errorf("%d in [%d, %d]: %v", tc.v, tc.min, tc.max, got)
		}
	}
}
