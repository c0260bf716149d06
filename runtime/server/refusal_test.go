package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestORG1_ORG2_RefusalsNameTheOption: what the HTTP transport refuses
// before reading a request — its Host, its Origin, a body too large, a
// method — is answered with a JSON-RPC error (application/json, no id)
// whose message names what was refused and the option that changes it.
func TestORG1_ORG2_RefusalsNameTheOption(t *testing.T) {
	s := newServer(t, nil)
	modern := newServer(t, &Options{Versions: []string{testVersion}})
	h := startHTTP(t, s, &HTTPOptions{MaxBodyBytes: 512})
	m := startHTTP(t, modern, nil)
	big := request(1, "tools/call", params(obj{"name": "echo", "arguments": obj{"text": strings.Repeat("x", 600)}}))
	for _, tc := range []struct {
		name   string
		do     func() *http.Response
		status int
		want   []string
	}{
		{"host", func() *http.Response {
			return h.post(t.Context(), request(1, "server/discover", params(nil)), map[string]string{"Host": "attacker.example:8080"})
		}, 403, []string{`"attacker.example:8080"`, "HTTPOptions.AllowedHosts"}},
		{"origin", func() *http.Response {
			return h.post(t.Context(), request(1, "server/discover", params(nil)), map[string]string{"Origin": "https://evil.example"})
		}, 403, []string{`"https://evil.example"`, "HTTPOptions.AllowedOrigins"}},
		{"body", func() *http.Response { return h.post(t.Context(), big, nil) }, 413, []string{"512 bytes", "HTTPOptions.MaxBodyBytes"}},
		{"method with sessions", func() *http.Response { return send(t, h, http.MethodPut) }, 405, []string{`"PUT"`, "POST"}},
		{"method without sessions", func() *http.Response { return send(t, m, http.MethodGet) }, 405, []string{`"GET"`, "Options.Versions"}},
	} {
		resp := tc.do()
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *rpcError       `json:"error"`
		}
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &e) != nil ||
			e.JSONRPC != "2.0" || e.ID != nil || e.Error == nil || e.Error.Code != -32600 {
			t.Errorf("%s: %d %s %s, want %d and an id-less JSON-RPC error", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.status)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(e.Error.Message, w) {
				t.Errorf("%s: message %q does not name %s", tc.name, e.Error.Message, w)
			}
		}
	}
}

func send(t *testing.T, h *httpClient, method string) *http.Response {
	req, err := http.NewRequestWithContext(t.Context(), method, h.ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := h.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
