package jsonrpc

import (
	"testing"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestMSG_Decode: message kinds, ids keeping their JSON type (ID-1, ID-5),
// and the -32700/-32600 answers for what is not a valid message (MSG-1,
// MSG-2), with the id when it could be read (MSG-7).
func TestMSG_Decode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind Kind
		id   string // ID.String(); "" for none
		code int64  // expected error code, 0 for none
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, KindRequest, "1", 0},
		{`{"jsonrpc":"2.0","id":"1","method":"tools/list"}`, KindRequest, `"1"`, 0},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, KindNotification, "", 0},
		{`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete"}}`, KindResult, "7", 0},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}`, KindError, "7", 0},
		{`{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}`, KindError, "", 0},
		{`{"jsonrpc":"2.0","id":1,"method":"x","extra":true}`, KindRequest, "1", 0}, // unknown members ignored
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, 0, "", wire.CodeInvalidRequest},
		{`{"jsonrpc":"1.0","id":1,"method":"x"}`, 0, "1", wire.CodeInvalidRequest},
		{`{"id":1,"method":"x"}`, 0, "1", wire.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":null,"method":"x"}`, 0, "", wire.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1.5,"method":"x"}`, 0, "", wire.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":true,"method":"x"}`, 0, "", wire.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}`, 0, "1", wire.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, 0, "1", wire.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}`, 0, "1", wire.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","result":{}}`, 0, "", wire.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1}`, 0, "1", wire.CodeInvalidRequest},
		{`"hello"`, 0, "", wire.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}`, 0, "", wire.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":`, 0, "1", wire.CodeParseError}, // the id was read
		{`{bad`, 0, "", wire.CodeParseError},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", 0, "", wire.CodeParseError},
	} {
		m, err := Decode([]byte(tc.in))
		if tc.code != 0 {
			rpc, ok := err.(*wire.Error)
			if !ok || rpc.Code != tc.code {
				t.Errorf("Decode(%s): err = %v, want code %d", tc.in, err, tc.code)
			}
		} else if err != nil || m.Kind != tc.kind {
			t.Errorf("Decode(%s) = kind %v, %v; want %v", tc.in, m.Kind, err, tc.kind)
		}
		got := ""
		if m != nil && m.ID.IsValid() {
			got = m.ID.String()
		}
		if got != tc.id {
			t.Errorf("Decode(%s): id %q, want %q", tc.in, got, tc.id)
		}
	}
}

// TestID5_IDsOfDifferentTypesDiffer: 1 and "1" are different requests.
func TestID5_IDsOfDifferentTypesDiffer(t *testing.T) {
	if wire.IntID(1) == wire.StringID("1") {
		t.Fatal(`1 and "1" compare equal`)
	}
	seen := map[wire.ID]bool{wire.IntID(1): true}
	if seen[wire.StringID("1")] {
		t.Fatal(`"1" found under 1`)
	}
}

// TestMSG7_Writers: responses echo the id with its type; an unreadable id
// is omitted from an error response.
func TestMSG7_Writers(t *testing.T) {
	for _, tc := range []struct {
		write func(e *jx.Encoder)
		want  string
	}{
		{func(e *jx.Encoder) {
			WriteResult(e, wire.StringID("a"), func(e *jx.Encoder) { e.RawStr(`{"resultType":"complete"}`) })
		}, `{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete"}}`},
		{func(e *jx.Encoder) {
			WriteError(e, wire.IntID(3), &wire.Error{Code: -32601, Message: "Method not found"})
		}, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}`},
		{func(e *jx.Encoder) {
			WriteError(e, wire.ID{}, &wire.Error{Code: -32700, Message: "Parse error"})
		}, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`},
		{func(e *jx.Encoder) { WriteNotification(e, "notifications/progress", nil) },
			`{"jsonrpc":"2.0","method":"notifications/progress"}`},
		{func(e *jx.Encoder) {
			WriteRequest(e, wire.IntID(9), "tools/list", func(e *jx.Encoder) { e.RawStr(`{}`) })
		}, `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}`},
	} {
		var e jx.Encoder
		tc.write(&e)
		if got := string(e.Bytes()); got != tc.want {
			t.Errorf("got %s\nwant %s", got, tc.want)
		}
	}
}
