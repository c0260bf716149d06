package spectest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// decodeValid decodes data into v and validates it, failing the test on
// either error.
func decodeValid(t *testing.T, data string, v wireimpl.Codec) {
	t.Helper()
	if err := wireimpl.Decode([]byte(data), v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	if err := v.Validate(); err != nil {
		t.Fatalf("validate %s: %v", data, err)
	}
}

// sameJSON reports whether a and b hold the same JSON value (member
// order aside: declared members are written in schema order).
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return cmp.Equal(x, y)
}

func encoded(t *testing.T, v wireimpl.Codec) string {
	t.Helper()
	b, err := wireimpl.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Digest §1.8 item 2: ElicitResult.content values may be fractional
// numbers (schema.ts says number; schema.json narrows to integer).
func TestELI6_ElicitContentNumber(t *testing.T) {
	in := `{"action":"accept","content":{"temp":22.5,"n":3,"ok":true,"s":"x","multi":["a","b"]}}`
	var r mcp.ElicitResult
	decodeValid(t, in, &r)
	if r.Content["temp"].Number.Value != 22.5 || r.Content["multi"].Array[1] != "b" || !r.Content["ok"].Boolean.Value {
		t.Fatalf("decoded %+v", r.Content)
	}
	// Map keys are written sorted.
	if got := encoded(t, &r); got != `{"action":"accept","content":{"multi":["a","b"],"n":3,"ok":true,"s":"x","temp":22.5}}` {
		t.Fatalf("encoded %s", got)
	}
}

// Digest §1.8 item 3 and RT-2..RT-4: a tools/call result is told apart by
// the value of resultType, never by structure; absence means complete.
func TestRT4_ResultTypeDiscriminates(t *testing.T) {
	for _, tc := range []struct {
		in       string
		required bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}`, false},
		// A legacy server sends no resultType: treated as complete (RT-4);
		// Validate still reports that this revision requires it.
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, false},
		// Structure alone would fit both; the value decides.
		{`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"requestState":"s"}}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","content":[]}}`, true},
	} {
		var r mcp.CallToolResultResponse
		if err := wireimpl.Decode([]byte(tc.in), &r); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if (r.Result.InputRequiredResult != nil) != tc.required || (r.Result.CallToolResult != nil) == tc.required {
			t.Errorf("%s: decoded as %+v", tc.in, r.Result)
		}
		if got := encoded(t, &r); !sameJSON(t, got, tc.in) {
			t.Errorf("%s re-encoded as %s", tc.in, got)
		}
	}
	var legacy mcp.CallToolResultResponse
	_ = wireimpl.Decode([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`), &legacy)
	if err := legacy.Validate(); err == nil || !strings.Contains(err.Error(), "result.resultType: required member is missing") {
		t.Fatalf("got %v", err)
	}
}

// Digest §1.8 item 1: JSONValue-typed positions (capability settings) are
// free-form: fractions and null are kept verbatim.
func TestJSONValueIsFreeForm(t *testing.T) {
	in := `{"experimental":{"x.y/z":{"ratio":0.5,"none":null,"list":[1.5,null]}},"elicitation":{"form":{"a":null}},"roots":{}}`
	var c mcp.ClientCapabilities
	decodeValid(t, in, &c)
	if got := encoded(t, &c); !sameJSON(t, got, in) || !strings.Contains(got, `{"ratio":0.5,"none":null,"list":[1.5,null]}`) {
		t.Fatalf("re-encoded %s", got)
	}
}

// Serialization pitfalls (digest §1.8): required zero values and empty
// arrays are written; capability markers {} keep their presence; absent
// stays absent.
func TestCACHE1_RequiredZeroAndEmpty(t *testing.T) {
	var r mcp.ListToolsResult
	r.ResultType = "complete"
	r.CacheScope = mcp.CacheScopePrivate
	if got := encoded(t, &r); got != `{"cacheScope":"private","resultType":"complete","tools":[],"ttlMs":0}` {
		t.Fatalf("zero ListToolsResult encodes as %s", got)
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	var d mcp.DiscoverResult
	decodeValid(t, `{"resultType":"complete","supportedVersions":[],"capabilities":{"tools":{},"logging":{}},"ttlMs":0,"cacheScope":"public"}`, &d)
	if d.Capabilities.Tools == nil || d.Capabilities.Logging == nil || d.Capabilities.Prompts != nil || d.Capabilities.Resources != nil {
		t.Fatalf("capability markers: %+v", d.Capabilities)
	}
	if got := encoded(t, &d); !strings.Contains(got, `"capabilities":{"logging":{},"tools":{}}`) && !strings.Contains(got, `"capabilities":{"tools":{},"logging":{}}`) {
		t.Fatalf("capabilities re-encoded as %s", got)
	}
}

// structuredContent: null is a value, distinct from absent (TOOL-8).
func TestTOOL8_StructuredContentNull(t *testing.T) {
	for _, in := range []string{
		`{"resultType":"complete","content":[],"structuredContent":null}`,
		`{"resultType":"complete","content":[]}`,
		`{"resultType":"complete","content":[],"structuredContent":[1,"a"]}`,
		`{"resultType":"complete","content":[],"structuredContent":7}`,
	} {
		var r mcp.CallToolResult
		decodeValid(t, in, &r)
		if got := encoded(t, &r); !sameJSON(t, got, in) {
			t.Errorf("%s re-encoded as %s", in, got)
		}
	}
}

// An empty cursor is a cursor (PAG-2); an absent one is absent.
func TestPAG2_EmptyCursor(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	var p mcp.PaginatedRequestParams
	decodeValid(t, `{`+meta+`,"cursor":""}`, &p)
	if !p.Cursor.Set || p.Cursor.Value != "" {
		t.Fatal("empty cursor lost")
	}
	decodeValid(t, `{`+meta+`}`, &p)
	if p.Cursor.Set {
		t.Fatal("absent cursor became present")
	}
}

// Ids keep their JSON kind: 1 and "1" are different (ID-5).
func TestID5_IdKind(t *testing.T) {
	var a, b mcp.JSONRPCMessage
	decodeValid(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, &a)
	decodeValid(t, `{"jsonrpc":"2.0","id":"1","method":"ping"}`, &b)
	ia, ib := a.JSONRPCRequest.ID, b.JSONRPCRequest.ID
	if !ia.IsInt() || ia.Int() != 1 || ib.IsInt() || ib.Str() != "1" || ia == ib {
		t.Fatalf("%+v %+v", ia, ib)
	}
	if encoded(t, &a) == encoded(t, &b) {
		t.Fatal("1 and \"1\" encode alike")
	}
}

// _meta keeps members it does not declare, in order (RT-8, META-10).
func TestRT8_UnknownMembersKept(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","com.example/z":[1],"com.example/a":{}},"x-extra":true},"extra":1}`
	var r mcp.ListToolsRequest
	decodeValid(t, in, &r)
	got := encoded(t, &r)
	if !sameJSON(t, got, in) {
		t.Fatalf("re-encoded\n%s\nwant\n%s", got, in)
	}
	// Undeclared members follow the declared ones, in arrival order.
	if !strings.Contains(got, `"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","com.example/z":[1],"com.example/a":{}}`) {
		t.Fatalf("undeclared _meta members reordered: %s", got)
	}
}

// A notification that carries an id is not a notification (MSG-5): it
// decodes as a request, whose id must then be valid.
func TestMSG5_NotificationWithId(t *testing.T) {
	var m mcp.JSONRPCMessage
	err := wireimpl.Decode([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","id":null,"params":{}}`), &m)
	var de *wire.DecodeError
	if !errors.As(err, &de) || de.JSONPath() != "id" {
		t.Fatalf("got %v", err)
	}
	decodeValid(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, &m)
	if m.JSONRPCNotification == nil {
		t.Fatalf("decoded %+v", m)
	}
}

// anyOf holds when any member holds: when the best structural fit fails
// to decode or validate, the union falls back on the other members the
// object may be, so a StringSchema with an extra "oneOf" member (which
// StringSchema does not forbid) is a StringSchema, not a broken
// TitledSingleSelectEnumSchema, and keeps the extra member. A value no
// member accepts is reported against the best fit.
func TestUnionFallsBackOnOtherMembers(t *testing.T) {
	for _, tc := range []struct {
		v    wireimpl.Codec
		in   string
		want func(wireimpl.Codec) bool
	}{
		{new(mcp.PrimitiveSchemaDefinition), `{"type":"string","oneOf":0}`,
			func(v wireimpl.Codec) bool { return v.(*mcp.PrimitiveSchemaDefinition).StringSchema != nil }},
		{new(mcp.PrimitiveSchemaDefinition), `{"type":"string","oneOf":[{"const":"a"}]}`,
			func(v wireimpl.Codec) bool { return v.(*mcp.PrimitiveSchemaDefinition).StringSchema != nil }},
		{new(mcp.PrimitiveSchemaDefinition), `{"type":"string","oneOf":[{"const":"a","title":"A"}]}`,
			func(v wireimpl.Codec) bool {
				return v.(*mcp.PrimitiveSchemaDefinition).TitledSingleSelectEnumSchema != nil
			}},
		{new(mcp.EnumSchema), `{"type":"string","enum":["a"],"enumNames":[null]}`,
			func(v wireimpl.Codec) bool { return v.(*mcp.EnumSchema).UntitledSingleSelectEnumSchema != nil }},
	} {
		decodeValid(t, tc.in, tc.v)
		if !tc.want(tc.v) {
			t.Errorf("%s decoded as %+v", tc.in, tc.v)
		}
		if out, err := wireimpl.Marshal(tc.v); err != nil || !sameJSON(t, string(out), tc.in) {
			t.Errorf("%s re-encoded as %s (%v)", tc.in, out, err)
		}
	}
	// No member accepts it: the best fit's violation is reported.
	var p mcp.PrimitiveSchemaDefinition
	if err := wireimpl.Decode([]byte(`{"type":"string","oneOf":[{"const":"a"}],"minLength":"x"}`), &p); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "oneOf[0].title: required member is missing") {
		t.Errorf("got %v", err)
	}
}
