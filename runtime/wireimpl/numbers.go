package wireimpl

import (
	"math"
	"math/bits"
	"strconv"
)

// Exact numbers. A JSON number decoded into a float64 must come back as
// the same number when encoded (the encoder writes the shortest decimal
// that rounds to the float64). That holds exactly when the number, as a
// decimal, equals that shortest decimal.

// exactFloat reports whether the JSON number s, parsed as v, is exactly the
// shortest decimal of v.
func exactFloat(s string, v float64) bool {
	n := sigDigits(s)
	if n == 0 {
		return v == 0 // any spelling of zero
	}
	// Up to 15 significant digits round-trip through a normal float64:
	// two such decimals are further apart than float64 precision, so the
	// shortest decimal of v is s itself.
	if n <= 15 && math.Abs(v) >= 0x1p-1022 && !math.IsInf(v, 0) {
		return true
	}
	if v == 0 || math.IsInf(v, 0) {
		return false
	}
	neg, digits, exp := decimal(s)
	var buf [32]byte
	short := strconv.AppendFloat(buf[:0], v, 'e', -1, 64)
	sneg, sdigits, sexp := decimal(string(short))
	return neg == sneg && exp == sexp && digits == sdigits
}

// sigDigits counts the significant digits of the JSON number s: those
// from its first non-zero digit to its last non-zero one.
func sigDigits(s string) int {
	first, last, n := -1, -1, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 'e' || c == 'E' {
			break
		}
		if c < '0' || c > '9' {
			continue
		}
		if c != '0' {
			if first < 0 {
				first = n
			}
			last = n
		}
		n++
	}
	if first < 0 {
		return 0
	}
	return last - first + 1
}

// decimal normalizes the JSON number s into its sign, its significant
// digits without leading or trailing zeros, and the exponent that places
// the decimal point after the first digit: 0.0120e3 is (false, "12", 1).
// Zero has no digits.
func decimal(s string) (neg bool, digits string, exp int) {
	i := 0
	if i < len(s) && s[i] == '-' {
		neg, i = true, 1
	}
	// Collect the mantissa's digits, noting where the point is.
	var b [64]byte
	d := b[:0]
	point := -1 // digits before the point
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			point = len(d)
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		d = append(d, c)
	}
	if point < 0 {
		point = len(d)
	}
	e := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil {
			// An exponent beyond int: such a number is out of float64 range
			// or zero; ParseFloat has said which.
			n = math.MaxInt32
			if len(s) > i+1 && s[i+1] == '-' {
				n = math.MinInt32
			}
		}
		e = n
	}
	lead := 0
	for lead < len(d) && d[lead] == '0' {
		lead++
	}
	trail := len(d)
	for trail > lead && d[trail-1] == '0' {
		trail--
	}
	if lead == trail {
		return neg, "", 0
	}
	return neg, string(d[lead:trail]), point - lead - 1 + e
}

// shortestDecimal returns |v| as digits × 10^exp, digits being the
// significant digits of its shortest decimal (at most 17, so they fit);
// ok is false for NaN and infinities.
func shortestDecimal(v float64) (digits uint64, exp int, ok bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, 0, false
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], math.Abs(v), 'e', -1, 64) // d.ddde±XX
	n, i := 0, 0
	for ; b[i] != 'e'; i++ {
		if b[i] != '.' {
			digits = digits*10 + uint64(b[i]-'0')
			n++
		}
	}
	e, neg := 0, b[i+1] == '-'
	for _, c := range b[i+2:] {
		e = e*10 + int(c-'0')
	}
	if neg {
		e = -e
	}
	return digits, e - (n - 1), true
}

// isMultiple reports whether digits × 10^exp is an integer multiple of m,
// in integer arithmetic: with k = exp - m.Exp, whether m.Digits divides
// digits × 10^k (k >= 0), or m.Digits × 10^-k divides digits (k < 0).
func isMultiple(digits uint64, exp int, m Decimal) bool {
	if digits == 0 {
		return true
	}
	if m.Digits == 0 {
		return false // not a valid multipleOf; the generator never writes one
	}
	k := exp - m.Exp
	if k >= 0 {
		// digits × 10^k mod m.Digits, one factor of ten at a time: r < m.Digits,
		// so r × 10 fits in 128 bits with a high word below m.Digits.
		r := digits % m.Digits
		for ; k > 0 && r != 0; k-- {
			hi, lo := bits.Mul64(r, 10)
			_, r = bits.Div64(hi, lo, m.Digits)
		}
		return r == 0
	}
	q := m.Digits
	for ; k < 0; k++ {
		hi, lo := bits.Mul64(q, 10)
		if hi != 0 || lo > digits {
			return false // the divisor exceeds digits, which is not 0
		}
		q = lo
	}
	return digits%q == 0
}
