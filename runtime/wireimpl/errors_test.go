package wireimpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-faster/jx"
	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Path renders like params.content[2].type: identifiers joined by dots,
// indexes in brackets, other member names quoted in brackets.
func TestPathString(t *testing.T) {
	var root *Path
	if got := root.String(); got != "" {
		t.Fatalf("nil path = %q", got)
	}
	params := root.Member("params")
	content := params.Member("content")
	item := content.Elem(2)
	typ := item.Member("type")
	meta := params.Member("_meta")
	pv := meta.Member("io.modelcontextprotocol/protocolVersion")
	elem := root.Elem(0)
	inner := elem.Member("$schema")
	odd := elem.Member("a b")
	empty := root.Member("")
	digit := root.Member("2nd")
	for _, tc := range []struct {
		p    *Path
		want string
	}{
		{&params, "params"},
		{&typ, "params.content[2].type"},
		{&pv, `params._meta["io.modelcontextprotocol/protocolVersion"]`},
		{&elem, "[0]"},
		{&inner, "[0].$schema"},
		{&odd, `[0]["a b"]`},
		{&empty, `[""]`},
		{&digit, `["2nd"]`},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// Decode errors collect their path while unwinding, outermost last; a
// path already rendered is extended correctly.
func TestDecodeErrorPath(t *testing.T) {
	err := AtKey(AtKey(AtIndex(AtKey(&wire.DecodeError{Msg: "bad"}, "type"), 2), "content"), "params")
	var de *wire.DecodeError
	if !errors.As(err, &de) || de.JSONPath() != "params.content[2].type" || err.Error() != "params.content[2].type: bad" {
		t.Fatalf("got %v", err)
	}
	// Rendered (JSONPath called) before more segments are added.
	inner := AtKey(&wire.DecodeError{Msg: "bad"}, "x.y")
	_ = inner.(*wire.DecodeError).JSONPath()
	err = AtIndex(AtKey(inner, "m"), 3)
	if got := err.(*wire.DecodeError).JSONPath(); got != `[3].m["x.y"]` {
		t.Fatalf("got %q", got)
	}
	inner = AtIndex(&wire.DecodeError{Msg: "bad"}, 1)
	_ = inner.(*wire.DecodeError).JSONPath()
	if got := AtKey(inner, "list").(*wire.DecodeError).JSONPath(); got != "list[1]" {
		t.Fatalf("got %q", got)
	}
	// A plain error becomes a DecodeError with its text.
	err = AtKey(errors.New("boom"), "k")
	if !errors.As(err, &de) || de.Msg != "boom" || de.JSONPath() != "k" {
		t.Fatalf("got %v", err)
	}
	if got := (&wire.DecodeError{Msg: "m"}).Error(); got != "m" {
		t.Fatalf("root error renders as %q", got)
	}
}

// The Checker reports violations with rendered paths, in order.
func TestChecker(t *testing.T) {
	var c Checker
	if c.Err() != nil {
		t.Fatal("empty checker has an error")
	}
	var root *Path
	ttl := root.Member("ttlMs")
	c.Missing(root, "cacheScope")
	c.Minimum(&ttl, -1, 0)
	c.Minimum(&ttl, 0, 0) // no violation
	c.Maximum(&ttl, 2, 1)
	c.ExclusiveMinimum(&ttl, 0, 0)
	c.ExclusiveMaximum(&ttl, 1, 1)
	c.Length(&ttl, "items", 1, 2, -1)
	c.Length(&ttl, "characters", 5, -1, 4)
	c.Length(&ttl, "items", 3, 0, 3) // no violation
	c.Enum(&ttl, "shared", `"private", "public"`)
	c.Const(&ttl, `"2.0"`)
	c.Format(&ttl, "uri", "no scheme")
	c.Format(&ttl, "email", "not checked")
	c.Format(&ttl, "uri", "https://ok")
	var ve *wire.ValidationError
	if !errors.As(c.Err(), &ve) {
		t.Fatal("no wire.ValidationError")
	}
	var got []string
	for _, v := range ve.Violations {
		got = append(got, v.String())
	}
	want := []string{
		"cacheScope: required member is missing",
		"ttlMs: must be >= 0",
		"ttlMs: must be <= 1",
		"ttlMs: must be > 0",
		"ttlMs: must be < 1",
		"ttlMs: must have at least 2 items",
		"ttlMs: must have at most 4 characters",
		`ttlMs: "shared" is not one of "private", "public"`,
		`ttlMs: must be "2.0"`,
		"ttlMs: is not a valid uri",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got)\n%s", diff)
	}
	if !strings.HasPrefix(ve.Error(), "invalid value: cacheScope: required member is missing; ttlMs: must be >= 0; ") {
		t.Fatalf("Error() = %q", ve.Error())
	}
}

// RawMembers checks the declared members of a verbatim object (Tool's
// inputSchema: type must be the string "object").
func TestRawMembers(t *testing.T) {
	members := []RawMember{{Name: "type", Required: true, Kind: wire.KindString, Const: `"object"`}, {Name: "$schema", Kind: wire.KindString}}
	for in, want := range map[string]string{
		`{"type":"object"}`:                    "",
		`{"type":"\u006fbject","$schema":"x"}`: "",
		`{}`:                                   "inputSchema.type: required member is missing",
		`{"type":"string"}`:                    `inputSchema.type: must be "object"`,
		`{"type":1}`:                           "inputSchema.type: expected string, got number",
		`{"type":"object","$schema":false}`:    "inputSchema.$schema: expected string, got boolean",
		`{"properties":{"type":1},"type":"object"}`: "",
	} {
		var c Checker
		var root *Path
		p := root.Member("inputSchema")
		c.RawMembers(&p, wire.Raw(in), members)
		err := c.Err()
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", in, err)
		case want != "" && (err == nil || err.(*wire.ValidationError).Violations[0].String() != want || len(err.(*wire.ValidationError).Violations) != 1):
			t.Errorf("%s: got %v, want %s", in, err, want)
		}
	}
	var c Checker
	c.RawMembers(nil, nil, members) // absent: nothing to check
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
}

// RawValues checks the kind of every member of a verbatim object.
func TestRawValues(t *testing.T) {
	var root *Path
	p := root.Member("extensions")
	for in, want := range map[string][]string{
		`{}`:                        nil,
		`{"a":{},"b":{"x":[1]}}`:    nil,
		`{"a":{},"b":[],"c d":"x"}`: {"extensions.b: expected object, got array", `extensions["c d"]: expected object, got string`},
		`{"n":null}`:                {"extensions.n: expected object, got null"},
	} {
		var c Checker
		c.RawValues(&p, wire.Raw(in), wire.KindObject)
		var got []string
		if err := c.Err(); err != nil {
			for _, v := range err.(*wire.ValidationError).Violations {
				got = append(got, v.String())
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", in, diff)
		}
	}
	var c Checker
	c.RawValues(&p, nil, wire.KindObject)
	if c.Err() != nil {
		t.Fatal("absent value")
	}
}

// BestFit keeps the variants missing the fewest required members, then
// those with the fewest undeclared members present, then those requiring
// the most; ties are all kept.
func TestBestFit(t *testing.T) {
	// keys: 0 jsonrpc, 1 id, 2 method, 3 params, 4 result, 5 error
	const (
		jsonrpc = 1 << iota
		id
		method
		params
		result
		errorKey
	)
	fits := []Fit{
		{Required: jsonrpc | id | method, Declared: jsonrpc | id | method | params}, // request
		{Required: jsonrpc | method, Declared: jsonrpc | method | params},           // notification
		{Required: jsonrpc | id | result, Declared: jsonrpc | id | result},          // result response
		{Required: jsonrpc | errorKey, Declared: jsonrpc | id | errorKey},           // error response
	}
	all := uint64(0b1111)
	for _, tc := range []struct {
		name    string
		present uint64
		mask    uint64
		want    uint64
	}{
		{"request", jsonrpc | id | method | params, all, 0b0001},
		{"notification", jsonrpc | method, all, 0b0010},
		{"result", jsonrpc | id | result, all, 0b0100},
		{"error", jsonrpc | id | errorKey, all, 0b1000},
		{"request without jsonrpc", id | method, all, 0b0001},
		{"result and error: most required wins", jsonrpc | id | result | errorKey, all, 0b0100},
		{"nothing present: fewest required missing", 0, all, 0b1010},
		{"mask limits the choice", jsonrpc | method, 0b0101, 0b0001},
		{"empty mask", jsonrpc, 0, 0},
		{"bits beyond fits are ignored", jsonrpc | method, all | 1<<10, 0b0010},
	} {
		if got := BestFit(tc.present, fits, tc.mask); got != tc.want {
			t.Errorf("%s: BestFit = %04b, want %04b", tc.name, got, tc.want)
		}
	}
	// Exact ties are kept for decodeFirst to settle.
	tie := []Fit{{Required: 1, Declared: 3}, {Required: 2, Declared: 3}}
	if got := BestFit(3, tie, 3); got != 3 {
		t.Errorf("tie: %b", got)
	}
}

// Choose returns the best fit and the other members the object may also
// be (no required member missing, no forbidden one present), for the
// decoder to fall back on; a forbidden member rules a variant out.
func TestChoose(t *testing.T) {
	const (
		jsonrpc = 1 << iota
		id
		method
		params
		result
		errorKey
	)
	fits := []Fit{
		{Required: jsonrpc | id | method, Declared: jsonrpc | id | method | params},       // request
		{Required: jsonrpc | method, Declared: jsonrpc | method | params, Forbidden: id},  // notification
		{Required: jsonrpc | id | result, Declared: jsonrpc | id | result},                // result response
		{Required: jsonrpc | errorKey, Declared: jsonrpc | id | errorKey},                 // error response
		{Required: jsonrpc, Declared: jsonrpc | method | params | result | errorKey | id}, // declares everything
	}
	for _, tc := range []struct {
		name                string
		present, mask       uint64
		wantBest, wantOther uint64
	}{
		{"request: the notification is ruled out by id", jsonrpc | id | method, 0b01111, 0b0001, 0},
		{"notification", jsonrpc | method, 0b01111, 0b0010, 0},
		{"request, another member fits too", jsonrpc | id | method, 0b11111, 0b0001, 0b10000},
		{"notification with params, another member fits too", jsonrpc | method | params, 0b11111, 0b00010, 0b10000},
		{"result and error present", jsonrpc | id | result | errorKey, 0b01111, 0b0100, 0b1000},
		{"nothing fits: best fit only", 0, 0b01111, 0b1010, 0},
		{"all ruled out: best fit among them", jsonrpc | id | method, 0b00010, 0b0010, 0},
		{"mask limits both", jsonrpc | id | method, 0b10001, 0b00001, 0b10000},
	} {
		best, others := Choose(tc.present, fits, tc.mask)
		if best != tc.wantBest || others != tc.wantOther {
			t.Errorf("%s: Choose = %05b, %05b; want %05b, %05b", tc.name, best, others, tc.wantBest, tc.wantOther)
		}
	}
}

// CheckFormat knows uri, uri-reference, uri-template and byte; other
// formats are annotations.
func TestCheckFormat(t *testing.T) {
	for _, tc := range []struct {
		format, s string
		ok, known bool
	}{
		{"uri", "https://example.com/a?b#c", true, true},
		{"uri", "file:///tmp/a.txt", true, true},
		{"uri", "urn:isbn:0451450523", true, true},
		{"uri", "mailto:a@b.c", true, true},
		{"uri", "a+b-c.d:x", true, true},
		{"uri", "HTTP://EXAMPLE.COM", true, true},
		{"uri", "example.com/a", false, true},
		{"uri", "/relative/path", false, true},
		{"uri", "", false, true},
		{"uri", ":nothing", false, true},
		{"uri", "1http://x", false, true},
		{"uri", "ht tp://x", false, true},
		{"uri", "http://x y", false, true},
		{"uri", "http://x\ty", false, true},
		{"uri", "http://é.com", false, true},
		{"uri", "http:", true, true},
		{"byte", "", true, true},
		{"byte", "aGk=", true, true},
		{"byte", "aA==", true, true},
		{"byte", "aGVsbG8gd29ybGQ+Lw==", true, true},
		{"byte", "aGk", false, true},
		{"byte", "aGk==", false, true},
		{"byte", "a===", false, true},
		{"byte", "aG=k", false, true},
		{"byte", "=aGk", false, true},
		{"byte", "aGk-", false, true},
		{"byte", "aG_k", false, true},
		{"byte", "aG k", false, true},
		{"email", "not an email", true, false},
		{"uri-template", "{x", false, true},
		{"uri-template", "file:///{path}", true, true},
		{"uri-reference", "../a", true, true},
		{"uri-reference", "a b", false, true},
		{"date-time", "yesterday", true, false},
	} {
		ok, known := CheckFormat(tc.format, tc.s)
		if ok != tc.ok || known != tc.known {
			t.Errorf("CheckFormat(%q, %q) = %v, %v; want %v, %v", tc.format, tc.s, ok, known, tc.ok, tc.known)
		}
	}
}

// InvalidParams turns decoding and validation failures into -32602 with
// every violation, rooted at params, in data.violations.
func TestInvalidParamsData(t *testing.T) {
	type violation struct {
		Path    string `json:"path"`
		Message string `json:"message"`
	}
	type data struct {
		Violations []violation `json:"violations"`
	}
	ve := &wire.ValidationError{Violations: []wire.Violation{
		{Path: "_meta[\"io.modelcontextprotocol/protocolVersion\"]", Message: "required member is missing"},
		{Path: "[0]", Message: "odd"},
		{Path: "", Message: "root"},
	}}
	for _, tc := range []struct {
		name string
		err  error
		msg  string
		want []violation
	}{
		{"validation", ve, `Invalid params: params._meta["io.modelcontextprotocol/protocolVersion"]: required member is missing (and 2 more)`, []violation{
			{`params._meta["io.modelcontextprotocol/protocolVersion"]`, "required member is missing"},
			{"params[0]", "odd"},
			{"params", "root"},
		}},
		{"decode", AtKey(AtIndex(&wire.DecodeError{Msg: `unknown type "video"`}, 2), "content"), `Invalid params: params.content[2]: unknown type "video"`, []violation{
			{"params.content[2]", `unknown type "video"`},
		}},
		{"wrapped", fmt.Errorf("decoding: %w", &wire.DecodeError{Msg: "invalid JSON"}), "Invalid params: params: invalid JSON", []violation{{"params", "invalid JSON"}}},
		{"other", errors.New("boom"), "Invalid params: params: boom", []violation{{"params", "boom"}}},
	} {
		e := InvalidParams(tc.err)
		if e.Code != -32602 || e.Message != tc.msg {
			t.Errorf("%s: code %d message %q, want -32602 %q", tc.name, e.Code, e.Message, tc.msg)
		}
		var d data
		dec := json.NewDecoder(strings.NewReader(string(e.Data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			t.Fatalf("%s: data %s: %v", tc.name, e.Data, err)
		}
		if diff := cmp.Diff(tc.want, d.Violations); diff != "" {
			t.Errorf("%s: data (-want +got)\n%s", tc.name, diff)
		}
	}
	// An *Error passes through unchanged (a handler chose its own code).
	own := &wire.Error{Code: -32021, Message: "x"}
	if got := InvalidParams(fmt.Errorf("wrapped: %w", own)); got != own {
		t.Fatalf("got %v", got)
	}
	// The encoded error object carries code, message and data.
	var out struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	b, _ := Marshal(InvalidParams(ve))
	if err := json.Unmarshal(b, &out); err != nil || out.Code != -32602 || len(out.Data) == 0 {
		t.Fatalf("encoded %s: %v", b, err)
	}
}

// DecodeParams: absent required params, bad JSON, trailing data and
// schema violations all become -32602; absent optional params are fine.
func TestDecodeParams(t *testing.T) {
	newV := func() Codec { return &paramsObj{} }
	if err := DecodeParams(nil, newV(), false); err != nil {
		t.Fatalf("absent optional: %v", err)
	}
	for _, tc := range []struct {
		params   wire.Raw
		required bool
		path     string
	}{
		{nil, true, "params"},
		{wire.Raw(`{"n":"x"}`), true, "params.n"},
		{wire.Raw(`{"n":1} {}`), true, "params"},
		{wire.Raw(`{"n":-1}`), true, "params.n"},
		{wire.Raw(`{}`), false, "params.n"},
	} {
		err := DecodeParams(tc.params, newV(), tc.required)
		var rpc *wire.Error
		if !errors.As(err, &rpc) || rpc.Code != wire.CodeInvalidParams {
			t.Errorf("%s: %v", tc.params, err)
			continue
		}
		var d struct {
			Violations []wire.Violation `json:"violations"`
		}
		if err := json.Unmarshal(rpc.Data, &d); err != nil || len(d.Violations) == 0 || d.Violations[0].Path != tc.path {
			t.Errorf("%s: data %s, want path %q", tc.params, rpc.Data, tc.path)
		}
	}
	if err := DecodeParams(wire.Raw(`{"n":3}`), newV(), true); err != nil {
		t.Fatal(err)
	}
}

// paramsObj is {"n": integer >= 0, required}.
type paramsObj struct {
	n    int64
	seen bool
}

func (x *paramsObj) DecodeJSON(d *Decoder) error {
	return d.Obj(func(key []byte) error {
		if string(key) != "n" {
			return d.Skip()
		}
		x.seen = true
		var err error
		if x.n, err = d.Int64(); err != nil {
			return AtKey(err, "n")
		}
		return nil
	})
}

func (x *paramsObj) EncodeJSON(e *jx.Encoder) {}

func (x *paramsObj) MarshalJSON() ([]byte, error) { return Marshal(x) }

func (x *paramsObj) Validate() error {
	var c Checker
	var root *Path
	if !x.seen {
		c.Missing(root, "n")
	} else {
		p := root.Member("n")
		c.Minimum(&p, float64(x.n), 0)
	}
	return c.Err()
}
