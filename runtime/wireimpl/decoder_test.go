package wireimpl

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// tree decodes any JSON value through Obj and Arr (objects and arrays
// nest, scalars are skipped); verbatim, when set, reads objects' member
// values with Raw instead, as generated code does for free-form members.
type tree struct {
	verbatim bool
	raws     []wire.Raw
	keys     []string
}

func (x *tree) DecodeJSON(d *Decoder) error {
	switch d.Next() {
	case wire.KindObject:
		return d.Obj(func(key []byte) error {
			x.keys = append(x.keys, string(key))
			if x.verbatim {
				r, err := d.Raw()
				if err != nil {
					return AtKey(err, string(key))
				}
				x.raws = append(x.raws, r)
				return nil
			}
			if err := x.DecodeJSON(d); err != nil {
				return AtKey(err, string(key))
			}
			return nil
		})
	case wire.KindArray:
		return d.Arr(func(i int) error {
			if err := x.DecodeJSON(d); err != nil {
				return AtIndex(err, i)
			}
			return nil
		})
	}
	return d.Skip()
}

// raw decodes one value verbatim.
type raw struct{ v wire.Raw }

func (x *raw) DecodeJSON(d *Decoder) (err error) { x.v, err = d.Raw(); return }

func nestedArrays(levels int) string {
	return strings.Repeat("[", levels) + strings.Repeat("]", levels)
}

func nestedObjects(levels int) string {
	return strings.Repeat(`{"a":`, levels-1) + "{}" + strings.Repeat("}", levels-1)
}

// mixed nests levels alternating arrays and objects.
func mixed(levels int) string {
	var open, close strings.Builder
	for i := 0; i < levels; i++ {
		if i%2 == 0 {
			open.WriteString("[")
		} else {
			open.WriteString(`{"k":`)
		}
	}
	for i := levels - 1; i >= 0; i-- {
		if i%2 == 0 {
			close.WriteString("]")
		} else {
			close.WriteString("}")
		}
	}
	return open.String() + "0" + close.String()
}

func isTooDeep(err error) bool {
	var de *wire.DecodeError
	return errors.As(err, &de) && de.Msg == fmt.Sprintf("nesting deeper than %d levels", MaxDepth)
}

// The outermost value is depth 1: MaxDepth levels decode, MaxDepth+1 do not,
// whether the nesting is decoded member by member or kept verbatim, and
// whatever the mix of objects and arrays.
func TestDepthLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		json func(levels int) string
		v    func() DecodeJSONer
	}{
		{"arrays decoded", nestedArrays, func() DecodeJSONer { return &tree{} }},
		{"objects decoded", nestedObjects, func() DecodeJSONer { return &tree{} }},
		{"arrays verbatim", nestedArrays, func() DecodeJSONer { return &raw{} }},
		{"objects verbatim", nestedObjects, func() DecodeJSONer { return &raw{} }},
		// The outer object is decoded (depth 1); its member is kept verbatim
		// with the remaining budget.
		{"verbatim member", func(n int) string { return `{"m":` + nestedArrays(n-1) + `}` }, func() DecodeJSONer { return &tree{verbatim: true} }},
		{"verbatim member of objects", func(n int) string { return `{"x":1,"m":` + nestedObjects(n-1) + `}` }, func() DecodeJSONer { return &tree{verbatim: true} }},
		{"mixed", mixed, func() DecodeJSONer { return &tree{} }},
		{"mixed verbatim", mixed, func() DecodeJSONer { return &raw{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := Decode([]byte(tc.json(MaxDepth)), tc.v()); err != nil {
				t.Fatalf("%d levels: %v", MaxDepth, err)
			}
			if err := Decode([]byte(tc.json(MaxDepth+1)), tc.v()); !isTooDeep(err) {
				t.Fatalf("%d levels: %v", MaxDepth+1, err)
			}
			if err := Decode([]byte(tc.json(10*MaxDepth)), tc.v()); !isTooDeep(err) {
				t.Fatalf("%d levels: %v", 10*MaxDepth, err)
			}
		})
	}
}

// The verbatim depth check parses: brackets inside strings do not count,
// and the path of a too-deep verbatim value is the value itself.
func TestDepthLimitVerbatimStrings(t *testing.T) {
	s := `{"m":["` + strings.Repeat("[{", 300) + `\"]"]}`
	var x tree
	x.verbatim = true
	if err := Decode([]byte(s), &x); err != nil {
		t.Fatalf("brackets inside a string: %v", err)
	}
	err := Decode([]byte(`{"m":`+nestedArrays(MaxDepth)+`}`), &tree{verbatim: true})
	var de *wire.DecodeError
	if !errors.As(err, &de) || de.JSONPath() != "m" || !isTooDeep(err) {
		t.Fatalf("got %v, want nesting too deep at m", err)
	}
}

// Decode checks UTF-8 over the whole input; a member name that is not
// UTF-8 is caught by Obj too when the caller skipped that check.
func TestUTF8(t *testing.T) {
	for _, in := range []string{"\"\xff\"", "{\"a\":\"\xc0\xaf\"}", "{\"\xfe\":1}", "\"\xed\xa0\x80\"", "[\"ok\",\"\xe2\x82\"]"} {
		err := Decode([]byte(in), &tree{})
		var de *wire.DecodeError
		if !errors.As(err, &de) || de.Msg != "invalid UTF-8" || de.JSONPath() != "" {
			t.Errorf("%q: %v", in, err)
		}
	}
	for _, in := range []string{`"héllo ✓ 𝄞"`, `{"ключ":"значение"}`, `"\u00e9\ud834\udd1e"`} {
		if err := Decode([]byte(in), &tree{}); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
	d := NewDecoder([]byte("{\"\xff\":1}"))
	err := (&tree{}).DecodeJSON(d)
	var de *wire.DecodeError
	if !errors.As(err, &de) || de.Msg != "invalid UTF-8 in member name" {
		t.Fatalf("got %v", err)
	}
	// An escaped lone surrogate is valid JSON grammar but no Go string can
	// hold it: it is refused, never rewritten (in strings and member names),
	// while an escaped pair decodes to its character.
	for _, in := range []string{`"a\ud800b"`, `"\udc00"`, `"\ud800\ud800"`, `"x\uDBFF"`} {
		var s strVal
		if err := Decode([]byte(in), &s); err == nil || !strings.Contains(err.Error(), "lone surrogate") {
			t.Errorf("%s: %v %q", in, err, s.v)
		}
	}
	if err := Decode([]byte(`{"\ud800":1}`), &tree{}); err == nil || !strings.Contains(err.Error(), "lone surrogate") {
		t.Errorf("lone surrogate in a member name: %v", err)
	}
	var s strVal
	if err := Decode([]byte(`"\ud834\udd1e"`), &s); err != nil || s.v != "𝄞" || !utf8.ValidString(s.v) {
		t.Fatalf("surrogate pair: %v %q", err, s.v)
	}
}

type strVal struct{ v string }

func (x *strVal) DecodeJSON(d *Decoder) (err error) { x.v, err = d.Str(); return }

// withExtra is an object whose every member is undeclared.
type withExtra struct{ m wire.Members }

func (x *withExtra) DecodeJSON(d *Decoder) error {
	return d.Obj(func(key []byte) error { return d.AddMember(&x.m, key) })
}

// AddMember keeps undeclared members in order and rejects a repeated name,
// in small objects and in large ones (where it switches to an index).
func TestAddMemberDuplicates(t *testing.T) {
	for _, n := range []int{1, 2, smallMembers - 1, smallMembers, smallMembers + 1, 3 * smallMembers} {
		var b strings.Builder
		b.WriteString("{")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		ok := strings.TrimSuffix(b.String(), ",") + "}"
		var x withExtra
		if err := Decode([]byte(ok), &x); err != nil {
			t.Fatalf("%d members: %v", n, err)
		}
		if len(x.m) != n || x.m[n-1].Key != fmt.Sprintf("k%d", n-1) || string(x.m[0].Value) != "0" {
			t.Fatalf("%d members decoded as %v", n, x.m)
		}
		// Repeat the first, the middle and the last name at the end.
		for _, dup := range []int{0, n / 2, n - 1} {
			in := strings.TrimSuffix(ok, "}") + fmt.Sprintf(`,"k%d":true}`, dup)
			err := Decode([]byte(in), &withExtra{})
			var de *wire.DecodeError
			if !errors.As(err, &de) || de.Msg != fmt.Sprintf(`duplicate member "k%d"`, dup) || de.JSONPath() != "" {
				t.Fatalf("%d members, k%d repeated: %v", n, dup, err)
			}
		}
	}
	// The same name, once escaped.
	err := Decode([]byte(`{"ab":1,"\u0061b":2}`), &withExtra{})
	if err == nil || !strings.Contains(err.Error(), `duplicate member "ab"`) {
		t.Fatalf("escaped duplicate: %v", err)
	}
	// Names differing in case are different members.
	var x withExtra
	if err := Decode([]byte(`{"name":1,"Name":2,"NAME":3}`), &x); err != nil || len(x.m) != 3 {
		t.Fatalf("case variants: %v %v", err, x.m)
	}
}

// Duplicate member names are rejected inside verbatim values too, at any
// depth, with the path of the object holding them.
func TestVerbatimDuplicates(t *testing.T) {
	for _, tc := range []struct{ in, path, key string }{
		{`{"a":1,"a":2}`, "", "a"},
		{`[{"x":{"b":[1,{"c":0,"c":0}]}}]`, "[0].x.b[1]", "c"},
		{`{"k":{"\u006b":1,"k":2}}`, "k", "k"},
		{`{"` + strings.Repeat(`x":0,"`, 0) + `a":{},"b":{},"c":{},"d":{},"e":{},"f":{},"g":{},"h":{},"i":{},"j":{},"k":{},"l":{},"m":{},"n":{},"o":{},"p":{},"q":{},"r":{},"s":{},"a":{}}`, "", "a"},
	} {
		var r raw
		err := Decode([]byte(tc.in), &r)
		var de *wire.DecodeError
		if !errors.As(err, &de) || de.Msg != fmt.Sprintf("duplicate member %q", tc.key) || de.JSONPath() != tc.path {
			t.Errorf("%s: got %v, want duplicate %q at %q", tc.in, err, tc.key, tc.path)
		}
	}
	// Sibling objects may reuse names; so may nested ones.
	for _, in := range []string{`[{"a":1},{"a":2}]`, `{"a":{"a":{"a":1}},"b":{"a":2}}`, `{"a":1,"A":2}`} {
		var r raw
		if err := Decode([]byte(in), &r); err != nil || string(r.v) != in {
			t.Errorf("%s: %v %s", in, err, r.v)
		}
	}
}

// PeekMember finds a string member anywhere in the object ahead without
// consuming it; the object then decodes in full.
func TestPeekMember(t *testing.T) {
	for _, tc := range []struct {
		in, value string
		found     bool
		errPath   string
	}{
		{`{"type":"text","text":"x"}`, "text", true, ""},
		{`{"text":"x","deep":{"type":"no"},"type":"image"}`, "image", true, ""},
		{`{"text":"x"}`, "", false, ""},
		{`{}`, "", false, ""},
		{`{"type":"a","type":"b"}`, "a", true, ""}, // the first; duplicates are the decoder's to reject
		{`{"type":5}`, "", false, "type"},
		{`{"type":null}`, "", false, "type"},
		{`{"a":[1,}`, "", false, "a"},
	} {
		d := NewDecoder([]byte(tc.in))
		v, found, err := d.PeekMember("type")
		if tc.errPath != "" {
			var de *wire.DecodeError
			if !errors.As(err, &de) || de.JSONPath() != tc.errPath {
				t.Errorf("%s: got %v, want an error at %q", tc.in, err, tc.errPath)
			}
			continue
		}
		if err != nil || v != tc.value || found != tc.found {
			t.Errorf("%s: PeekMember = %q, %v, %v", tc.in, v, found, err)
			continue
		}
		// Nothing was consumed: the whole object is still ahead.
		x := &tree{}
		if err := x.DecodeJSON(d); err != nil || d.Finish() != nil {
			t.Errorf("%s: decode after peek: %v", tc.in, err)
		}
	}
}

// KeySet reports which of the listed names the object ahead has, leaving it
// in place.
func TestKeySet(t *testing.T) {
	keys := []string{"jsonrpc", "id", "method", "params", "result", "error"}
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0b000111},
		{`{"error":{"code":1},"id":null,"jsonrpc":"2.0","extra":[]}`, 0b100011},
		{`{}`, 0},
		{`{"ID":1,"Method":"x"}`, 0},
		{`{"result":{"id":1,"method":"nested"}}`, 0b010000},
	} {
		d := NewDecoder([]byte(tc.in))
		got, err := d.KeySet(keys)
		if err != nil || got != tc.want {
			t.Errorf("%s: KeySet = %b, %v; want %b", tc.in, got, err, tc.want)
			continue
		}
		if err := (&tree{}).DecodeJSON(d); err != nil || d.Finish() != nil {
			t.Errorf("%s: decode after KeySet: %v", tc.in, err)
		}
	}
	// More than 64 names: the first 64 get bits.
	var many []string
	for i := 0; i < 70; i++ {
		many = append(many, fmt.Sprintf("k%d", i))
	}
	d := NewDecoder([]byte(`{"k0":1,"k63":1,"k64":1,"k69":1}`))
	if got, err := d.KeySet(many); err != nil || got != 1|1<<63 {
		t.Errorf("70 names: %b %v", got, err)
	}
	if _, err := NewDecoder([]byte(`{"a":}`)).KeySet(keys); err == nil {
		t.Error("KeySet accepted invalid JSON")
	}
}

// Finish accepts trailing whitespace only.
func TestFinish(t *testing.T) {
	for _, in := range []string{`{}`, "{} \n\t\r ", " \n{}"} {
		if err := Decode([]byte(in), &tree{}); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
	for _, in := range []string{`{} x`, `{}{}`, `{} 1`, `{}]`, `{},`, `{} "s"`, "{}\x00", `{} // comment`, "{}\u00a0"} {
		err := Decode([]byte(in), &tree{})
		var de *wire.DecodeError
		if !errors.As(err, &de) || de.Msg != "unexpected data after the JSON value" {
			t.Errorf("%q: %v", in, err)
		}
	}
}

type i64 struct{ v int64 }

func (x *i64) DecodeJSON(d *Decoder) (err error) { x.v, err = d.Int64(); return }

type f64 struct{ v float64 }

func (x *f64) DecodeJSON(d *Decoder) (err error) { x.v, err = d.Float64(); return }

// Numbers: integers must be int64 integers written without fraction or
// exponent; malformed numbers are invalid JSON, not numbers of the wrong
// kind.
func TestNumbers(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "-0": 0, "42": 42, " 7 ": 7, "9223372036854775807": 1<<63 - 1, "-9223372036854775808": -1 << 63} {
		var x i64
		if err := Decode([]byte(in), &x); err != nil || x.v != want {
			t.Errorf("Int64 %q = %d, %v", in, x.v, err)
		}
	}
	for in, msg := range map[string]string{
		"1.5": "expected an integer, got 1.5", "1.0": "expected an integer, got 1.0",
		"1e2": "expected an integer, got 1e2", "1E400": "expected an integer, got 1E400 (integers must be written as plain digits",
		"1.5e1": "expected an integer, got 1.5e1 (integers", "9223372036854775808": "integer 9223372036854775808 is outside the int64 range",
		"-9223372036854775809": "integer -9223372036854775809 is outside the int64 range", "99999999999999999999": "integer 99999999999999999999 is outside the int64 range",
		"01": "invalid JSON", "-": "invalid JSON", "1.": "invalid JSON", "-01": "invalid JSON",
		`"1"`: "expected number, got string", "true": "expected number, got boolean", "null": "expected number, got null",
		"+1": "invalid JSON: expected number", ".5": "invalid JSON: expected number",
	} {
		var x i64
		err := Decode([]byte(in), &x)
		var de *wire.DecodeError
		if !errors.As(err, &de) || !strings.HasPrefix(de.Msg, msg) {
			t.Errorf("Int64 %q: %v, want %q", in, err, msg)
		}
	}
	for in, want := range map[string]float64{"0": 0, "-0": 0, "1.5": 1.5, "-2.5e-3": -2.5e-3, "1e308": 1e308, "22.5": 22.5, "0.1": 0.1,
		"1.0": 1, "100000000000000000000.00": 1e20, "9007199254740992": 9007199254740992, "0.30000000000000004": 0.30000000000000004,
		"5e-324": 5e-324, "2.2250738585072014e-308": 2.2250738585072014e-308, "1.7976931348623157e308": 1.7976931348623157e308} {
		var x f64
		if err := Decode([]byte(in), &x); err != nil || x.v != want {
			t.Errorf("Float64 %q = %v, %v", in, x.v, err)
		}
	}
	// A number a float64 cannot hold is an error naming the limit, never a
	// rounding: out of range, below the smallest subnormal, or with more
	// precision than float64 keeps.
	for in, msg := range map[string]string{
		"1e400": "number 1e400 is outside the float64 range", "-1e400": "number -1e400 is outside the float64 range",
		"1e-400":                               "number 1e-400 cannot be held exactly by a float64 (it would become 0)",
		"9007199254740993":                     "number 9007199254740993 cannot be held exactly by a float64 (it would become 9007199254740992)",
		"1.00000000000000000001":               "number 1.00000000000000000001 cannot be held exactly",
		"0.1000000000000000055511151231257827": "cannot be held exactly",
		"1.e3":                                 "invalid JSON", "0x1": "invalid JSON", "NaN": "invalid JSON: expected number"} {
		var x f64
		err := Decode([]byte(in), &x)
		var de *wire.DecodeError
		if !errors.As(err, &de) || !strings.Contains(de.Msg, msg) {
			t.Errorf("Float64 %q: %v, want %q", in, err, msg)
		}
	}
}

// Decode copies its input: the caller may reuse the buffer, and decoded
// strings and verbatim values do not change.
func TestDecodeCopiesInput(t *testing.T) {
	buf := []byte(`{"a":"text","b":[1,2]}`)
	x := &tree{verbatim: true}
	if err := Decode(buf, x); err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = ' '
	}
	if x.keys[0] != "a" || string(x.raws[0]) != `"text"` || string(x.raws[1]) != "[1,2]" {
		t.Fatalf("decoded values changed with the input: %q %q", x.keys, x.raws)
	}
	// A verbatim value's capacity is clipped: appending to it does not
	// overwrite what follows it in the message.
	y := &tree{verbatim: true}
	if err := Decode([]byte(`{"a":[1],"b":2}`), y); err != nil {
		t.Fatal(err)
	}
	_ = append(y.raws[0], 'X')
	if string(y.raws[1]) != "2" {
		t.Fatalf("append to a wire.Raw overwrote its neighbour: %q", y.raws[1])
	}
}

// Lists and maps: empty input gives present, empty values; map duplicates
// are rejected.
func TestDecodeListMap(t *testing.T) {
	d := NewDecoder([]byte(`[]`))
	var l []string
	if err := DecodeList(d, &l, DecodeString); err != nil || l == nil || len(l) != 0 {
		t.Fatalf("[]: %v %#v", err, l)
	}
	d = NewDecoder([]byte(`{}`))
	var m map[string]int64
	if err := DecodeMap(d, &m, DecodeInt64); err != nil || m == nil || len(m) != 0 {
		t.Fatalf("{}: %v %#v", err, m)
	}
	d = NewDecoder([]byte(`{"a":1,"b":2,"a":3}`))
	err := DecodeMap(d, &m, DecodeInt64)
	if err == nil || err.Error() != `duplicate member "a"` {
		t.Fatalf("duplicate: %v", err)
	}
	d = NewDecoder([]byte(`["a",1]`))
	err = DecodeList(d, &l, DecodeString)
	if err == nil || err.Error() != "[1]: expected string, got number" {
		t.Fatalf("list element: %v", err)
	}
}

// checkRaw scans verbatim values byte by byte: strings holding quotes,
// backslashes and brackets must not confuse it, and paths count elements
// of the right array.
func TestVerbatimScanner(t *testing.T) {
	var many strings.Builder
	many.WriteString("{")
	for i := 0; i < 3*smallMembers; i++ {
		fmt.Fprintf(&many, `"m%d":{"x":%d},`, i, i)
	}
	for _, tc := range []struct{ in, path, key string }{
		{`{"a\"b":1,"a\"b":2}`, "", `a"b`},
		{`{"a\\":1,"a\\":2}`, "", `a\`},
		{`{"{":1,"[":2,"{":3}`, "", "{"},
		{`{"":1,"":2}`, "", ""},
		{`{"x":"\"{\"x\":1,\"x\":2}"}`, "-", ""}, // a string holding JSON is just a string
		{`[{"a":1,"b":2},{"c":[1,"2,3",{"d":0,"d":1}]}]`, "[1].c[2]", "d"},
		{`{"s":"\\","t":{"u":[],"u":[]}}`, "t", "u"},
		{`{"\u00e9":1,"é":2}`, "", "é"},
		{many.String() + `"m3":0}`, "", "m3"},
		{many.String() + `"z":{"m":1,"m":2}}`, "z", "m"},
	} {
		var r raw
		err := Decode([]byte(tc.in), &r)
		if tc.path == "-" {
			if err != nil {
				t.Errorf("%s: %v", tc.in, err)
			}
			continue
		}
		var de *wire.DecodeError
		if !errors.As(err, &de) || de.Msg != fmt.Sprintf("duplicate member %q", tc.key) || de.JSONPath() != tc.path {
			t.Errorf("%.80s: got %v, want duplicate %q at %q", tc.in, err, tc.key, tc.path)
		}
	}
	ok := many.String() + `"last":[{"a":1},{"a":1}]}`
	var r raw
	if err := Decode([]byte(ok), &r); err != nil || string(r.v) != ok {
		t.Fatalf("large object without duplicates: %v", err)
	}
}

// BenchmarkVerbatimObject measures reading a tool input schema verbatim
// (jx's syntax pass plus the depth and duplicate-name scan).
func BenchmarkVerbatimObject(b *testing.B) {
	schema := []byte(`{"type":"object","properties":{"location":{"type":"string","description":"City name or latitude,longitude pair"},"units":{"type":"string","description":"Unit system for the returned values","enum":["metric","imperial"]},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["location"],"additionalProperties":false}`)
	b.SetBytes(int64(len(schema)))
	b.ReportAllocs()
	var r raw
	for b.Loop() {
		if err := DecodeOwned(schema, &r); err != nil {
			b.Fatal(err)
		}
	}
}
