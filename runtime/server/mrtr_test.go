package server

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
)

// firstRound calls method with params p and returns the requestState of
// the InputRequiredResult it must produce.
func firstRound(t *testing.T, call caller, id any, method string, p obj) (obj, string) {
	t.Helper()
	_, m := call(id, method, p)
	r := wantResult(t, m)
	if r["resultType"] != "input_required" {
		t.Fatalf("%s: want input_required, got %s", method, m)
	}
	state, _ := r["requestState"].(string)
	if state == "" {
		t.Fatalf("%s: no requestState: %s", method, m)
	}
	return r, state
}

// retry is p plus the answers and the state.
func retry(p obj, responses obj, state string) obj {
	q := obj{}
	for k, v := range p {
		q[k] = v
	}
	if responses != nil {
		q["inputResponses"] = responses
	}
	if state != "" {
		q["requestState"] = state
	}
	return q
}

// mrtrServer has "ask" (tool), "ask-prompt" (prompt) and "secret://x"
// (resource), each eliciting a name.
func mrtrServer(t *testing.T, opts *Options) *Server {
	t.Helper()
	s := New(testInfo, opts)
	askTool(t, s)
	must(t, s.AddPrompt(mcp.Prompt{Name: "ask-prompt"}, func(ctx context.Context, req *PromptRequest) (*mcp.GetPromptResult, error) {
		res, err := req.Elicit("who", elicitForm("name"))
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{UserMessage("prompt for " + res.Content["name"].String.Value)}}, nil
	}))
	must(t, s.AddResource(mcp.Resource{URI: "secret://x", Name: "secret"}, func(ctx context.Context, req *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
		res, err := req.Elicit("who", elicitForm("name"))
		if err != nil {
			return nil, err
		}
		return []mcp.ReadResourceResultContentsItem{TextContents(req.URI, "", "secret for "+res.Content["name"].String.Value)}, nil
	}))
	return s
}

// TestMRTR2_InputRequiredThenComplete: tools/call, prompts/get and
// resources/read that need input answer input_required with inputRequests
// and requestState (and serverInfo, no caching hints); the retry with a
// new id, the answers and the echoed state completes.
func TestMRTR2_InputRequiredThenComplete(t *testing.T) {
	s := mrtrServer(t, nil)
	flows := []struct {
		method string
		p      obj
		final  func(r obj) string
		want   string
	}{
		{"tools/call", paramsCaps(elicitCaps, obj{"name": "ask"}),
			func(r obj) string { return msg{Result: r}.text() }, "hello Ada"},
		{"prompts/get", paramsCaps(elicitCaps, obj{"name": "ask-prompt"}),
			func(r obj) string { m, _ := r["messages"].([]any); return str(dig(first(m), "content", "text")) }, "prompt for Ada"},
		{"resources/read", paramsCaps(elicitCaps, obj{"uri": "secret://x"}),
			func(r obj) string { c, _ := r["contents"].([]any); return str(dig(first(c), "text")) }, "secret for Ada"},
	}
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for _, f := range flows {
			r, state := firstRound(t, call, "r1", f.method, f.p)
			ask, _ := dig(r, "inputRequests", "who").(obj)
			if ask["method"] != "elicitation/create" || dig(ask, "params", "message") != "Please give name" ||
				dig(ask, "params", "requestedSchema", "properties", "name", "type") != "string" {
				t.Errorf("%s: inputRequests = %v", f.method, r["inputRequests"])
			}
			if _, hasID := ask["id"]; hasID {
				t.Errorf("%s: an input request carries an id", f.method)
			}
			if r["ttlMs"] != nil || r["cacheScope"] != nil {
				t.Errorf("%s: InputRequiredResult has caching hints (MRTR-14)", f.method)
			}
			if dig(r, "_meta", "io.modelcontextprotocol/serverInfo") == nil {
				t.Errorf("%s: InputRequiredResult lacks serverInfo (RT-6)", f.method)
			}
			_, m := call("r2", f.method, retry(f.p, obj{"who": accept("name", "Ada")}, state))
			res := wantResult(t, m)
			if res["resultType"] != "complete" || f.final(res) != f.want {
				t.Errorf("%s retry: %s, want %q", f.method, m, f.want)
			}
		}
		// A declined elicitation reaches the handler (ELI-8).
		_, state := firstRound(t, call, "d1", "tools/call", paramsCaps(elicitCaps, obj{"name": "ask"}))
		_, m := call("d2", "tools/call", retry(paramsCaps(elicitCaps, obj{"name": "ask"}), obj{"who": obj{"action": "decline"}}, state))
		if dig(wantResult(t, m), "isError") != true || m.text() != "declined" {
			t.Errorf("declined: %s", m)
		}
	})
}

func first(xs []any) any {
	if len(xs) == 0 {
		return nil
	}
	return xs[0]
}

func str(v any) string { s, _ := v.(string); return s }

// flip changes one character in the middle of s to another base64url one.
func flip(s string) string {
	b := []byte(s)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// TestMRTR16_TamperedStateRejected: a requestState that is altered,
// truncated, made up or empty is refused with -32602 and the handler does
// not see the answers.
func TestMRTR16_TamperedStateRejected(t *testing.T) {
	s := mrtrServer(t, nil)
	p := paramsCaps(elicitCaps, obj{"name": "ask"})
	forEachTransport(t, s, func(t *testing.T, call caller) {
		_, state := firstRound(t, call, 1, "tools/call", p)
		for i, bad := range []string{
			flip(state),
			state[:len(state)-4],
			state + "AAAA",
			base64.RawURLEncoding.EncodeToString([]byte(`{"t":"tools/call\u0000ask","e":99999999999}`)),
			"not base64 at all!",
			strings.Repeat("A", 80),
		} {
			_, m := call(10+i, "tools/call", retry(p, obj{"who": accept("name", "Mallory")}, bad))
			wantError(t, m, -32602)
		}
		_, m := call(99, "tools/call", retry(p, obj{"who": accept("name", "Ada")}, state))
		if m.text() != "hello Ada" {
			t.Errorf("the untouched state no longer works: %s", m)
		}
	})
}

// TestMRTR17_StateBoundToRequest: a requestState works only for the
// method and tool, prompt or resource that issued it.
func TestMRTR17_StateBoundToRequest(t *testing.T) {
	s := mrtrServer(t, nil)
	toolFunc(t, s, "other", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Elicit("who", elicitForm("name"))
		if err != nil {
			return nil, err
		}
		return TextResult("other " + res.Content["name"].String.Value), nil
	})
	forEachTransport(t, s, func(t *testing.T, call caller) {
		_, state := firstRound(t, call, 1, "tools/call", paramsCaps(elicitCaps, obj{"name": "ask"}))
		answers := obj{"who": accept("name", "Ada")}
		for i, c := range []struct {
			method string
			p      obj
		}{
			{"tools/call", paramsCaps(elicitCaps, obj{"name": "other"})},
			{"prompts/get", paramsCaps(elicitCaps, obj{"name": "ask-prompt"})},
			{"resources/read", paramsCaps(elicitCaps, obj{"uri": "secret://x"})},
		} {
			_, m := call(10+i, c.method, retry(c.p, answers, state))
			wantError(t, m, -32602)
		}
	})
}

// TestMRTR17_ExpiredStateRejected: a requestState older than StateTTL is
// refused; a younger one works.
func TestMRTR17_ExpiredStateRejected(t *testing.T) {
	s := mrtrServer(t, &Options{StateTTL: time.Minute})
	clk := &clock{t: time.Now()}
	s.sealer.now = clk.now
	p := paramsCaps(elicitCaps, obj{"name": "ask"})
	forEachTransport(t, s, func(t *testing.T, call caller) {
		_, state := firstRound(t, call, 1, "tools/call", p)
		clk.advance(30 * time.Second)
		_, m := call(2, "tools/call", retry(p, obj{"who": accept("name", "Ada")}, state))
		if m.text() != "hello Ada" {
			t.Errorf("within the TTL: %s", m)
		}
		clk.advance(2 * time.Minute)
		_, m = call(3, "tools/call", retry(p, obj{"who": accept("name", "Ada")}, state))
		wantError(t, m, -32602)
	})
}

// TestMRTR17_StateBoundToPrincipal: on HTTP a requestState issued to one
// Authorization is refused under another (or none); HTTPOptions.Principal
// replaces the default principal.
func TestMRTR17_StateBoundToPrincipal(t *testing.T) {
	s := mrtrServer(t, nil)
	p := paramsCaps(elicitCaps, obj{"name": "ask"})
	answers := obj{"who": accept("name", "Ada")}
	auth := func(v string) map[string]string { return map[string]string{"Authorization": v} }

	h := startHTTP(t, s, nil)
	_, m := h.call(1, "tools/call", p, auth("Bearer alice"))
	state, _ := wantResult(t, m)["requestState"].(string)
	for i, other := range []string{"Bearer bob", ""} {
		resp, m := h.call(10+i, "tools/call", retry(p, answers, state), auth(other))
		wantError(t, m, -32602)
		if resp.StatusCode == http.StatusOK && m.Result != nil {
			t.Errorf("principal %q accepted alice's state", other)
		}
	}
	if _, m = h.call(20, "tools/call", retry(p, answers, state), auth("Bearer alice")); m.text() != "hello Ada" {
		t.Errorf("alice's own retry: %s", m)
	}

	// A custom principal: the tenant header, whatever the token.
	h2 := startHTTP(t, s, &HTTPOptions{Principal: func(r *http.Request) string { return r.Header.Get("X-Tenant") }})
	_, m = h2.call(1, "tools/call", p, map[string]string{"X-Tenant": "t1", "Authorization": "Bearer a"})
	state, _ = wantResult(t, m)["requestState"].(string)
	_, m = h2.call(2, "tools/call", retry(p, answers, state), map[string]string{"X-Tenant": "t2", "Authorization": "Bearer a"})
	wantError(t, m, -32602)
	_, m = h2.call(3, "tools/call", retry(p, answers, state), map[string]string{"X-Tenant": "t1", "Authorization": "Bearer b"})
	if m.text() != "hello Ada" {
		t.Errorf("same tenant, other token: %s", m)
	}
}

// TestMRTR18_SingleUseState: with Options.SingleUseState a requestState is
// consumed by its first use; without it the same retry can be repeated.
func TestMRTR18_SingleUseState(t *testing.T) {
	p := paramsCaps(elicitCaps, obj{"name": "ask"})
	answers := obj{"who": accept("name", "Ada")}
	for _, single := range []bool{true, false} {
		s := mrtrServer(t, &Options{SingleUseState: single})
		c := startStdio(t, s)
		call := func(id any, method string, p any) (int, msg) { return 0, c.roundTrip(id, method, p) }
		_, state := firstRound(t, call, 1, "tools/call", p)
		if m := c.roundTrip(2, "tools/call", retry(p, answers, state)); m.text() != "hello Ada" {
			t.Fatalf("first use: %s", m)
		}
		m := c.roundTrip(3, "tools/call", retry(p, answers, state))
		if single {
			wantError(t, m, -32602)
		} else if m.text() != "hello Ada" {
			t.Errorf("second use without SingleUseState: %s", m)
		}
		c.finish()
	}
}

// TestMRTR4_OnlyDeclaredCapabilities: input requests are made only for
// capabilities declared on this request; otherwise -32021 names what is
// missing (sampling, sampling.tools, roots, URL elicitation).
func TestMRTR4_OnlyDeclaredCapabilities(t *testing.T) {
	s := New(testInfo, nil)
	toolFunc(t, s, "sample", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		_, err := req.Sample("s", mcp.CreateMessageRequestParams{MaxTokens: 10, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingMessageContent{TextContent: &mcp.TextContent{Text: "hi"}}}}})
		return nil, err
	})
	toolFunc(t, s, "sample-tools", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		_, err := req.Sample("s", mcp.CreateMessageRequestParams{MaxTokens: 10, Messages: []mcp.SamplingMessage{},
			Tools: []mcp.Tool{{Name: "t", InputSchema: []byte(`{"type":"object"}`)}}})
		return nil, err
	})
	toolFunc(t, s, "roots", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		_, err := req.Roots("r")
		return nil, err
	})
	toolFunc(t, s, "url", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		_, err := req.ElicitURL("u", mcp.ElicitRequestURLParams{Message: "Log in", URL: "https://example.com/login"})
		return nil, err
	})
	cases := []struct {
		tool    string
		missing obj    // declared capabilities that are not enough
		enough  obj    // declared capabilities that are
		need    string // member of data.requiredCapabilities
		method  string // input request method when enough
	}{
		{"sample", obj{"elicitation": obj{}}, obj{"sampling": obj{}}, "sampling", "sampling/createMessage"},
		{"sample-tools", obj{"sampling": obj{}}, obj{"sampling": obj{"tools": obj{}}}, "sampling", "sampling/createMessage"},
		{"roots", obj{"sampling": obj{}}, obj{"roots": obj{}}, "roots", "roots/list"},
		{"url", obj{"elicitation": obj{}}, obj{"elicitation": obj{"url": obj{}}}, "elicitation", "elicitation/create"},
	}
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for _, c := range cases {
			status, m := call(1, "tools/call", paramsCaps(c.missing, obj{"name": c.tool}))
			e := wantError(t, m, -32021)
			wantStatus(t, status, http.StatusBadRequest)
			if dig(e.data(), "requiredCapabilities", c.need) == nil {
				t.Errorf("%s: data = %s, want requiredCapabilities.%s", c.tool, e.Data, c.need)
			}
			_, m = call(2, "tools/call", paramsCaps(c.enough, obj{"name": c.tool}))
			r := wantResult(t, m)
			var methods []string
			for _, v := range dig(r, "inputRequests").(obj) {
				methods = append(methods, str(dig(v, "method")))
			}
			if r["resultType"] != "input_required" || len(methods) != 1 || methods[0] != c.method {
				t.Errorf("%s with %v: %s, want one %s input request", c.tool, c.enough, m, c.method)
			}
		}
	})
}

// TestMRTR1_OnlyThreeMethods: a completion handler cannot ask for input:
// Elicit and RetryLater fail there and the answer is an error, never
// input_required.
func TestMRTR1_OnlyThreeMethods(t *testing.T) {
	s := New(testInfo, nil)
	s.SetCompletion(func(ctx context.Context, req *CompletionRequest) (*mcp.CompleteResultCompletion, error) {
		if req.Params.Argument.Name == "later" {
			return nil, req.RetryLater()
		}
		if _, err := req.Elicit("x", elicitForm("x")); err != nil {
			return nil, err
		}
		return &mcp.CompleteResultCompletion{Values: []string{"unreachable"}}, nil
	})
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for i, arg := range []string{"elicit", "later"} {
			_, m := call(i, "completion/complete", paramsCaps(elicitCaps, obj{"ref": obj{"type": "ref/prompt", "name": "p"}, "argument": obj{"name": arg, "value": ""}}))
			if m.Error == nil {
				t.Fatalf("%s in completion/complete: %s, want an error", arg, m)
			}
			wantError(t, m, -32603)
		}
	})
}

// TestMRTR6_MultiRound: a handler that needs two answers asks for them in
// two rounds; the second retry carries only the second answer, the first
// comes back from requestState, and handler state saved with SetState
// travels sealed.
func TestMRTR6_MultiRound(t *testing.T) {
	s := New(testInfo, nil)
	toolFunc(t, s, "two", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		round := string(req.State()) + "x"
		req.SetState([]byte(round))
		a, err := req.Elicit("first", elicitForm("a"))
		if err != nil {
			return nil, err
		}
		b, err := req.Elicit("second", elicitForm("b"))
		if err != nil {
			return nil, err
		}
		return TextResult(a.Content["a"].String.Value + "+" + b.Content["b"].String.Value + " after " + round), nil
	})
	p := paramsCaps(elicitCaps, obj{"name": "two"})
	forEachTransport(t, s, func(t *testing.T, call caller) {
		r, state1 := firstRound(t, call, 1, "tools/call", p)
		if keys(r["inputRequests"]) != "first" {
			t.Fatalf("round 1 asks %s", keys(r["inputRequests"]))
		}
		_, m := call(2, "tools/call", retry(p, obj{"first": accept("a", "A")}, state1))
		r = wantResult(t, m)
		state2, _ := r["requestState"].(string)
		if r["resultType"] != "input_required" || keys(r["inputRequests"]) != "second" || state2 == "" || state2 == state1 {
			t.Fatalf("round 2: %s", m)
		}
		_, m = call(3, "tools/call", retry(p, obj{"second": accept("b", "B")}, state2))
		if m.text() != "A+B after xxx" {
			t.Errorf("round 3: %s, want A+B after xxx", m)
		}
	})
}

func keys(v any) string {
	o, _ := v.(obj)
	var ks []string
	for k := range o {
		ks = append(ks, k)
	}
	return strings.Join(ks, ",")
}

// TestMRTR2_RetryLaterStateOnly: RetryLater answers input_required with a
// requestState and no inputRequests (load shedding); the plain retry with
// the state completes.
func TestMRTR2_RetryLaterStateOnly(t *testing.T) {
	s := New(testInfo, nil)
	toolFunc(t, s, "busy", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		if req.State() == nil {
			req.SetState([]byte("queued"))
			return nil, req.RetryLater()
		}
		return TextResult("served " + string(req.State())), nil
	})
	forEachTransport(t, s, func(t *testing.T, call caller) {
		r, state := firstRound(t, call, 1, "tools/call", params(obj{"name": "busy"}))
		if _, ok := r["inputRequests"]; ok {
			t.Errorf("RetryLater sent inputRequests: %v", r)
		}
		if strings.Contains(state, base64.RawURLEncoding.EncodeToString([]byte("queued"))) {
			t.Errorf("handler state visible in requestState")
		}
		_, m := call(2, "tools/call", retry(params(obj{"name": "busy"}), nil, state))
		if m.text() != "served queued" {
			t.Errorf("retry: %s", m)
		}
	})
}

// TestMRTR7_MalformedInputResponse: an answer that is not a valid result
// for its input request is -32602.
func TestMRTR7_MalformedInputResponse(t *testing.T) {
	s := mrtrServer(t, nil)
	p := paramsCaps(elicitCaps, obj{"name": "ask"})
	forEachTransport(t, s, func(t *testing.T, call caller) {
		_, state := firstRound(t, call, 1, "tools/call", p)
		for i, bad := range []any{obj{"action": "maybe"}, "yes", obj{"roots": []any{}}} {
			_, m := call(10+i, "tools/call", retry(p, obj{"who": bad}, state))
			wantError(t, m, -32602)
		}
	})
}

// TestMRTR17_StateBoundToArguments: a requestState is bound to the
// arguments of the request that earned it: the answer "yes" to "transfer
// 10?" cannot be replayed onto a transfer of 10000. The same arguments
// with their keys in another order or other spacing still work.
func TestMRTR17_StateBoundToArguments(t *testing.T) {
	s := New(testInfo, nil)
	toolFunc(t, s, "transfer", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Elicit("confirm", elicitForm("ok"))
		if err != nil {
			return nil, err
		}
		return TextResult("transferred " + string(req.Arguments) + " " + res.Content["ok"].String.Value), nil
	})
	must(t, s.AddPrompt(mcp.Prompt{Name: "brief"}, func(ctx context.Context, req *PromptRequest) (*mcp.GetPromptResult, error) {
		if _, err := req.Elicit("confirm", elicitForm("ok")); err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{UserMessage("brief on " + req.Arguments["topic"])}}, nil
	}))
	answers := obj{"confirm": accept("ok", "yes")}
	forEachTransport(t, s, func(t *testing.T, call caller) {
		small := paramsCaps(elicitCaps, obj{"name": "transfer", "arguments": obj{"amount": 10, "to": "bob"}})
		_, state := firstRound(t, call, 1, "tools/call", small)
		for i, args := range []obj{{"amount": 10000, "to": "bob"}, {"amount": 10, "to": "mallory"}, {"amount": 10}, {}} {
			_, m := call(10+i, "tools/call", retry(paramsCaps(elicitCaps, obj{"name": "transfer", "arguments": args}), answers, state))
			wantError(t, m, -32602)
		}
		_, m := call(20, "tools/call", retry(small, answers, state))
		if !strings.HasPrefix(m.text(), "transferred") {
			t.Errorf("the original arguments: %s", m)
		}

		p := paramsCaps(elicitCaps, obj{"name": "brief", "arguments": obj{"topic": "cats"}})
		_, state = firstRound(t, call, 30, "prompts/get", p)
		_, m = call(31, "prompts/get", retry(paramsCaps(elicitCaps, obj{"name": "brief", "arguments": obj{"topic": "secrets"}}), answers, state))
		wantError(t, m, -32602)
		_, m = call(32, "prompts/get", retry(p, answers, state))
		wantResult(t, m)
	})

	// Key order and spacing of the arguments do not matter.
	c := startStdio(t, s)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + mustJSON(reqMeta(elicitCaps, nil)) + `,"name":"transfer","arguments":{"to":"bob","amount":10}}}`)
	m, _ := c.response("1")
	state, _ := wantResult(t, m)["requestState"].(string)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":` + mustJSON(reqMeta(elicitCaps, nil)) + `,"name":"transfer","arguments":{ "amount" : 10 , "to" : "bob" },"inputResponses":` + mustJSON(answers) + `,"requestState":"` + state + `"}}`)
	if m, _ = c.response("2"); !strings.HasPrefix(m.text(), "transferred") {
		t.Errorf("reordered arguments: %s", m)
	}
	c.finish()
}

// TestMRTR7_ExtraAndMissingAnswers: answers nobody asked for are ignored;
// a retry without the needed answer gets a fresh input_required, not an
// error.
func TestMRTR7_ExtraAndMissingAnswers(t *testing.T) {
	s := mrtrServer(t, nil)
	p := paramsCaps(elicitCaps, obj{"name": "ask"})
	forEachTransport(t, s, func(t *testing.T, call caller) {
		_, state := firstRound(t, call, 1, "tools/call", p)
		_, m := call(2, "tools/call", retry(p, obj{"unrelated": obj{"action": "cancel"}}, state))
		r := wantResult(t, m)
		if r["resultType"] != "input_required" || keys(r["inputRequests"]) != "who" {
			t.Fatalf("retry without the answer: %s, want a fresh input_required", m)
		}
		state2, _ := r["requestState"].(string)
		_, m = call(3, "tools/call", retry(p, obj{"who": accept("name", "Ada"), "unrelated": obj{"action": "cancel"}}, state2))
		if m.text() != "hello Ada" {
			t.Errorf("with an extra answer: %s", m)
		}
	})
}
