package server

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestDISC1_Discover: server/discover answers versions, the capabilities
// of what is registered (GATE-2), instructions and caching hints.
func TestDISC1_Discover(t *testing.T) {
	s := newServer(t, &Options{Instructions: "Use echo.", Logging: true})
	forEachTransport(t, s, func(t *testing.T, call caller) {
		status, m := call("d", "server/discover", params(nil))
		wantStatus(t, status, http.StatusOK)
		r := wantResult(t, m)
		if !reflect.DeepEqual(r["supportedVersions"], []any{testVersion}) {
			t.Errorf("supportedVersions = %v", r["supportedVersions"])
		}
		if r["instructions"] != "Use echo." {
			t.Errorf("instructions = %v", r["instructions"])
		}
		caps, _ := r["capabilities"].(obj)
		for _, c := range []string{"tools", "prompts", "resources", "completions", "logging"} {
			if caps[c] == nil {
				t.Errorf("capabilities lack %s: %v", c, caps)
			}
		}
		if dig(caps, "tools", "listChanged") != true || dig(caps, "resources", "subscribe") != true {
			t.Errorf("capabilities = %v, want tools.listChanged and resources.subscribe", caps)
		}
	})
}

// TestGATE2_DiscoverAdvertisesOnlyWhatExists: an empty server advertises
// no feature capability, and no logging unless Options.Logging.
func TestGATE2_DiscoverAdvertisesOnlyWhatExists(t *testing.T) {
	s := New(testInfo, nil)
	c := startStdio(t, s)
	r := wantResult(t, c.roundTrip(1, "server/discover", params(nil)))
	if caps, _ := r["capabilities"].(obj); len(caps) != 0 {
		t.Errorf("capabilities = %v, want {}", caps)
	}
	c.finish()
}

// TestRT1_RT6_ResultTypeAndServerInfo: every result carries resultType and
// _meta io.modelcontextprotocol/serverInfo; Options.OmitServerInfo leaves
// it out.
func TestRT1_RT6_ResultTypeAndServerInfo(t *testing.T) {
	calls := []struct {
		method string
		params obj
	}{
		{"server/discover", params(nil)},
		{"tools/list", params(nil)},
		{"tools/call", params(obj{"name": "echo", "arguments": obj{"text": "hi"}})},
		{"tools/call", params(obj{"name": "echo", "arguments": obj{}})}, // isError result
		{"prompts/list", params(nil)},
		{"prompts/get", params(obj{"name": "greet", "arguments": obj{"name": "Ada"}})},
		{"resources/list", params(nil)},
		{"resources/templates/list", params(nil)},
		{"resources/read", params(obj{"uri": "file:///readme.txt"})},
		{"resources/read", params(obj{"uri": "file:///docs/a"})},
		{"completion/complete", params(obj{"ref": obj{"type": "ref/prompt", "name": "greet"}, "argument": obj{"name": "name", "value": "g"}})},
		{"tools/call", paramsCaps(elicitCaps, obj{"name": "ask"})}, // InputRequiredResult
	}
	for _, omit := range []bool{false, true} {
		t.Run(fmt.Sprintf("OmitServerInfo=%v", omit), func(t *testing.T) {
			s := newServer(t, &Options{OmitServerInfo: omit})
			askTool(t, s)
			forEachTransport(t, s, func(t *testing.T, call caller) {
				for i, c := range calls {
					_, m := call(i, c.method, c.params)
					r := wantResult(t, m)
					if rt, _ := r["resultType"].(string); rt != "complete" && rt != "input_required" {
						t.Errorf("%s: resultType = %v (RT-1)", c.method, r["resultType"])
					}
					si := dig(r, "_meta", "io.modelcontextprotocol/serverInfo")
					want := any(obj{"name": testInfo.Name, "version": testInfo.Version})
					if omit {
						want = nil
					}
					if !reflect.DeepEqual(si, want) {
						t.Errorf("%s: serverInfo = %v, want %v (RT-6)", c.method, si, want)
					}
				}
			})
		})
	}
}

// TestCACHE1_CachingHints: discover, the four lists and resources/read
// carry ttlMs (an integer ≥ 0, written even when 0) and cacheScope; the
// non-cacheable results do not.
func TestCACHE1_CachingHints(t *testing.T) {
	cacheable := []struct {
		method string
		params obj
	}{
		{"server/discover", params(nil)},
		{"tools/list", params(nil)},
		{"prompts/list", params(nil)},
		{"resources/list", params(nil)},
		{"resources/templates/list", params(nil)},
		{"resources/read", params(obj{"uri": "file:///readme.txt"})},
	}
	for _, tc := range []struct {
		opts      *Options
		ttl       float64
		scope     string
		transport string
	}{
		{nil, 0, "public", ""},
		{&Options{CacheTTL: 90 * time.Second, CacheScope: mcp.CacheScopePrivate}, 90000, "private", ""},
	} {
		t.Run(fmt.Sprintf("ttl=%v", tc.ttl), func(t *testing.T) {
			s := newServer(t, tc.opts)
			forEachTransport(t, s, func(t *testing.T, call caller) {
				for i, c := range cacheable {
					_, m := call(i, c.method, c.params)
					r := wantResult(t, m)
					ttl, ok := r["ttlMs"].(float64)
					if !ok || ttl != tc.ttl || ttl != float64(int64(ttl)) {
						t.Errorf("%s: ttlMs = %v, want %v", c.method, r["ttlMs"], tc.ttl)
					}
					if r["cacheScope"] != tc.scope {
						t.Errorf("%s: cacheScope = %v, want %s", c.method, r["cacheScope"], tc.scope)
					}
				}
				_, m := call("call", "tools/call", params(obj{"name": "echo", "arguments": obj{"text": "x"}}))
				if r := wantResult(t, m); r["ttlMs"] != nil || r["cacheScope"] != nil {
					t.Errorf("tools/call result has caching hints: %s", m)
				}
			})
		})
	}
}

// TestPAG1_PaginationAllPages: with a small page size every list is served
// in pages whose opaque cursors lead through every item exactly once, in
// registration order (TOOL-2), the last page without nextCursor.
func TestPAG1_PaginationAllPages(t *testing.T) {
	s := New(testInfo, &Options{PageSize: 2})
	var want []string
	for i := range 5 {
		name := fmt.Sprintf("item%d", i)
		want = append(want, name)
		toolFunc(t, s, name, func(context.Context, *ToolRequest) (*mcp.CallToolResult, error) { return TextResult(""), nil })
		must(t, s.AddPrompt(mcp.Prompt{Name: name}, func(context.Context, *PromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		}))
		must(t, s.AddResource(mcp.Resource{URI: "mem:///" + name, Name: name}, func(context.Context, *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) { return nil, nil }))
		must(t, s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem:///" + name + "/{x}", Name: name}, func(context.Context, *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) { return nil, nil }))
	}
	lists := []struct{ method, member, key string }{
		{"tools/list", "tools", "name"},
		{"prompts/list", "prompts", "name"},
		{"resources/list", "resources", "name"},
		{"resources/templates/list", "resourceTemplates", "name"},
	}
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for _, l := range lists {
			var got []string
			var cursor any
			pages := 0
			for {
				p := params(nil)
				if cursor != nil {
					p["cursor"] = cursor
				}
				_, m := call(pages, l.method, p)
				r := wantResult(t, m)
				items, _ := r[l.member].([]any)
				if len(items) > 2 {
					t.Fatalf("%s: page of %d items, PageSize 2", l.method, len(items))
				}
				for _, it := range items {
					got = append(got, dig(it, l.key).(string))
				}
				pages++
				cursor = r["nextCursor"]
				if cursor == nil {
					break
				}
				if _, ok := cursor.(string); !ok || pages > 10 {
					t.Fatalf("%s: nextCursor = %v", l.method, cursor)
				}
			}
			if pages != 3 || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %d pages with %v, want 3 pages with %v", l.method, pages, got, want)
			}
		}
	})
}

// TestPAG4_InvalidCursor: a cursor the server did not issue is -32602.
func TestPAG4_InvalidCursor(t *testing.T) {
	s := newServer(t, &Options{PageSize: 1})
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for _, method := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
			for _, cur := range []string{"not a cursor!", "", "b2Zvbw", "o-1"} {
				_, m := call(1, method, params(obj{"cursor": cur}))
				wantError(t, m, -32602)
			}
		}
	})
}

// TestCMP3_Completion: completion/complete returns the handler's values
// as a complete result; more than 100 values are cut to 100 with hasMore.
func TestCMP3_Completion(t *testing.T) {
	s := newServer(t, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		_, m := call(1, "completion/complete", params(obj{"ref": obj{"type": "ref/prompt", "name": "greet"}, "argument": obj{"name": "name", "value": "go"}}))
		r := wantResult(t, m)
		if !reflect.DeepEqual(dig(r, "completion", "values"), []any{"go", "gopher"}) {
			t.Errorf("completion = %v", r["completion"])
		}
		_, m = call(2, "completion/complete", params(obj{"ref": obj{"type": "ref/resource", "uri": "file:///docs/{name}"}, "argument": obj{"name": "name", "value": "zzz"}}))
		if v := dig(wantResult(t, m), "completion", "values"); !reflect.DeepEqual(v, []any{}) {
			t.Errorf("no match: values = %v, want []", v)
		}
		// CMP-2: a malformed ref is invalid params.
		_, m = call(3, "completion/complete", params(obj{"ref": obj{"type": "ref/unknown"}, "argument": obj{"name": "n", "value": ""}}))
		wantError(t, m, -32602)
	})

	big := New(testInfo, nil)
	big.SetCompletion(func(ctx context.Context, req *CompletionRequest) (*mcp.CompleteResultCompletion, error) {
		vals := make([]string, 150)
		for i := range vals {
			vals[i] = fmt.Sprint(i)
		}
		return &mcp.CompleteResultCompletion{Values: vals}, nil
	})
	c := startStdio(t, big)
	r := wantResult(t, c.roundTrip(1, "completion/complete", params(obj{"ref": obj{"type": "ref/prompt", "name": "p"}, "argument": obj{"name": "n", "value": ""}})))
	if vals, _ := dig(r, "completion", "values").([]any); len(vals) != 100 || dig(r, "completion", "hasMore") != true {
		t.Errorf("completion of 150 values: %d values, hasMore %v; want 100 and true", len(vals), dig(r, "completion", "hasMore"))
	}
	c.finish()
}

// TestCMP4_CompletionErrors: a handler error with a code keeps it; a plain
// error is -32603 without leaking its text.
func TestCMP4_CompletionErrors(t *testing.T) {
	s := New(testInfo, nil)
	s.SetCompletion(func(ctx context.Context, req *CompletionRequest) (*mcp.CompleteResultCompletion, error) {
		if req.Params.Ref.PromptReference != nil && req.Params.Ref.PromptReference.Name == "nope" {
			return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: "Unknown prompt: nope"}
		}
		return nil, fmt.Errorf("database password is hunter2")
	})
	forEachTransport(t, s, func(t *testing.T, call caller) {
		_, m := call(1, "completion/complete", params(obj{"ref": obj{"type": "ref/prompt", "name": "nope"}, "argument": obj{"name": "n", "value": ""}}))
		wantError(t, m, -32602)
		_, m = call(2, "completion/complete", params(obj{"ref": obj{"type": "ref/prompt", "name": "x"}, "argument": obj{"name": "n", "value": ""}}))
		if e := wantError(t, m, -32603); e.Message != "Internal error" {
			t.Errorf("internal error message %q leaks the handler's error", e.Message)
		}
	})
}

// TestTOOL10_UnknownToolAndPRM4_UnknownPrompt: unknown tools and prompts
// and a missing required prompt argument are -32602.
func TestTOOL10_UnknownToolAndPRM4_UnknownPrompt(t *testing.T) {
	s := newServer(t, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for i, c := range []struct {
			method string
			params obj
		}{
			{"tools/call", params(obj{"name": "no-such-tool"})},
			{"prompts/get", params(obj{"name": "no-such-prompt"})},
			{"prompts/get", params(obj{"name": "greet"})},                           // required argument missing
			{"prompts/get", params(obj{"name": "greet", "arguments": obj{"x": 1}})}, // arguments are strings
		} {
			status, m := call(i, c.method, c.params)
			wantError(t, m, -32602)
			if status >= 500 {
				t.Errorf("%s: HTTP status %d", c.method, status)
			}
		}
		// Without a name the call is invalid params; on HTTP the missing
		// Mcp-Name header may be reported first (-32020, digest §5.5).
		status, m := call("noname", "tools/call", params(obj{"arguments": obj{}}))
		if m.Error == nil || m.Error.Code != -32602 && !(status != 0 && m.Error.Code == -32020) {
			t.Errorf("tools/call without a name: %s", m)
		}
		_, m = call("ok", "prompts/get", params(obj{"name": "greet", "arguments": obj{"name": "Ada"}}))
		msgs, _ := wantResult(t, m)["messages"].([]any)
		if len(msgs) != 1 || dig(msgs[0], "content", "text") != "Hello, Ada" {
			t.Errorf("prompts/get = %s", m)
		}
	})
}

// TestRES5_ResourceNotFound: reading a resource that does not exist is
// -32602 with data.uri, also when a template matches but its handler finds
// nothing, and never an empty contents list.
func TestRES5_ResourceNotFound(t *testing.T) {
	s := newServer(t, nil)
	must(t, s.AddResource(mcp.Resource{URI: "file:///empty", Name: "empty"},
		func(context.Context, *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) { return nil, nil }))
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for i, uri := range []string{"file:///nowhere.txt", "file:///docs/missing", "file:///empty"} {
			_, m := call(i, "resources/read", params(obj{"uri": uri}))
			e := wantError(t, m, -32602)
			if e.data()["uri"] != uri {
				t.Errorf("%s: data = %s, want {\"uri\":%q}", uri, e.Data, uri)
			}
		}
		_, m := call("t", "resources/read", params(obj{"uri": "file:///docs/guide"}))
		contents, _ := wantResult(t, m)["contents"].([]any)
		if len(contents) != 1 || dig(contents[0], "text") != "doc guide" || dig(contents[0], "uri") != "file:///docs/guide" {
			t.Errorf("template read = %s", m)
		}
	})
}

// TestGATE1_CapabilityGating: methods behind a capability the server does
// not advertise, and unknown or removed methods, are -32601 (HTTP 404).
func TestGATE1_CapabilityGating(t *testing.T) {
	s := New(testInfo, nil)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for i, c := range []struct {
			method string
			params obj
		}{
			{"tools/list", params(nil)},
			{"tools/call", params(obj{"name": "x"})},
			{"prompts/list", params(nil)},
			{"prompts/get", params(obj{"name": "x"})},
			{"resources/list", params(nil)},
			{"resources/templates/list", params(nil)},
			{"resources/read", params(obj{"uri": "file:///x"})},
			{"completion/complete", params(obj{"ref": obj{"type": "ref/prompt", "name": "x"}, "argument": obj{"name": "n", "value": ""}})},
			{"no/such/method", params(nil)},
			{"ping", params(nil)},
			{"logging/setLevel", params(obj{"level": "info"})},
			{"resources/subscribe", params(obj{"uri": "file:///x"})},
		} {
			status, m := call(i, c.method, c.params)
			wantError(t, m, -32601)
			wantStatus(t, status, http.StatusNotFound)
		}
	})
}

// TestRES4_TemplateMatching: {name} matches one path segment, {+path} the
// rest of the URI; a URI no template matches is not found (RES-5).
func TestRES4_TemplateMatching(t *testing.T) {
	s := New(testInfo, nil)
	vars := func(ctx context.Context, req *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
		return []mcp.ReadResourceResultContentsItem{TextContents(req.URI, "", mustJSON(req.Vars))}, nil
	}
	must(t, s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "repo://{owner}/{name}/issues", Name: "issues"}, vars))
	must(t, s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///src/{+path}", Name: "src"}, vars))
	if err := s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://{?q}", Name: "query"}, vars); err == nil {
		t.Errorf("a template this server cannot match was accepted")
	}
	c := startStdio(t, s)
	for i, tc := range []struct {
		uri  string
		want string // "" = not found
	}{
		{"repo://golang/go/issues", `{"name":"go","owner":"golang"}`},
		{"file:///src/a/b/c.go", `{"path":"a/b/c.go"}`},
		{"repo://golang/go/x/issues", ""},
		{"repo://golang/go/issues/1", ""},
		{"file:///src/", ""},
	} {
		m := c.roundTrip(i, "resources/read", params(obj{"uri": tc.uri}))
		if tc.want == "" {
			if e := wantError(t, m, -32602); e.data()["uri"] != tc.uri {
				t.Errorf("%s: %s", tc.uri, m)
			}
			continue
		}
		contents, _ := wantResult(t, m)["contents"].([]any)
		if len(contents) != 1 || dig(contents[0], "text") != tc.want {
			t.Errorf("%s: %s, want vars %s", tc.uri, m, tc.want)
		}
	}
	c.finish()
}
