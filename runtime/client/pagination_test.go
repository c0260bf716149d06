package client_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// pagedFake serves three pages of each list: no cursor → "", "" → "x",
// "x" → the end. A cursor it does not know gets -32602 (PAG-4).
func pagedFake(t *testing.T) *httpFake {
	f := newHTTPFake(t)
	pages := map[string]struct {
		item string
		next any
	}{"<none>": {"a", ""}, "": {"b", "x"}, "x": {"c", nil}}
	for method, member := range map[string]string{mcp.MethodListTools: "tools", mcp.MethodListPrompts: "prompts",
		mcp.MethodListResources: "resources", mcp.MethodListResourceTemplates: "resourceTemplates"} {
		f.on(method, func(w http.ResponseWriter, r *http.Request, m msg) {
			key := "<none>"
			if c, ok := m.param("cursor"); ok {
				key = c.(string)
			}
			p, ok := pages[key]
			if !ok {
				writeJSON(w, 400, rpcError(m.ID, -32602, "Invalid params: invalid cursor", nil))
				return
			}
			var item obj
			switch member {
			case "tools":
				item = toolDef(p.item, nil)
			case "prompts":
				item = obj{"name": p.item}
			case "resources":
				item = obj{"name": p.item, "uri": "file:///" + p.item}
			default:
				item = obj{"name": p.item, "uriTemplate": "file:///" + p.item + "/{x}"}
			}
			res := obj{"resultType": "complete", member: []obj{item}, "ttlMs": 0, "cacheScope": "public"}
			if p.next != nil {
				res["nextCursor"] = p.next
			}
			writeJSON(w, 200, result(m.ID, res))
		})
	}
	return f
}

func collect[T any](t *testing.T, seq func(func(T, error) bool), name func(T) string) []string {
	t.Helper()
	var out []string
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, name(v))
	}
	return out
}

// The iterators follow nextCursor page by page; "" is a real cursor, not
// the end (PAG-2); a missing nextCursor ends the list (PAG-3).
func TestPAG2_IteratorsFollowCursorsIncludingEmpty(t *testing.T) {
	f := pagedFake(t)
	c := f.connect(t, nil)
	ctx := context.Background()
	want := []string{"a", "b", "c"}
	for method, got := range map[string][]string{
		mcp.MethodListTools:             collect(t, c.ListTools(ctx), func(v mcp.Tool) string { return v.Name }),
		mcp.MethodListPrompts:           collect(t, c.ListPrompts(ctx), func(v mcp.Prompt) string { return v.Name }),
		mcp.MethodListResources:         collect(t, c.ListResources(ctx), func(v mcp.Resource) string { return v.Name }),
		mcp.MethodListResourceTemplates: collect(t, c.ListResourceTemplates(ctx), func(v mcp.ResourceTemplate) string { return v.Name }),
	} {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", method, got, want)
		}
		var cursors []string
		for _, m := range f.requests(method) {
			if cur, ok := m.param("cursor"); ok {
				cursors = append(cursors, fmt.Sprintf("%q", cur))
			} else {
				cursors = append(cursors, "absent")
			}
		}
		if want := []string{"absent", `""`, `"x"`}; !reflect.DeepEqual(cursors, want) {
			t.Errorf("%s: cursors %v, want %v", method, cursors, want)
		}
	}
}

// An error ends the iteration after it is yielded; leaving the loop early
// fetches no further page.
func TestPAG3_ErrorAndEarlyBreakStopIteration(t *testing.T) {
	f := pagedFake(t)
	f.on(mcp.MethodListTools, func(w http.ResponseWriter, r *http.Request, m msg) {
		if _, ok := m.param("cursor"); ok {
			writeJSON(w, 400, rpcError(m.ID, -32602, "Invalid params: invalid cursor", nil))
			return
		}
		next := "bad"
		writeJSON(w, 200, result(m.ID, toolsResult([]obj{toolDef("a", nil), toolDef("b", nil)}, &next, 0, "public")))
	})
	c := f.connect(t, nil)
	var items []string
	var errs []error
	for tool, err := range c.ListTools(context.Background()) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		items = append(items, tool.Name)
	}
	if !reflect.DeepEqual(items, []string{"a", "b"}) || len(errs) != 1 || !isRPCError(errs[0], wire.CodeInvalidParams) {
		t.Errorf("items %v, errors %v; want a, b and the -32602 error", items, errs)
	}
	if n := len(f.requests(mcp.MethodListTools)); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}

	for p, err := range c.ListPrompts(context.Background()) {
		if err != nil || p.Name != "a" {
			t.Fatalf("first prompt %v, %v", p.Name, err)
		}
		break
	}
	if n := len(f.requests(mcp.MethodListPrompts)); n != 1 {
		t.Errorf("%d prompts/list requests after an early break, want 1", n)
	}
}

// Against the real server's opaque cursors.
func TestPAG1_RealServerPages(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{PageSize: 2})
	var want []string
	for i := range 5 {
		name := fmt.Sprintf("tool%d", i)
		want = append(want, name)
		if err := s.AddTool(mcp.Tool{Name: name}, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return server.TextResult(""), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	c := connectURL(t, realHTTP(t, s), &client.Options{})
	if got := toolNames(t, c); !reflect.DeepEqual(got, want) {
		t.Errorf("tools %v, want %v", got, want)
	}
}
