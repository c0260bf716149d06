package server

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
)

// wantHTTPError checks status and a single JSON-RPC error with code.
func wantHTTPError(t *testing.T, resp *http.Response, msgs []msg, status, code int) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("HTTP status %d, want %d", resp.StatusCode, status)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	if len(msgs) != 1 || msgs[0].Error == nil || msgs[0].Error.Code != code {
		t.Fatalf("want one error %d, got %v", code, msgs)
	}
}

// TestCOMPAT11_GetDelete405: a server of the stateless revision only
// serves POST; GET and DELETE get 405 with Allow: POST.
func TestCOMPAT11_GetDelete405(t *testing.T) {
	h := startHTTP(t, newServer(t, &Options{Versions: []string{testVersion}}), nil)
	for _, method := range []string{http.MethodGet, http.MethodDelete, http.MethodPut} {
		req, _ := http.NewRequest(method, h.ts.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := h.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s: %d, Allow %q; want 405 and Allow: POST", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

// TestHDR2_ProtocolVersionHeader: MCP-Protocol-Version missing or
// different from the body is 400 -32020; equal to the body but not
// served is 400 -32022.
func TestHDR2_ProtocolVersionHeader(t *testing.T) {
	h := startHTTP(t, newServer(t, nil), nil)
	body := request(1, "tools/list", params(nil))
	for _, c := range []struct {
		name   string
		hdr    map[string]string
		body   string
		status int
		code   int
	}{
		{"missing", map[string]string{"MCP-Protocol-Version": ""}, body, 400, -32020},
		{"mismatch", map[string]string{"MCP-Protocol-Version": "2025-11-25"}, body, 400, -32020},
		{"case differs", map[string]string{"MCP-Protocol-Version": strings.ToUpper(testVersion + "x")}, body, 400, -32020},
		{"unsupported in both", nil, request(1, "tools/list", metaOnly(reqMeta(nil, obj{"io.modelcontextprotocol/protocolVersion": "1900-01-01"}))), 400, -32022},
		{"lower-case header name", map[string]string{"MCP-Protocol-Version": "", "mcp-protocol-version": testVersion}, body, 200, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, msgs := h.exchange(c.body, c.hdr)
			if c.code == 0 {
				if resp.StatusCode != c.status || len(msgs) != 1 || msgs[0].Result == nil {
					t.Errorf("%d %v", resp.StatusCode, msgs)
				}
				return
			}
			wantHTTPError(t, resp, msgs, c.status, c.code)
			if !msgs[0].idIs("1") {
				t.Errorf("error id %s, want 1", msgs[0].ID)
			}
		})
	}
}

// TestHDR2_MethodHeaderMismatch: Mcp-Method missing or different from the
// body method (values compare case-sensitively, HDR-1) is 400 -32020.
func TestHDR2_MethodHeaderMismatch(t *testing.T) {
	h := startHTTP(t, newServer(t, nil), nil)
	body := request(1, "tools/list", params(nil))
	for _, v := range []string{"", "prompts/list", "Tools/List", "tools/list "} {
		resp, msgs := h.exchange(body, map[string]string{"Mcp-Method": v})
		if v == "tools/list " { // net/http trims the trailing space: equal
			if resp.StatusCode != 200 {
				t.Errorf("Mcp-Method %q: %d", v, resp.StatusCode)
			}
			continue
		}
		wantHTTPError(t, resp, msgs, 400, -32020)
	}
}

// TestHDR2_NameHeader: tools/call, prompts/get and resources/read need
// Mcp-Name equal to the body's name or uri, plain or in the Base64 form
// (ENC-5); missing, different, malformed or invalid characters are 400
// -32020.
func TestHDR2_NameHeader(t *testing.T) {
	s := newServer(t, nil)
	must(t, s.AddPrompt(mcp.Prompt{Name: " grüße "},
		func(ctx context.Context, req *PromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{UserMessage("hallo")}}, nil
		}))
	h := startHTTP(t, s, nil)
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	call := request(1, "tools/call", params(obj{"name": "echo", "arguments": obj{"text": "x"}}))
	prompt := request(2, "prompts/get", params(obj{"name": "greet", "arguments": obj{"name": "x"}}))
	read := request(3, "resources/read", params(obj{"uri": "file:///readme.txt"}))
	gruss := request(4, "prompts/get", params(obj{"name": " grüße "}))
	for _, c := range []struct {
		name string
		body string
		hdr  string // Mcp-Name; "" removes it
		ok   bool
	}{
		{"tool plain", call, "echo", true},
		{"tool base64", call, b64("echo"), true},
		{"tool missing", call, "", false},
		{"tool mismatch", call, "greet", false},
		{"tool case differs", call, "Echo", false},
		{"tool base64 mismatch", call, b64("echo2"), false},
		{"tool bad base64", call, "=?base64?!!!?=", false},
		{"tool non-ASCII raw", call, "éc", false},
		{"prompt plain", prompt, "greet", true},
		{"prompt mismatch", prompt, "echo", false},
		{"resource plain", read, "file:///readme.txt", true},
		{"resource mismatch", read, "file:///other.txt", false},
		{"prompt base64 non-ASCII padded", gruss, b64(" grüße "), true},
		{"prompt raw non-ASCII", gruss, " grüße ", false},
		{"prompt base64 of another", gruss, b64("grüße"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, msgs := h.exchange(c.body, map[string]string{"Mcp-Name": c.hdr})
			if c.ok {
				if resp.StatusCode != 200 || len(msgs) != 1 || msgs[0].Result == nil {
					t.Errorf("%d %v", resp.StatusCode, msgs)
				}
				return
			}
			wantHTTPError(t, resp, msgs, 400, -32020)
		})
	}
}

// TestHDR3_ParamHeaders covers XMH-9 and HDR-3: an argument annotated with
// x-mcp-header needs its Mcp-Param-* header when present and non-null,
// must not have one when absent, must match after Base64 decoding, and
// integers compare numerically.
func TestHDR3_ParamHeaders(t *testing.T) {
	s := New(testInfo, nil)
	must(t, s.AddTool(mcp.Tool{Name: "route", InputSchema: []byte(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"count":{"type":"integer","x-mcp-header":"Count"},
		"dry":{"type":"boolean","x-mcp-header":"Dry-Run"},
		"opts":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}}}}`)},
		func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
			return TextResult(string(req.Arguments)), nil
		}))
	h := startHTTP(t, s, nil)
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	for _, c := range []struct {
		name string
		args string
		hdr  map[string]string
		ok   bool
	}{
		{"all present", `{"region":"us-west1","count":42,"dry":true,"opts":{"zone":"a"}}`,
			map[string]string{"Mcp-Param-Region": "us-west1", "Mcp-Param-Count": "42", "Mcp-Param-Dry-Run": "true", "Mcp-Param-Zone": "a"}, true},
		{"none present", `{}`, nil, true},
		{"null is absent", `{"region":null}`, nil, true}, // (then isError: null is not a string)
		{"arguments absent", ``, nil, true},
		{"missing header", `{"region":"us-west1"}`, nil, false},
		{"missing nested header", `{"opts":{"zone":"a"}}`, nil, false},
		{"header without argument", `{}`, map[string]string{"Mcp-Param-Region": "us-west1"}, false},
		{"header for null argument", `{"region":null}`, map[string]string{"Mcp-Param-Region": "us-west1"}, false},
		{"mismatch", `{"region":"us-west1"}`, map[string]string{"Mcp-Param-Region": "eu-west1"}, false},
		{"case differs", `{"region":"us-west1"}`, map[string]string{"Mcp-Param-Region": "US-WEST1"}, false},
		{"header name case-insensitive", `{"region":"us-west1"}`, map[string]string{"mcp-param-region": "us-west1"}, true},
		{"base64", `{"region":"Hello, 世界"}`, map[string]string{"Mcp-Param-Region": b64("Hello, 世界")}, true},
		{"base64 padded", `{"region":" padded "}`, map[string]string{"Mcp-Param-Region": "=?base64?IHBhZGRlZCA=?="}, true},
		{"base64 mismatch", `{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": b64("Bye")}, false},
		{"raw non-ASCII", `{"region":"世界"}`, map[string]string{"Mcp-Param-Region": "世界"}, false},
		{"integer body 42.0 header 42", `{"count":42.0}`, map[string]string{"Mcp-Param-Count": "42"}, true},
		{"integer body 42 header 42.0", `{"count":42}`, map[string]string{"Mcp-Param-Count": "42.0"}, true},
		{"integer mismatch", `{"count":42}`, map[string]string{"Mcp-Param-Count": "43"}, false},
		{"integer not a number", `{"count":42}`, map[string]string{"Mcp-Param-Count": "forty-two"}, false},
		{"boolean mismatch", `{"dry":false}`, map[string]string{"Mcp-Param-Dry-Run": "true"}, false},
		{"integer beyond 2^53", `{"count":9007199254740993}`, map[string]string{"Mcp-Param-Count": "9007199254740993"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := params(obj{"name": "route"})
			body := request(1, "tools/call", p)
			if c.args != "" {
				body = strings.Replace(body, `"name":"route"`, `"arguments":`+c.args+`,"name":"route"`, 1)
			}
			resp, msgs := h.exchange(body, c.hdr)
			if c.ok {
				if resp.StatusCode != 200 || len(msgs) != 1 || msgs[0].Result == nil || msgs[0].Result["isError"] == true && !strings.Contains(c.args, "null") {
					t.Errorf("%d %v", resp.StatusCode, msgs)
				}
				return
			}
			wantHTTPError(t, resp, msgs, 400, -32020)
		})
	}

	// On stdio there are no headers to check (XMH-6 lets clients ignore them).
	c := startStdio(t, s)
	if m := c.roundTrip(1, "tools/call", params(obj{"name": "route", "arguments": obj{"region": "x"}})); m.Result == nil {
		t.Errorf("stdio: %s", m)
	}
	c.finish()
}

// TestCOMPAT11_SessionIdIgnored: Mcp-Session-Id is ignored and never
// minted or echoed.
func TestCOMPAT11_SessionIdIgnored(t *testing.T) {
	h := startHTTP(t, newServer(t, nil), nil)
	for _, hdr := range []map[string]string{nil, {"Mcp-Session-Id": "abc123", "Last-Event-ID": "5"}} {
		resp, msgs := h.exchange(request(1, "server/discover", params(nil)), hdr)
		if resp.StatusCode != 200 || len(msgs) != 1 || msgs[0].Result == nil {
			t.Errorf("%v: %d %v", hdr, resp.StatusCode, msgs)
		}
		if v := resp.Header.Values("Mcp-Session-Id"); len(v) != 0 {
			t.Errorf("response carries Mcp-Session-Id %v", v)
		}
	}
}

// TestORG1_Origin: a present Origin that is not allowed is 403; loopback
// origins, HTTPOptions.AllowedOrigins and a missing Origin are served.
func TestORG1_Origin(t *testing.T) {
	s := newServer(t, nil)
	h := startHTTP(t, s, &HTTPOptions{AllowedOrigins: []string{"https://app.example"}})
	for _, c := range []struct {
		origin string
		ok     bool
	}{
		{"", true},
		{"http://localhost:3000", true},
		{"http://127.0.0.1", true},
		{"https://[::1]:8443", true},
		{"https://app.example", true},
		{"https://evil.example", false},
		{"http://localhost.evil.example", false},
		{"https://app.example.evil.example", false},
		{"null", false},
		{"file://", false},
	} {
		hdr := map[string]string{}
		if c.origin != "" {
			hdr["Origin"] = c.origin
		}
		resp, _ := h.exchange(request(1, "server/discover", params(nil)), hdr)
		want := http.StatusOK
		if !c.ok {
			want = http.StatusForbidden
		}
		if resp.StatusCode != want {
			t.Errorf("Origin %q: %d, want %d", c.origin, resp.StatusCode, want)
		}
	}
}

// TestORG2_HostDNSRebinding: a Host header that is neither loopback nor
// listed in HTTPOptions.AllowedHosts is 403.
func TestORG2_HostDNSRebinding(t *testing.T) {
	s := newServer(t, nil)
	plain := startHTTP(t, s, nil)
	listed := startHTTP(t, s, &HTTPOptions{AllowedHosts: []string{"mcp.example.com"}})
	any := startHTTP(t, s, &HTTPOptions{AllowedHosts: []string{"*"}})
	for _, c := range []struct {
		h    *httpClient
		host string
		ok   bool
	}{
		{plain, "localhost", true},
		{plain, "localhost:8080", true},
		{plain, "127.0.0.1:9", true},
		{plain, "[::1]:9", true},
		{plain, "attacker.example", false},
		{plain, "attacker.example:80", false},
		{plain, "localhost.attacker.example", false},
		{listed, "mcp.example.com", true},
		{listed, "MCP.example.com:443", true},
		{listed, "other.example.com", false},
		{any, "anything.example", true},
	} {
		resp, _ := c.h.exchange(request(1, "server/discover", params(nil)), map[string]string{"Host": c.host})
		want := http.StatusOK
		if !c.ok {
			want = http.StatusForbidden
		}
		if resp.StatusCode != want {
			t.Errorf("Host %q: %d, want %d", c.host, resp.StatusCode, want)
		}
	}
}

// TestHTTP_BodyTooLarge: a body over MaxBodyBytes is 413.
func TestHTTP_BodyTooLarge(t *testing.T) {
	h := startHTTP(t, newServer(t, nil), &HTTPOptions{MaxBodyBytes: 1024})
	small := request(1, "tools/call", params(obj{"name": "echo", "arguments": obj{"text": strings.Repeat("a", 100)}}))
	big := request(2, "tools/call", params(obj{"name": "echo", "arguments": obj{"text": strings.Repeat("a", 2000)}}))
	if resp, _ := h.exchange(small, nil); resp.StatusCode != 200 {
		t.Errorf("small body: %d", resp.StatusCode)
	}
	if resp, _ := h.exchange(big, nil); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("big body: %d, want 413", resp.StatusCode)
	}
}

// TestHTTP6_NotificationAccepted: a notification POST is 202 with no body.
func TestHTTP6_NotificationAccepted(t *testing.T) {
	h := startHTTP(t, newServer(t, nil), nil)
	for _, body := range []string{
		notification("notifications/cancelled", obj{"requestId": 1}),
		notification("notifications/unknown", nil),
	} {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		resp := h.post(ctx, body, nil)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		if resp.StatusCode != http.StatusAccepted || len(b) != 0 {
			t.Errorf("%s: %d %q, want 202 and no body", body, resp.StatusCode, b)
		}
	}
}

// TestMSG4_ResponsePostedRejected, TestMSG2_BatchRejected and the
// envelope checks of MSG-1/ID-1: invalid messages are 400 with -32600,
// bad JSON with -32700.
func TestMSG4_ResponsePostedRejected(t *testing.T) {
	h := startHTTP(t, newServer(t, nil), nil)
	for _, c := range []struct {
		name string
		body string
		code int
	}{
		{"MSG4 result", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`, -32600},
		{"MSG4 error", `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`, -32600},
		{"MSG2 batch", "[" + request(1, "server/discover", params(nil)) + "]", -32600},
		{"MSG2 empty batch", `[]`, -32600},
		{"MSG1 jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"server/discover","params":{}}`, -32600},
		{"MSG1 jsonrpc absent", `{"id":1,"method":"server/discover","params":{}}`, -32600},
		{"ID1 null id", `{"jsonrpc":"2.0","id":null,"method":"server/discover","params":{}}`, -32600},
		{"ID1 fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"server/discover","params":{}}`, -32600},
		{"ID1 boolean id", `{"jsonrpc":"2.0","id":true,"method":"server/discover","params":{}}`, -32600},
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":[]}`, -32600},
		{"not an object", `"hello"`, -32600},
		{"malformed JSON", `{"jsonrpc":"2.0",`, -32700},
		{"trailing garbage", request(1, "server/discover", params(nil)) + "}", -32700},
		{"empty body", ``, -32700},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"x\":\"\xff\"}}", -32700},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, msgs := h.exchange(c.body, nil)
			wantHTTPError(t, resp, msgs, http.StatusBadRequest, c.code)
		})
	}
}
