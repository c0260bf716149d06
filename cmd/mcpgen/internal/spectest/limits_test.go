package spectest

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// A number an int64 or float64 member cannot hold is a decode error of
// kind Limit at the member's path, naming the limit (docs/deviations.md);
// an integer written with a fraction or an exponent is a Shape error
// saying so.
func TestNumberLimitErrors(t *testing.T) {
	for _, tc := range []struct {
		v         wireimpl.Codec
		in        string
		path, msg string
		kind      wire.DecodeErrorKind
	}{
		{new(mcp.ProgressNotificationParams), `{"progressToken":1,"progress":9007199254740993}`,
			"progress", "number 9007199254740993 cannot be held exactly by a float64 (it would become 9007199254740992)", wire.Limit},
		{new(mcp.ProgressNotificationParams), `{"progressToken":1,"progress":1E400}`,
			"progress", "number 1E400 is outside the float64 range (magnitude at most 1.7976931348623157e308)", wire.Limit},
		{new(mcp.ProgressNotification), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"total":1e-400}}`,
			"params.total", "number 1e-400 cannot be held exactly by a float64 (it would become 0)", wire.Limit},
		{new(mcp.JSONRPCRequest), `{"jsonrpc":"2.0","id":9223372036854775808,"method":"x"}`,
			"id", "integer 9223372036854775808 is outside the int64 range [-9223372036854775808, 9223372036854775807]", wire.Limit},
		{new(mcp.CreateMessageRequest), `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":-9223372036854775809}}`,
			"params.maxTokens", "integer -9223372036854775809 is outside the int64 range", wire.Limit},
		{new(mcp.ListToolsResult), `{"tools":[],"ttlMs":1e3}`,
			"ttlMs", "expected an integer, got 1e3 (integers must be written as plain digits, without a fraction or exponent)", wire.Shape},
		{new(mcp.Annotations), `{"priority":1.00000000000000000001}`,
			"priority", "number 1.00000000000000000001 cannot be held exactly by a float64 (it would become 1)", wire.Limit},
	} {
		err := wireimpl.Decode([]byte(tc.in), tc.v)
		var de *wire.DecodeError
		if !errors.As(err, &de) || de.JSONPath() != tc.path || !strings.HasPrefix(de.Msg, tc.msg) || de.Kind != tc.kind {
			t.Errorf("%s: %v (kind %v), want %s: %s (kind %v)", tc.in, err, kindOf(de), tc.path, tc.msg, tc.kind)
		}
	}
}

func kindOf(de *wire.DecodeError) wire.DecodeErrorKind {
	if de == nil {
		return 0
	}
	return de.Kind
}
