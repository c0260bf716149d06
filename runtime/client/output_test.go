package client_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestTOOL7_ClientChecksStructuredContent: CallTool checks a result's
// structuredContent against the outputSchema of the tool as listed: a
// missing or nonconforming one is an *OutputError naming the path, an
// isError result is not checked, and Options.DisableOutputValidation
// turns the check off.
func TestTOOL7_ClientChecksStructuredContent(t *testing.T) {
	f := newHTTPFake(t)
	sum := toolDef("sum", nil)
	sum["outputSchema"] = obj{"type": "object", "properties": obj{"sum": obj{"type": "number"}}, "required": []any{"sum"}}
	f.setTools(sum, toolDef("free", nil))
	var mu sync.Mutex
	var answer obj
	f.on(mcp.MethodCallTool, func(w http.ResponseWriter, r *http.Request, m msg) {
		mu.Lock()
		defer mu.Unlock()
		writeJSON(w, 200, result(m.ID, answer))
	})
	set := func(structured any, isError bool) {
		mu.Lock()
		defer mu.Unlock()
		answer = textResult("x")
		if structured != nil {
			answer["structuredContent"] = structured
		}
		if isError {
			answer["isError"] = true
		}
	}
	ctx := context.Background()
	c := f.connect(t, nil)
	lax := f.connect(t, &client.Options{DisableOutputValidation: true})
	for _, tc := range []struct {
		tool       string
		structured any
		isError    bool
		path       string // "" = accepted
	}{
		{"sum", obj{"sum": 3}, false, ""},
		{"sum", obj{"sum": "3"}, false, "structuredContent.sum"},
		{"sum", obj{"total": 3}, false, "structuredContent"},
		{"sum", []any{3}, false, "structuredContent"},
		{"sum", nil, false, "structuredContent"},
		{"sum", nil, true, ""},
		{"sum", obj{"sum": "3"}, true, ""},
		{"free", obj{"anything": true}, false, ""},
	} {
		set(tc.structured, tc.isError)
		res, err := c.CallTool(ctx, tc.tool, nil)
		var oe *client.OutputError
		switch {
		case tc.path == "" && err != nil:
			t.Errorf("%s %v: %v", tc.tool, tc.structured, err)
		case tc.path != "" && (!errors.As(err, &oe) || oe.Tool != tc.tool || oe.Result == nil || len(oe.Violations) == 0 ||
			oe.Violations[0].Path != tc.path || !strings.Contains(err.Error(), "outputSchema")):
			t.Errorf("%s %v: %v, %v; want an *OutputError at %s", tc.tool, tc.structured, res, err, tc.path)
		}
		if _, err := lax.CallTool(ctx, tc.tool, nil); err != nil {
			t.Errorf("DisableOutputValidation: %s %v: %v", tc.tool, tc.structured, err)
		}
	}
}

// TestTOOL7_ClientAndServerAgree: against mcpgen's own server, the
// client accepts what a typed tool returns.
func TestTOOL7_ClientAndServerAgree(t *testing.T) {
	type in struct {
		N int `json:"n"`
	}
	type out struct {
		Squares []int          `json:"squares"`
		Even    bool           `json:"even"`
		Labels  map[string]any `json:"labels,omitempty"`
	}
	s := server.New(mcp.Implementation{Name: "squares", Version: "1"}, nil)
	if err := server.AddTypedTool(s, mcp.Tool{Name: "squares"}, func(ctx context.Context, req *server.ToolRequest, a in) (out, error) {
		var o out
		for i := range a.N {
			o.Squares = append(o.Squares, i*i)
		}
		o.Even = a.N%2 == 0
		return o, nil
	}); err != nil {
		t.Fatal(err)
	}
	c := connectURL(t, realHTTP(t, s), nil)
	for _, n := range []int{0, 1, 4} {
		res, err := c.CallTool(context.Background(), "squares", wire.Raw(`{"n":`+string(rune('0'+n))+`}`))
		if err != nil || res.StructuredContent == nil {
			t.Fatalf("n=%d: %v %v", n, res, err)
		}
	}
}
