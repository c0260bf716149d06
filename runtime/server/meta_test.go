package server

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
)

// askTool registers "ask", which elicits a name and greets it.
func askTool(t *testing.T, s *Server) {
	t.Helper()
	toolFunc(t, s, "ask", func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Elicit("who", elicitForm("name"))
		if err != nil {
			return nil, err
		}
		if res.Action != mcp.ElicitResultActionAccept {
			return ErrorResult("declined"), nil
		}
		return TextResult("hello " + res.Content["name"].String.Value), nil
	})
}

func metaOnly(meta obj) obj { return obj{"_meta": meta} }

// TestMETA2_MissingMeta covers META-2, META-3, META-4, META-7 and META-8: a
// request without the required _meta keys, or with one of the wrong type,
// is -32602 (HTTP 400); an unserved version is -32022 naming the supported
// and requested versions; an unknown logLevel is -32602; a missing
// clientInfo is fine.
func TestMETA2_MissingMeta(t *testing.T) {
	s := newServer(t, nil)
	noVersion := reqMeta(nil, obj{"io.modelcontextprotocol/protocolVersion": nil})
	noCaps := reqMeta(nil, obj{"io.modelcontextprotocol/clientCapabilities": nil})
	cases := []struct {
		name   string
		method string
		params any
		code   int // 0: success
		status int // HTTP status; 0: not checked (a gap in the digest)
	}{
		{"META2/params absent", "tools/list", nil, -32602, 400},
		{"META2/_meta absent", "tools/list", obj{}, -32602, 400},
		{"META2/_meta absent on discover", "server/discover", obj{}, -32602, 400},
		{"META2/_meta absent on tools/call", "tools/call", obj{"name": "echo", "arguments": obj{"text": "x"}}, -32602, 400},
		{"META2/_meta absent on prompts/get", "prompts/get", obj{"name": "greet", "arguments": obj{"name": "x"}}, -32602, 400},
		{"META2/_meta absent on resources/read", "resources/read", obj{"uri": "file:///readme.txt"}, -32602, 400},
		{"META2/protocolVersion absent", "tools/list", metaOnly(noVersion), -32602, 400},
		{"META2/clientCapabilities absent", "tools/list", metaOnly(noCaps), -32602, 400},
		{"META3/protocolVersion a number", "tools/list", metaOnly(reqMeta(nil, obj{"io.modelcontextprotocol/protocolVersion": 5})), -32602, 400},
		{"META3/clientCapabilities a string", "tools/list", metaOnly(reqMeta(nil, obj{"io.modelcontextprotocol/clientCapabilities": "all"})), -32602, 400},
		{"META3/_meta an array", "tools/list", obj{"_meta": []any{}}, -32602, 400},
		{"META4/unsupported version", "tools/list", metaOnly(reqMeta(nil, obj{"io.modelcontextprotocol/protocolVersion": "1900-01-01"})), -32022, 400},
		{"META4/unsupported version on discover", "server/discover", metaOnly(reqMeta(nil, obj{"io.modelcontextprotocol/protocolVersion": "2025-11-25"})), -32022, 400},
		{"META7/unknown logLevel", "tools/list", metaOnly(reqMeta(nil, obj{"io.modelcontextprotocol/logLevel": "verbose"})), -32602, 0},
		{"META8/clientInfo absent", "tools/list", metaOnly(reqMeta(nil, obj{"io.modelcontextprotocol/clientInfo": nil})), 0, 200},
		{"META8/clientInfo absent on discover", "server/discover", metaOnly(reqMeta(nil, obj{"io.modelcontextprotocol/clientInfo": nil})), 0, 200},
	}
	forEachTransport(t, s, func(t *testing.T, call caller) {
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				status, m := call(i+1, tc.method, tc.params)
				if !m.idIs(mustJSON(i + 1)) {
					t.Errorf("response id %s, want %d (MSG-7)", m.ID, i+1)
				}
				if tc.code == 0 {
					wantResult(t, m)
					wantStatus(t, status, tc.status)
					return
				}
				e := wantError(t, m, tc.code)
				if tc.status != 0 {
					wantStatus(t, status, tc.status)
				}
				if tc.code == -32022 {
					d := e.data()
					requested := dig(tc.params, "_meta", "io.modelcontextprotocol/protocolVersion")
					if !reflect.DeepEqual(d["supported"], []any{testVersion}) || d["requested"] != requested {
						t.Errorf("data = %s, want supported [%s] and requested %v (VER-2)", e.Data, testVersion, requested)
					}
				}
			})
		}
	})
}

// TestMETA6_MissingClientCapability: a handler that needs elicitation on a
// request that did not declare it gets -32021 with
// data.requiredCapabilities (HTTP 400); declaring it makes the same call
// work.
func TestMETA6_MissingClientCapability(t *testing.T) {
	s := newServer(t, nil)
	askTool(t, s)
	forEachTransport(t, s, func(t *testing.T, call caller) {
		status, m := call(1, "tools/call", params(obj{"name": "ask"}))
		e := wantError(t, m, -32021)
		wantStatus(t, status, http.StatusBadRequest)
		if dig(e.data(), "requiredCapabilities", "elicitation") == nil {
			t.Errorf("data = %s, want requiredCapabilities.elicitation", e.Data)
		}
		// URL-only elicitation does not allow a form (ELI-2).
		status, m = call(2, "tools/call", paramsCaps(obj{"elicitation": obj{"url": obj{}}}, obj{"name": "ask"}))
		wantError(t, m, -32021)
		wantStatus(t, status, http.StatusBadRequest)
		status, m = call(3, "tools/call", paramsCaps(elicitCaps, obj{"name": "ask"}))
		if r := wantResult(t, m); r["resultType"] != "input_required" {
			t.Errorf("with elicitation declared: %s, want input_required", m)
		}
		wantStatus(t, status, http.StatusOK)
	})
}

// TestSTL1_META5_NothingCarriedOver: on one stdio connection every request
// stands alone; capabilities, version and _meta from an earlier request do
// not help a later one.
func TestSTL1_META5_NothingCarriedOver(t *testing.T) {
	s := newServer(t, nil)
	askTool(t, s)
	c := startStdio(t, s)
	m := c.roundTrip(1, "tools/call", paramsCaps(elicitCaps, obj{"name": "ask"}))
	if wantResult(t, m)["resultType"] != "input_required" {
		t.Fatalf("first request: %s", m)
	}
	wantError(t, c.roundTrip(2, "tools/call", params(obj{"name": "ask"})), -32021)
	wantError(t, c.roundTrip(3, "tools/list", obj{}), -32602)
	wantError(t, c.roundTrip(4, "tools/list", metaOnly(reqMeta(nil, obj{"io.modelcontextprotocol/protocolVersion": "1900-01-01"}))), -32022)
	wantResult(t, c.roundTrip(5, "tools/list", params(nil)))
	c.finish()
}

// TestCOMPAT10_InitializeNamesVersions: a server configured to serve the
// stateless revision only refuses a legacy initialize (no _meta, on HTTP
// none of the new headers) with -32022 naming the served versions in data
// and in the message (HTTP 400).
func TestCOMPAT10_InitializeNamesVersions(t *testing.T) {
	s := newServer(t, &Options{Versions: []string{testVersion}})
	init := request(0, "initialize", obj{"protocolVersion": "2025-11-25", "capabilities": obj{}, "clientInfo": obj{"name": "old", "version": "1"}})
	check := func(t *testing.T, m msg) {
		t.Helper()
		e := wantError(t, m, -32022)
		d := e.data()
		if !reflect.DeepEqual(d["supported"], []any{testVersion}) || d["requested"] != "2025-11-25" || !strings.Contains(e.Message, testVersion) {
			t.Errorf("answer %s, want the supported versions in data and message", m)
		}
	}
	c := startStdio(t, s)
	c.send(init)
	m, _ := c.response("0")
	check(t, m)
	c.finish()

	h := startHTTP(t, s, nil)
	resp, msgs := h.exchange(init, map[string]string{"MCP-Protocol-Version": "", "Mcp-Method": ""})
	if resp.StatusCode != http.StatusBadRequest || len(msgs) != 1 {
		t.Fatalf("HTTP: %d %v", resp.StatusCode, msgs)
	}
	check(t, msgs[0])
}
