package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

func acceptElicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept,
		Content: map[string]mcp.ElicitResultContentValue{"login": {String: wire.Some("octocat")}}}, nil
}

var elicitInput = obj{"method": "elicitation/create", "params": obj{
	"message":         "Your login?",
	"requestedSchema": obj{"type": "object", "properties": obj{"login": obj{"type": "string"}}},
}}

// checkMeta asserts the three per-request _meta keys of META-1.
func checkMeta(t *testing.T, m msg, wantCaps string) {
	t.Helper()
	if v, _ := m.meta("io.modelcontextprotocol/protocolVersion"); v != mcp.ProtocolVersion {
		t.Errorf("%s: protocolVersion = %v, want %s\n%s", m.Method, v, mcp.ProtocolVersion, m.raw)
	}
	caps, ok := m.meta("io.modelcontextprotocol/clientCapabilities")
	if !ok {
		t.Errorf("%s: no clientCapabilities\n%s", m.Method, m.raw)
	} else if got := mustJSON(caps); got != wantCaps {
		t.Errorf("%s: clientCapabilities = %s, want %s", m.Method, got, wantCaps)
	}
	info, _ := m.meta("io.modelcontextprotocol/clientInfo")
	if got, want := mustJSON(info), `{"name":"test-client","version":"0.9.1"}`; got != want {
		t.Errorf("%s: clientInfo = %s, want %s", m.Method, got, want)
	}
}

// Every request over HTTP, including discover, listen and each multi
// round-trip retry, carries version, capabilities and identity.
func TestMETA1_EveryRequestCarriesMeta(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("ask", nil))
	f.on(mcp.MethodCallTool, func(w http.ResponseWriter, r *http.Request, m msg) {
		if _, ok := m.param("inputResponses"); !ok {
			writeJSON(w, 200, result(m.ID, obj{"resultType": "input_required",
				"inputRequests": obj{"login": elicitInput}, "requestState": "s1"}))
			return
		}
		writeJSON(w, 200, result(m.ID, textResult("done")))
	})
	f.on(mcp.MethodSubscriptionsListen, func(w http.ResponseWriter, r *http.Request, m msg) {
		s := startSSE(w)
		s.event(notification("notifications/subscriptions/acknowledged", obj{"notifications": obj{}, "_meta": subMeta(m.ID)}))
		s.event(result(m.ID, obj{"resultType": "complete", "_meta": subMeta(m.ID)}))
	})
	c := f.connect(t, &client.Options{Elicit: acceptElicit})
	ctx := context.Background()
	if _, err := c.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "ask", nil); err != nil {
		t.Fatal(err)
	}
	for _, err := range c.Listen(ctx, mcp.SubscriptionFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	for _, m := range f.requests("") {
		seen[m.Method]++
		checkMeta(t, m, `{"elicitation":{"form":{}}}`)
	}
	want := map[string]int{mcp.MethodDiscover: 1, mcp.MethodListTools: 1, mcp.MethodCallTool: 2, mcp.MethodSubscriptionsListen: 1}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("requests sent: %v, want %v", seen, want)
	}
}

// The same over stdio, from the server/discover probe on.
func TestMETA1_EveryRequestCarriesMetaStdio(t *testing.T) {
	c, f := connectStdio(t, &client.Options{Roots: func(ctx context.Context) ([]mcp.Root, error) {
		return []mcp.Root{{URI: "file:///src"}}, nil
	}})
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "roots", nil)
		done <- err
	}()
	first := f.recvMethod(mcp.MethodCallTool)
	f.send(result(first.ID, obj{"resultType": "input_required", "inputRequests": obj{"r": obj{"method": "roots/list"}}}))
	retry := f.recvMethod(mcp.MethodCallTool)
	f.send(result(retry.ID, textResult("ok")))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for range c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true)}) {
		}
	}()
	listen := f.recvMethod(mcp.MethodSubscriptionsListen)
	cancel()
	f.recvMethod(mcp.NotificationCancelled)

	all := f.received()
	if all[0].Method != mcp.MethodDiscover {
		t.Fatalf("first message %s, want the probe", all[0].raw)
	}
	for _, m := range []msg{all[0], first, retry, listen} {
		checkMeta(t, m, `{"roots":{}}`)
	}
}

// clientCapabilities declares exactly what the configured callbacks can
// answer (ELI-1, SMP-2, ROOT-2); none means {}.
func TestMETA1_ClientCapabilitiesFromCallbacks(t *testing.T) {
	sample := func(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
		return nil, nil
	}
	roots := func(ctx context.Context) ([]mcp.Root, error) { return nil, nil }
	for _, tc := range []struct {
		name string
		opts client.Options
		want string
	}{
		{"none", client.Options{}, `{}`},
		{"elicit", client.Options{Elicit: acceptElicit}, `{"elicitation":{"form":{}}}`},
		{"elicit url", client.Options{Elicit: acceptElicit, ElicitURL: true}, `{"elicitation":{"form":{},"url":{}}}`},
		{"url without callback", client.Options{ElicitURL: true}, `{}`},
		{"sample", client.Options{Sample: sample}, `{"sampling":{}}`},
		{"sample tools", client.Options{Sample: sample, SamplingTools: true}, `{"sampling":{"tools":{}}}`},
		{"roots", client.Options{Roots: roots}, `{"roots":{}}`},
		{"all", client.Options{Elicit: acceptElicit, ElicitURL: true, Sample: sample, SamplingTools: true, Roots: roots},
			`{"elicitation":{"form":{},"url":{}},"roots":{},"sampling":{"tools":{}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newHTTPFake(t)
			opts := tc.opts
			c := f.connect(t, &opts)
			if _, err := c.Discover(context.Background()); err != nil {
				t.Fatal(err)
			}
			reqs := f.requests(mcp.MethodDiscover)
			if len(reqs) != 1 {
				t.Fatalf("%d discover requests", len(reqs))
			}
			checkMeta(t, reqs[0], tc.want)
		})
	}
}

// On HTTP the metadata headers mirror the body (HTTP-4, VER-1): version,
// method, and for tools/call, prompts/get and resources/read the name,
// Base64-encoded when it is not plain-safe (ENC-2, ENC-3); Accept lists
// both media types (HTTP-3).
func TestHTTP4_HeadersMirrorBody(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(toolDef("Hello, 世界", nil))
	f.on(mcp.MethodCallTool, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, textResult("hi")))
	})
	f.on(mcp.MethodGetPrompt, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, obj{"resultType": "complete", "messages": []obj{}}))
	})
	f.on(mcp.MethodReadResource, func(w http.ResponseWriter, r *http.Request, m msg) {
		uri, _ := m.param("uri")
		writeJSON(w, 200, result(m.ID, readResult(uri.(string), "x", 0, "public")))
	})
	c := f.connect(t, nil)
	ctx := context.Background()
	if _, err := c.CallTool(ctx, "Hello, 世界", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetPrompt(ctx, "=?base64?literal?=", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadResource(ctx, "file:///project/read me.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadResource(ctx, " padded "); err != nil {
		t.Fatal(err)
	}
	wantName := map[string]string{
		"Hello, 世界":                   "=?base64?SGVsbG8sIOS4lueVjA==?=",
		"=?base64?literal?=":          "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
		"file:///project/read me.txt": "file:///project/read me.txt",
		" padded ":                    "=?base64?IHBhZGRlZCA=?=",
	}
	reqs := f.requests("")
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want tools/list, tools/call, prompts/get and two resources/read", len(reqs))
	}
	for _, m := range reqs {
		h := m.header
		if got, _ := m.meta("io.modelcontextprotocol/protocolVersion"); h.Get("MCP-Protocol-Version") != got {
			t.Errorf("%s: MCP-Protocol-Version %q, body %v", m.Method, h.Get("MCP-Protocol-Version"), got)
		}
		if h.Get("Mcp-Method") != m.Method {
			t.Errorf("Mcp-Method %q for %s", h.Get("Mcp-Method"), m.Method)
		}
		accept := h.Get("Accept")
		if !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
			t.Errorf("%s: Accept %q lacks a media type", m.Method, accept)
		}
		if ct := h.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", m.Method, ct)
		}
		var name any
		switch m.Method {
		case mcp.MethodCallTool, mcp.MethodGetPrompt:
			name, _ = m.param("name")
		case mcp.MethodReadResource:
			name, _ = m.param("uri")
		default:
			if v := h.Values("Mcp-Name"); len(v) != 0 {
				t.Errorf("%s carries Mcp-Name %q", m.Method, v)
			}
			continue
		}
		if got, want := h.Get("Mcp-Name"), wantName[name.(string)]; got != want {
			t.Errorf("%s %q: Mcp-Name %q, want %q", m.Method, name, got, want)
		}
	}
}

// headerTool annotates string, integer and boolean arguments, one of them
// nested, with x-mcp-header.
var headerTool = obj{"name": "deploy", "inputSchema": obj{"type": "object", "properties": obj{
	"region": obj{"type": "string", "x-mcp-header": "Region"},
	"count":  obj{"type": "integer", "x-mcp-header": "Count"},
	"dry":    obj{"type": "boolean", "x-mcp-header": "Dry-Run"},
	"target": obj{"type": "object", "properties": obj{
		"zone": obj{"type": "string", "x-mcp-header": "Zone"},
	}},
	"label": obj{"type": "string", "x-mcp-header": "Label"},
}}}

// Mcp-Param-* headers mirror annotated arguments: integers in decimal,
// booleans lower-case, non-plain values Base64-encoded, and no header for
// an absent or null argument (XMH-7, ENC-1).
func TestXMH7_ParamHeadersMirrorArguments(t *testing.T) {
	f := newHTTPFake(t)
	f.setTools(headerTool)
	f.on(mcp.MethodCallTool, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, textResult("ok")))
	})
	c := f.connect(t, nil)
	ctx := context.Background()
	if _, err := c.CallTool(ctx, "deploy", wire.Raw(`{"region":"us-west1","count":42,"dry":false,"target":{"zone":"Zürich 1"},"label":null}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "deploy", wire.Raw(`{"count":-7.0,"dry":true}`)); err != nil {
		t.Fatal(err)
	}
	calls := f.requests(mcp.MethodCallTool)
	if len(calls) != 2 {
		t.Fatalf("%d calls", len(calls))
	}
	params := func(h http.Header) map[string]string {
		out := map[string]string{}
		for k := range h {
			if strings.HasPrefix(k, "Mcp-Param-") {
				out[k] = h.Get(k)
			}
		}
		return out
	}
	want := []map[string]string{
		{"Mcp-Param-Region": "us-west1", "Mcp-Param-Count": "42", "Mcp-Param-Dry-Run": "false",
			"Mcp-Param-Zone": "=?base64?WsO8cmljaCAx?="},
		{"Mcp-Param-Count": "-7", "Mcp-Param-Dry-Run": "true"},
	}
	for i, m := range calls {
		if got := params(m.header); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("call %d: headers %v, want %v", i, got, want[i])
		}
	}
}

// The real server checks every header against the body: a call with
// header arguments, a non-ASCII tool name and progress succeeds.
func TestXMH7_RealServerAcceptsHeaders(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	var def mcp.Tool
	if err := json.Unmarshal([]byte(mustJSON(headerTool)), &def); err != nil {
		t.Fatal(err)
	}
	def.Name = "déploy"
	if err := s.AddTool(def, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		req.Progress(1, 2, "half")
		return server.TextResult("deployed " + string(req.Arguments)), nil
	}, server.AllowAnyName()); err != nil {
		t.Fatal(err)
	}
	c := connectURL(t, realHTTP(t, s), nil)
	var progress []float64
	r, err := c.CallTool(context.Background(), "déploy", wire.Raw(`{"region":"eu","count":3,"dry":true,"target":{"zone":" z "}}`),
		client.WithProgress(func(p *mcp.ProgressNotificationParams) { progress = append(progress, p.Progress) }))
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, r); !strings.HasPrefix(got, "deployed ") {
		t.Errorf("result %q", got)
	}
	if !reflect.DeepEqual(progress, []float64{1}) {
		t.Errorf("progress %v, want [1]", progress)
	}
}

// WithMeta adds a member to _meta; it cannot replace or duplicate the keys
// the client sets itself.
func TestMETA1_WithMeta(t *testing.T) {
	f := newHTTPFake(t)
	c := f.connect(t, nil)
	tp := `"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`
	if _, err := c.Discover(context.Background(),
		client.WithMeta("traceparent", wire.Raw(tp)),
		client.WithMeta("com.example/flags", wire.Raw(`{"a":[1,2]}`)),
		client.WithMeta("io.modelcontextprotocol/protocolVersion", wire.Raw(`"1900-01-01"`)),
		client.WithMeta("io.modelcontextprotocol/clientInfo", wire.Raw(`{"name":"spoof","version":"0"}`)),
	); err != nil {
		t.Fatal(err)
	}
	m := f.requests(mcp.MethodDiscover)[0]
	if v, _ := m.meta("traceparent"); mustJSON(v) != tp {
		t.Errorf("traceparent = %v", v)
	}
	if v, _ := m.meta("com.example/flags"); mustJSON(v) != `{"a":[1,2]}` {
		t.Errorf("com.example/flags = %v", mustJSON(v))
	}
	checkMeta(t, m, `{}`)
	for _, key := range []string{"io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientInfo"} {
		if n := strings.Count(m.raw, `"`+key+`"`); n != 1 {
			t.Errorf("%s appears %d times in %s", key, n, m.raw)
		}
	}
}

// WithLogLevel sets logLevel for that request only, and the server's log
// notifications reach Options.OnLog (LOG-3), over HTTP (SSE) and stdio.
func TestMETA1_WithLogLevel(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	onLog := func(p *mcp.LoggingMessageNotificationParams) {
		mu.Lock()
		logs = append(logs, string(p.Level)+" "+string(p.Data))
		mu.Unlock()
	}
	t.Run("http", func(t *testing.T) {
		logs = nil
		f := newHTTPFake(t)
		f.on(mcp.MethodListTools, func(w http.ResponseWriter, r *http.Request, m msg) {
			s := startSSE(w)
			if lvl, ok := m.meta("io.modelcontextprotocol/logLevel"); ok {
				s.event(notification("notifications/message", obj{"level": lvl, "logger": "db", "data": obj{"n": 1}}))
			}
			s.event(result(m.ID, toolsResult(nil, nil, 0, "public")))
		})
		c := f.connect(t, &client.Options{OnLog: onLog})
		if _, err := c.ListToolsPage(context.Background(), nil, client.WithLogLevel(mcp.LoggingLevelWarning)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListToolsPage(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		reqs := f.requests(mcp.MethodListTools)
		if v, _ := reqs[0].meta("io.modelcontextprotocol/logLevel"); v != "warning" {
			t.Errorf("logLevel %v, want warning", v)
		}
		if _, ok := reqs[1].meta("io.modelcontextprotocol/logLevel"); ok {
			t.Errorf("logLevel sent without WithLogLevel: %s", reqs[1].raw)
		}
		if want := []string{`warning {"n":1}`}; !reflect.DeepEqual(logs, want) {
			t.Errorf("OnLog got %q, want %q", logs, want)
		}
	})
	t.Run("real server", func(t *testing.T) {
		logs = nil
		s := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{Logging: true})
		if err := s.AddTool(mcp.Tool{Name: "work"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			req.Log(mcp.LoggingLevelDebug, "w", "noise")
			req.Log(mcp.LoggingLevelError, "w", "broken")
			return server.TextResult("ok"), nil
		}); err != nil {
			t.Fatal(err)
		}
		c := connectURL(t, realHTTP(t, s), &client.Options{OnLog: onLog})
		if _, err := c.CallTool(context.Background(), "work", nil, client.WithLogLevel(mcp.LoggingLevelInfo)); err != nil {
			t.Fatal(err)
		}
		if want := []string{`error "broken"`}; !reflect.DeepEqual(logs, want) {
			t.Errorf("OnLog got %q, want %q", logs, want)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		logs = nil
		c, f := connectStdio(t, &client.Options{OnLog: onLog})
		done := make(chan error, 1)
		go func() {
			_, err := c.CallTool(context.Background(), "work", nil, client.WithLogLevel(mcp.LoggingLevelDebug))
			done <- err
		}()
		m := f.recvMethod(mcp.MethodCallTool)
		if v, _ := m.meta("io.modelcontextprotocol/logLevel"); v != "debug" {
			t.Errorf("logLevel %v, want debug", v)
		}
		f.send(notification("notifications/message", obj{"level": "info", "data": "step 1"}), result(m.ID, textResult("ok")))
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if want := []string{`info "step 1"`}; !reflect.DeepEqual(logs, want) {
			t.Errorf("OnLog got %q, want %q", logs, want)
		}
	})
}
