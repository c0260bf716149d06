package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// weirdState is a requestState a careless client would mangle: quotes,
// backslashes, escapes, line and paragraph separators, non-BMP runes,
// control characters, padding and a Base64 sentinel look-alike.
const weirdState = " \"st\\ate\"\n\t\u2028\u2029<&>\x01 😀 =?base64?eA==?= %2F+/= "

var samplingInput = obj{"method": "sampling/createMessage", "params": obj{
	"messages":  []obj{{"role": "user", "content": obj{"type": "text", "text": "Capital of France?"}}},
	"maxTokens": 50,
}}

// rounds scripts a multi round-trip method on an httpFake: answer[i] is
// the result of attempt i; every attempt is recorded.
func rounds(f *httpFake, method string, answers ...func(m msg) any) {
	var mu sync.Mutex
	n := 0
	f.on(method, func(w http.ResponseWriter, r *http.Request, m msg) {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		if i >= len(answers) {
			i = len(answers) - 1
		}
		writeJSON(w, 200, result(m.ID, answers[i](m)))
	})
}

func fixed(v any) func(msg) any { return func(msg) any { return v } }

func allCallbacks(t *testing.T) *client.Options {
	return &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			if p.ElicitRequestFormParams == nil || p.ElicitRequestFormParams.Message != "Your login?" {
				t.Errorf("elicitation params %+v", p)
			}
			return acceptElicit(ctx, p)
		},
		Sample: func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
			if len(p.Messages) != 1 || p.MaxTokens != 50 {
				t.Errorf("sampling params %+v", p)
			}
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m1",
				Content: mcp.CreateMessageResultContent{TextContent: &mcp.TextContent{Text: "Paris"}}}, nil
		},
		Roots: func(ctx context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///work", Name: wire.Some("work")}}, nil
		},
	}
}

// The retry repeats the request under a new id with inputResponses keyed
// like inputRequests, each answered by its callback, and the requestState
// as received (MRTR-9, MRTR-10, MRTR-11, ID-3).
func TestMRTR10_RetryAnswersInputRequests(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("plan", nil))
	rounds(f, mcp.MethodCallTool,
		fixed(obj{"resultType": "input_required", "requestState": weirdState, "inputRequests": obj{
			"github_login":      elicitInput,
			"capital_of_france": samplingInput,
			"where":             obj{"method": "roots/list"},
		}}),
		fixed(textResult("planned")))
	c := f.connect(t, allCallbacks(t))
	r, err := c.CallTool(context.Background(), "plan", wire.Raw(`{"days":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, r); got != "planned" {
		t.Errorf("result %q", got)
	}
	calls := f.requests(mcp.MethodCallTool)
	if len(calls) != 2 {
		t.Fatalf("%d attempts, want 2", len(calls))
	}
	first, retry := calls[0], calls[1]
	if first.idKey() == retry.idKey() {
		t.Errorf("the retry reused id %s", first.idKey())
	}
	for _, k := range []string{"name", "arguments"} {
		a, _ := first.param(k)
		b, _ := retry.param(k)
		if mustJSON(a) != mustJSON(b) {
			t.Errorf("%s changed: %v then %v", k, a, b)
		}
	}
	if _, ok := first.param("inputResponses"); ok {
		t.Error("the first attempt carries inputResponses")
	}
	if _, ok := first.param("requestState"); ok {
		t.Error("the first attempt carries requestState")
	}
	if st, _ := retry.param("requestState"); st != weirdState {
		t.Errorf("requestState %q, want %q", st, weirdState)
	}
	resp, _ := retry.param("inputResponses")
	want := `{"capital_of_france":{"content":{"text":"Paris","type":"text"},"model":"m1","role":"assistant"},` +
		`"github_login":{"action":"accept","content":{"login":"octocat"}},` +
		`"where":{"roots":[{"name":"work","uri":"file:///work"}]}}`
	if got := mustJSON(resp); got != want {
		t.Errorf("inputResponses\n got %s\nwant %s", got, want)
	}
	checkMeta(t, retry, `{"elicitation":{"form":{}},"roots":{},"sampling":{}}`)
}

// requestState is echoed exactly, round after round; a round without one
// sends none (MRTR-11).
func TestMRTR11_RequestStateEchoedVerbatim(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("t", nil))
	states := []string{weirdState, "", "é\u0000x"}
	rounds(f, mcp.MethodCallTool,
		fixed(obj{"resultType": "input_required", "requestState": states[0], "inputRequests": obj{"a": elicitInput}}),
		fixed(obj{"resultType": "input_required", "inputRequests": obj{"b": elicitInput}}), // no state
		fixed(obj{"resultType": "input_required", "requestState": states[1], "inputRequests": obj{"c": elicitInput}}),
		fixed(obj{"resultType": "input_required", "requestState": states[2]}),
		fixed(textResult("ok")))
	c := f.connect(t, &client.Options{Elicit: acceptElicit})
	if _, err := c.CallTool(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	calls := f.requests(mcp.MethodCallTool)
	if len(calls) != 5 {
		t.Fatalf("%d attempts, want 5", len(calls))
	}
	want := []*string{nil, &states[0], nil, &states[1], &states[2]}
	for i, m := range calls {
		var p struct {
			RequestState *string `json:"requestState"`
		}
		if err := json.Unmarshal([]byte(m.raw), &struct {
			Params any `json:"params"`
		}{&p}); err != nil {
			t.Fatal(err)
		}
		switch {
		case want[i] == nil && p.RequestState != nil:
			t.Errorf("attempt %d carries requestState %q the server never sent", i, *p.RequestState)
		case want[i] != nil && (p.RequestState == nil || *p.RequestState != *want[i]):
			t.Errorf("attempt %d: requestState %v, want %q", i, p.RequestState, *want[i])
		}
	}
}

// A result with only requestState (load shedding) is retried at once,
// without inputResponses and without calling any callback (MRTR-9).
func TestMRTR9_RequestStateOnlyRetriedAtOnce(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("t", nil))
	rounds(f, mcp.MethodCallTool,
		fixed(obj{"resultType": "input_required", "requestState": "later"}),
		fixed(textResult("ok")))
	c := f.connect(t, &client.Options{Elicit: func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		t.Error("a callback ran for a requestState-only result")
		return nil, errors.New("unexpected")
	}})
	if _, err := c.CallTool(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	calls := f.requests(mcp.MethodCallTool)
	if len(calls) != 2 {
		t.Fatalf("%d attempts, want 2", len(calls))
	}
	if st, _ := calls[1].param("requestState"); st != "later" {
		t.Errorf("requestState %v", st)
	}
	if v, ok := calls[1].param("inputResponses"); ok {
		t.Errorf("inputResponses %v on a retry nobody asked input for", v)
	}
}

// inputResponses and requestState belong to the one request they answer:
// a request made meanwhile (here from inside the callback) carries
// neither (MRTR-12).
func TestMRTR12_StateNotAttachedToConcurrentRequest(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("a", nil), toolDef("b", nil))
	f.on(mcp.MethodCallTool, func(w http.ResponseWriter, r *http.Request, m msg) {
		name, _ := m.param("name")
		if _, retried := m.param("inputResponses"); name == "a" && !retried {
			writeJSON(w, 200, result(m.ID, obj{"resultType": "input_required", "requestState": "A-state", "inputRequests": obj{"x": elicitInput}}))
			return
		}
		writeJSON(w, 200, result(m.ID, textResult("done "+name.(string))))
	})
	f.on(mcp.MethodGetPrompt, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, obj{"resultType": "complete", "messages": []obj{}}))
	})
	var c *client.Client
	c = f.connect(t, &client.Options{Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
		if _, err := c.CallTool(ctx, "b", nil); err != nil {
			return nil, err
		}
		if _, err := c.GetPrompt(ctx, "p", nil); err != nil {
			return nil, err
		}
		return acceptElicit(ctx, p)
	}})
	r, err := c.CallTool(context.Background(), "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, r); got != "done a" {
		t.Errorf("result %q", got)
	}
	var order []string
	for _, m := range f.requests("") {
		if m.Method == mcp.MethodListTools {
			continue
		}
		name, _ := m.param("name")
		_, hasState := m.param("requestState")
		_, hasResp := m.param("inputResponses")
		order = append(order, name.(string))
		if retried := name == "a" && len(order) > 1; hasState != retried || hasResp != retried {
			t.Errorf("%s %s: requestState %v, inputResponses %v", m.Method, name, hasState, hasResp)
		}
	}
	if want := []string{"a", "b", "p", "a"}; !reflect.DeepEqual(order, want) {
		t.Errorf("requests %v, want %v", order, want)
	}
}

// Options.MaxRounds bounds the attempts of one call (*RoundsError).
func TestMRTR6_MaxRounds(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("t", nil))
	rounds(f, mcp.MethodCallTool, fixed(obj{"resultType": "input_required", "requestState": "again"}))
	c := f.connect(t, &client.Options{MaxRounds: 3})
	_, err := c.CallTool(context.Background(), "t", nil)
	var re *client.RoundsError
	if !errors.As(err, &re) || re.Rounds != 3 || re.Method != mcp.MethodCallTool {
		t.Fatalf("err = %#v, want a *RoundsError after 3 rounds", err)
	}
	if !strings.Contains(err.Error(), "MaxRounds") {
		t.Errorf("error %q does not point at MaxRounds", err)
	}
	if n := len(f.requests(mcp.MethodCallTool)); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}

	// The default is 8.
	c = f.connect(t, nil)
	before := len(f.requests(mcp.MethodCallTool))
	if _, err := c.CallTool(context.Background(), "t", nil); !errors.As(err, &re) || re.Rounds != 8 {
		t.Fatalf("err = %v, want a *RoundsError after 8 rounds", err)
	}
	if n := len(f.requests(mcp.MethodCallTool)) - before; n != 8 {
		t.Errorf("%d attempts, want 8", n)
	}
}

// A result without resultType (a legacy server) is complete: no retry
// (RT-4). An unknown resultType makes the result invalid (RT-3).
func TestRT4_MissingResultTypeIsComplete(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("t", nil))
	rounds(f, mcp.MethodCallTool, fixed(obj{"content": []obj{{"type": "text", "text": "legacy"}}, "requestState": "ignored"}))
	rounds(f, mcp.MethodGetPrompt, fixed(obj{"messages": []obj{}}))
	rounds(f, mcp.MethodReadResource, fixed(obj{"contents": []obj{{"uri": "file:///a", "text": "A"}}}))
	c := f.connect(t, nil)
	r, err := c.CallTool(context.Background(), "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, r); got != "legacy" {
		t.Errorf("result %q", got)
	}
	if _, err := c.GetPrompt(context.Background(), "p", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadResource(context.Background(), "file:///a"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{mcp.MethodCallTool, mcp.MethodGetPrompt, mcp.MethodReadResource} {
		if n := len(f.requests(m)); n != 1 {
			t.Errorf("%s: %d attempts, want 1", m, n)
		}
	}
}

func TestRT3_UnknownResultTypeIsAnError(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("t", nil))
	rounds(f, mcp.MethodCallTool, fixed(obj{"resultType": "task", "content": []obj{}}))
	rounds(f, mcp.MethodReadResource, fixed(obj{"resultType": "streaming", "contents": []obj{}}))
	c := f.connect(t, nil)
	_, err := c.CallTool(context.Background(), "t", nil)
	var re *client.ResultError
	if !errors.As(err, &re) || re.Method != mcp.MethodCallTool || !strings.Contains(err.Error(), "task") {
		t.Errorf("err = %v, want a *ResultError naming the resultType", err)
	}
	_, err = c.ReadResource(context.Background(), "file:///x")
	if !errors.As(err, &re) || re.Method != mcp.MethodReadResource || !strings.Contains(err.Error(), "streaming") {
		t.Errorf("err = %v, want a *ResultError naming the resultType", err)
	}
	if n := len(f.requests(mcp.MethodCallTool)); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
}

// An input request for a callback the client does not have ends the call
// with ErrNoHandler, without a retry (MRTR-4 is the server's duty; the
// client cannot answer).
func TestMRTR4_InputWithoutCallback(t *testing.T) {
	urlInput := obj{"method": "elicitation/create", "params": obj{"mode": "url", "message": "Sign in", "url": "https://example.com/login"}}
	for _, tc := range []struct {
		name  string
		input obj
		opts  client.Options
	}{
		{"elicitation", elicitInput, client.Options{}},
		{"url elicitation without ElicitURL", urlInput, client.Options{Elicit: acceptElicit}},
		{"sampling", samplingInput, client.Options{Elicit: acceptElicit}},
		{"roots", obj{"method": "roots/list"}, client.Options{Elicit: acceptElicit}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newHTTPFake(t)
			f.setTools(toolDef("t", nil))
			rounds(f, mcp.MethodCallTool, fixed(obj{"resultType": "input_required", "inputRequests": obj{"k": tc.input}}))
			opts := tc.opts
			c := f.connect(t, &opts)
			_, err := c.CallTool(context.Background(), "t", nil)
			if !errors.Is(err, client.ErrNoHandler) {
				t.Fatalf("err = %v, want ErrNoHandler", err)
			}
			if n := len(f.requests(mcp.MethodCallTool)); n != 1 {
				t.Errorf("%d attempts, want 1", n)
			}
		})
	}
}

// A declined elicitation is an answer and is sent (MRTR-13); a failing
// sampling callback ends the call without a retry (SMP-9).
func TestMRTR13_DeclineIsSentFailureIsNot(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("t", nil))
	f.on(mcp.MethodCallTool, func(w http.ResponseWriter, r *http.Request, m msg) {
		if _, ok := m.param("inputResponses"); ok {
			writeJSON(w, 200, result(m.ID, textResult("declined")))
			return
		}
		name, _ := m.param("arguments", "ask")
		input := elicitInput
		if name == "sample" {
			input = samplingInput
		}
		writeJSON(w, 200, result(m.ID, obj{"resultType": "input_required", "inputRequests": obj{"k": input}}))
	})
	boom := errors.New("model unavailable")
	c := f.connect(t, &client.Options{
		Elicit: func(context.Context, *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionDecline}, nil
		},
		Sample: func(context.Context, *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
			return nil, boom
		},
	})
	if _, err := c.CallTool(context.Background(), "t", wire.Raw(`{"ask":"elicit"}`)); err != nil {
		t.Fatal(err)
	}
	calls := f.requests(mcp.MethodCallTool)
	if resp, _ := calls[1].param("inputResponses"); mustJSON(resp) != `{"k":{"action":"decline"}}` {
		t.Errorf("inputResponses %s", mustJSON(resp))
	}
	_, err := c.CallTool(context.Background(), "t", wire.Raw(`{"ask":"sample"}`))
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the callback's error", err)
	}
	if n := len(f.requests(mcp.MethodCallTool)); n != 3 {
		t.Errorf("%d attempts, want 3 (no retry after a failed callback)", n)
	}
}

// prompts/get and resources/read run the same loop; the retry keeps the
// name or URI (and so Mcp-Name) of the first attempt.
func TestMRTR1_PromptsAndResourcesRetry(t *testing.T) {
	f := newHTTPFake(t)
	ask := obj{"resultType": "input_required", "requestState": weirdState, "inputRequests": obj{"who": elicitInput}}
	rounds(f, mcp.MethodGetPrompt, fixed(ask), fixed(obj{"resultType": "complete", "messages": []obj{
		{"role": "user", "content": obj{"type": "text", "text": "review"}}}}))
	rounds(f, mcp.MethodReadResource, fixed(ask), fixed(readResult("file:///ü", "secret", 60000, "private")))
	c := f.connect(t, &client.Options{Elicit: acceptElicit})
	ctx := context.Background()
	p, err := c.GetPrompt(ctx, "code_review", map[string]string{"code": "x := 1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 1 {
		t.Errorf("prompt %+v", p)
	}
	r, err := c.ReadResource(ctx, "file:///ü")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Contents) != 1 || r.Contents[0].TextResourceContents == nil || r.Contents[0].TextResourceContents.Text != "secret" {
		t.Errorf("contents %+v", r.Contents)
	}
	for _, method := range []string{mcp.MethodGetPrompt, mcp.MethodReadResource} {
		reqs := f.requests(method)
		if len(reqs) != 2 {
			t.Fatalf("%s: %d attempts", method, len(reqs))
		}
		if reqs[0].idKey() == reqs[1].idKey() {
			t.Errorf("%s: the retry reused id %s", method, reqs[0].idKey())
		}
		if reqs[0].header.Get("Mcp-Name") != reqs[1].header.Get("Mcp-Name") || reqs[1].header.Get("Mcp-Name") == "" {
			t.Errorf("%s: Mcp-Name %q then %q", method, reqs[0].header.Get("Mcp-Name"), reqs[1].header.Get("Mcp-Name"))
		}
		if st, _ := reqs[1].param("requestState"); st != weirdState {
			t.Errorf("%s: requestState %q", method, st)
		}
		if resp, _ := reqs[1].param("inputResponses", "who", "action"); resp != "accept" {
			t.Errorf("%s: inputResponses %s", method, reqs[1].raw)
		}
	}
	if args, _ := f.requests(mcp.MethodGetPrompt)[1].param("arguments"); mustJSON(args) != `{"code":"x := 1"}` {
		t.Errorf("prompt arguments on the retry: %v", args)
	}
}

// End to end with the real server: its sealed requestState and the
// client's answer complete the tool.
func TestMRTR10_RealServerElicitation(t *testing.T) {
	c := connectURL(t, realHTTP(t, exampleServer()), &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept,
				Content: map[string]mcp.ElicitResultContentValue{"size": {Number: wire.Some(4.0)}}}, nil
		},
	})
	r, err := c.CallTool(context.Background(), "book_table", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, r); got != "Table for 4 booked." {
		t.Errorf("result %q", got)
	}
	// Without the capability the server refuses with -32021 (META-6).
	c2 := connectURL(t, realHTTP(t, exampleServer()), nil)
	if _, err := c2.CallTool(context.Background(), "book_table", nil); !isRPCError(err, mcp.CodeMissingRequiredClientCapability) {
		t.Errorf("err = %v, want -32021", err)
	}
}

// An accepted form gets the schema's default for every field the callback
// left out, of every primitive and enum kind; fields it set, and declined
// forms, are left alone (ELI-5).
func TestELI5_DefaultsFillAcceptedForms(t *testing.T) {
	schema := obj{"type": "object", "properties": obj{
		"name":    obj{"type": "string", "default": "John Doe"},
		"age":     obj{"type": "integer", "default": 30},
		"score":   obj{"type": "number", "default": 95.5},
		"ok":      obj{"type": "boolean", "default": true},
		"status":  obj{"type": "string", "enum": []string{"active", "inactive"}, "default": "active"},
		"tags":    obj{"type": "array", "items": obj{"type": "string", "enum": []string{"a", "b"}}, "default": []string{"b"}},
		"set":     obj{"type": "string", "default": "unused"},
		"nothing": obj{"type": "string"},
	}}
	ask := obj{"resultType": "input_required", "inputRequests": obj{"form": obj{"method": "elicitation/create",
		"params": obj{"mode": "form", "message": "Defaults?", "requestedSchema": schema}}}}
	for _, action := range []mcp.ElicitResultAction{mcp.ElicitResultActionAccept, mcp.ElicitResultActionDecline} {
		f := newHTTPFake(t)
		f.setTools(toolDef("t", nil))
		rounds(f, mcp.MethodCallTool, fixed(ask), fixed(textResult("done")))
		c := f.connect(t, &client.Options{Elicit: func(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
			r := &mcp.ElicitResult{Action: action}
			if action == mcp.ElicitResultActionAccept {
				r.Content = map[string]mcp.ElicitResultContentValue{"set": {String: wire.Some("mine")}}
			}
			return r, nil
		}})
		if _, err := c.CallTool(context.Background(), "t", nil); err != nil {
			t.Fatal(err)
		}
		got, _ := f.requests(mcp.MethodCallTool)[1].param("inputResponses", "form")
		want := `{"action":"decline"}`
		if action == mcp.ElicitResultActionAccept {
			want = `{"action":"accept","content":{"age":30,"name":"John Doe","ok":true,"score":95.5,"set":"mine","status":"active","tags":["b"]}}`
		}
		if mustJSON(got) != want {
			t.Errorf("%s: answer %s, want %s", action, mustJSON(got), want)
		}
	}
}
