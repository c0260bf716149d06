package client_test

import (
	"context"
	"errors"
	"net/http"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// versionGate answers -32022 (HTTP 400) to any request whose version is
// not in supported, and passes the others to next.
func versionGate(supported []string, next func(w http.ResponseWriter, r *http.Request, m msg)) func(http.ResponseWriter, *http.Request, msg) {
	return func(w http.ResponseWriter, r *http.Request, m msg) {
		v, _ := m.meta("io.modelcontextprotocol/protocolVersion")
		for _, s := range supported {
			if v == s {
				next(w, r, m)
				return
			}
		}
		writeJSON(w, 400, rpcError(m.ID, -32022, "Unsupported protocol version", obj{"supported": supported, "requested": v}))
	}
}

func listToolsOK(w http.ResponseWriter, r *http.Request, m msg) {
	writeJSON(w, 200, result(m.ID, toolsResult([]obj{toolDef("t", nil)}, nil, 0, "public")))
}

// On -32022 the client retries under a new id with its most preferred
// version the server lists, and keeps using it (VER-3, ID-3).
func TestVER3_RetryOnUnsupportedVersion(t *testing.T) {
	f := newHTTPFake(t)
	supported := []string{mcp.ProtocolVersion, "2027-01-01", "2025-11-25"}
	f.on(mcp.MethodListTools, versionGate(supported, listToolsOK))
	c := f.connect(t, &client.Options{Versions: []string{"2099-01-01", "2027-01-01", mcp.ProtocolVersion}})
	if got := toolNames(t, c); !reflect.DeepEqual(got, []string{"t"}) {
		t.Fatalf("tools %v", got)
	}
	reqs := f.requests(mcp.MethodListTools)
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the refused one and a retry", len(reqs))
	}
	if reqs[0].idKey() == reqs[1].idKey() {
		t.Errorf("the retry reused id %s", reqs[0].idKey())
	}
	for i, want := range []string{"2099-01-01", "2027-01-01"} {
		if v, _ := reqs[i].meta("io.modelcontextprotocol/protocolVersion"); v != want {
			t.Errorf("request %d: version %v, want %s", i, v, want)
		}
		if h := reqs[i].header.Get("MCP-Protocol-Version"); h != want {
			t.Errorf("request %d: MCP-Protocol-Version %q, want %s", i, h, want)
		}
	}
	if got := c.ProtocolVersion(); got != "2027-01-01" {
		t.Errorf("ProtocolVersion() = %s", got)
	}
	// Later requests use the negotiated version at once.
	if _, err := c.ListToolsPage(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := len(f.requests(mcp.MethodListTools)); n != 3 {
		t.Errorf("%d requests after a second call, want 3", n)
	}
}

// The same against the real server.
func TestVER3_RetryAgainstRealServer(t *testing.T) {
	s := exampleServer()
	c := connectURL(t, realHTTP(t, s), &client.Options{Versions: []string{"2099-01-01", mcp.ProtocolVersion}})
	r, err := c.CallTool(context.Background(), "greet", wire.Raw(`{"name":"Ada"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, r); got != "Hello, Ada!" {
		t.Errorf("result %q", got)
	}
	if c.ProtocolVersion() != mcp.ProtocolVersion {
		t.Errorf("ProtocolVersion() = %s", c.ProtocolVersion())
	}
}

// Without a mutual version the call fails with a *VersionError naming
// both lists, after one request (VER-3); a legacy version in the server's
// list is not one a modern client picks (VER-5).
func TestVER3_NoCommonVersion(t *testing.T) {
	f := newHTTPFake(t)
	f.on(mcp.MethodListTools, versionGate([]string{"2025-11-25", "2025-06-18"}, listToolsOK))
	c := f.connect(t, nil)
	_, err := c.ListToolsPage(context.Background(), nil)
	var ve *client.VersionError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *VersionError", err)
	}
	if ve.Legacy {
		t.Error("Legacy set for a modern -32022 answer")
	}
	if !reflect.DeepEqual(ve.Ours, []string{mcp.ProtocolVersion}) || !reflect.DeepEqual(ve.Theirs, []string{"2025-11-25", "2025-06-18"}) {
		t.Errorf("Ours %v, Theirs %v", ve.Ours, ve.Theirs)
	}
	for _, v := range []string{mcp.ProtocolVersion, "2025-11-25", "2025-06-18"} {
		if !strings.Contains(err.Error(), v) {
			t.Errorf("error %q does not name %s", err, v)
		}
	}
	if n := len(f.requests(mcp.MethodListTools)); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// A server that refuses a version it lists as supported gets one retry,
// then its error is returned.
func TestVER3_RetriedOnlyOnce(t *testing.T) {
	f := newHTTPFake(t)
	f.on(mcp.MethodListTools, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 400, rpcError(m.ID, -32022, "Unsupported protocol version",
			obj{"supported": []string{mcp.ProtocolVersion}, "requested": mcp.ProtocolVersion}))
	})
	c := f.connect(t, nil)
	_, err := c.ListToolsPage(context.Background(), nil)
	if !isRPCError(err, mcp.CodeUnsupportedProtocolVersion) {
		t.Fatalf("err = %v, want the -32022 error", err)
	}
	if n := len(f.requests(mcp.MethodListTools)); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// ConnectCommand probes with server/discover (COMPAT-1): a DiscoverResult
// or a -32020/-32021/-32022 error means a modern server (COMPAT-2,
// COMPAT-3); any other error, or silence within ProbeTimeout, a legacy one,
// which a modern-only client reports as a *VersionError with Legacy set
// that names the version the server offered to an initialize probe
// (COMPAT-4, COMPAT-5). (A dual-era client opens a legacy session instead:
// legacy_stdio_test.go.)
func TestCOMPAT4_StdioEraProbe(t *testing.T) {
	legacyInit := func(f *stdioFake, offered string) {
		init := f.recvMethod("initialize")
		if v, _ := init.param("protocolVersion"); v != "2025-11-25" {
			t.Errorf("initialize offers %v", v)
		}
		if name, _ := init.param("clientInfo", "name"); name != clientInfo.Name {
			t.Errorf("initialize clientInfo %v", init.raw)
		}
		if init.ID == nil {
			t.Errorf("initialize is not a request: %s", init.raw)
		}
		if offered == "" {
			f.send(rpcError(init.ID, -32603, "no", nil))
			return
		}
		f.send(result(init.ID, obj{"protocolVersion": offered, "capabilities": obj{}, "serverInfo": obj{"name": "old", "version": "1"}}))
	}
	for _, tc := range []struct {
		name     string
		versions []string
		answer   func(f *stdioFake, probe msg)
		legacy   bool
		theirs   []string      // legacy: what initialize offered
		err      bool          // a non-legacy *VersionError
		silent   time.Duration // the probe goes unanswered: ProbeTimeout
	}{
		{name: "discover result", answer: func(f *stdioFake, p msg) { f.send(result(p.ID, discoverResult(0))) }},
		{name: "-32022 then retry", versions: []string{"2099-01-01", mcp.ProtocolVersion}, answer: func(f *stdioFake, p msg) {
			f.send(rpcError(p.ID, -32022, "Unsupported protocol version", obj{"supported": []string{mcp.ProtocolVersion}, "requested": "2099-01-01"}))
			retry := f.recvMethod(mcp.MethodDiscover)
			if retry.idKey() == p.idKey() {
				t.Errorf("retry reused id %s", p.idKey())
			}
			if v, _ := retry.meta("io.modelcontextprotocol/protocolVersion"); v != mcp.ProtocolVersion {
				t.Errorf("retry version %v", v)
			}
			f.send(result(retry.ID, discoverResult(0)))
		}},
		{name: "-32022 no common version", answer: func(f *stdioFake, p msg) {
			f.send(rpcError(p.ID, -32022, "Unsupported protocol version", obj{"supported": []string{"2030-01-01"}, "requested": mcp.ProtocolVersion}))
		}, err: true},
		{name: "-32021", answer: func(f *stdioFake, p msg) {
			f.send(rpcError(p.ID, -32021, "Missing capability", obj{"requiredCapabilities": obj{"roots": obj{}}}))
		}},
		{name: "-32020", answer: func(f *stdioFake, p msg) { f.send(rpcError(p.ID, -32020, "Header mismatch", nil)) }},
		{name: "-32601 legacy", answer: func(f *stdioFake, p msg) {
			f.send(rpcError(p.ID, -32601, "Method not found", nil))
			legacyInit(f, "2025-06-18")
		}, legacy: true, theirs: []string{"2025-06-18"}},
		{name: "-32602 legacy, initialize refused", answer: func(f *stdioFake, p msg) {
			f.send(rpcError(p.ID, -32602, "Server not initialized", nil))
			legacyInit(f, "")
		}, legacy: true},
		{name: "-32000 legacy", answer: func(f *stdioFake, p msg) {
			f.send(rpcError(p.ID, -32000, "Bad Request", nil))
			legacyInit(f, "2024-11-05")
		}, legacy: true, theirs: []string{"2024-11-05"}},
		{name: "silent probe", answer: func(f *stdioFake, p msg) {
			c := f.recvMethod(mcp.NotificationCancelled)
			if id, _ := c.param("requestId"); mustJSON(id) != p.idKey() {
				t.Errorf("cancelled %v, want the probe %s", c.raw, p.idKey())
			}
			legacyInit(f, "2025-03-26")
		}, legacy: true, theirs: []string{"2025-03-26"}, silent: time.Second},
		{name: "silent server", answer: func(f *stdioFake, p msg) {}, legacy: true, silent: 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Answered probes must never time out, however slow the machine.
			probe := waitFor
			if tc.silent != 0 {
				probe = tc.silent
			}
			f, cmd := startStdio(t)
			t.Cleanup(f.close)
			type res struct {
				c   *client.Client
				err error
			}
			done := make(chan res, 1)
			versions := tc.versions
			if tc.legacy {
				versions = []string{mcp.ProtocolVersion} // modern-only
			}
			go func() {
				c, err := client.ConnectCommand(context.Background(), cmd, clientInfo, &client.Options{Versions: versions, ProbeTimeout: probe})
				done <- res{c, err}
			}()
			first := f.recv()
			if first.Method != mcp.MethodDiscover || first.ID == nil {
				t.Fatalf("first message %s, want a server/discover request", first.raw)
			}
			if tc.versions == nil {
				checkMeta(t, first, `{}`)
			}
			tc.answer(f, first)
			r := within(t, "ConnectCommand", func() res { return <-done })
			if r.c != nil {
				defer r.c.Close()
			}
			var ve *client.VersionError
			switch {
			case tc.legacy:
				if !errors.As(r.err, &ve) || !ve.Legacy {
					t.Fatalf("err = %v, want a legacy *VersionError", r.err)
				}
				if !reflect.DeepEqual(ve.Theirs, tc.theirs) {
					t.Errorf("Theirs = %v, want %v", ve.Theirs, tc.theirs)
				}
				for _, v := range append(tc.theirs, mcp.ProtocolVersion) {
					if !strings.Contains(r.err.Error(), v) {
						t.Errorf("error %q does not name %s", r.err, v)
					}
				}
				// The client gave up on the server: its stdin is closed.
				select {
				case <-f.eof:
				case <-time.After(waitFor):
					t.Error("the server's stdin was not closed")
				}
			case tc.err:
				if !errors.As(r.err, &ve) || ve.Legacy {
					t.Fatalf("err = %v, want a modern *VersionError", r.err)
				}
			default:
				if r.err != nil {
					t.Fatalf("ConnectCommand: %v", r.err)
				}
			}
		})
	}
}

func TestCOMPAT4_CommandThatCannotStart(t *testing.T) {
	_, err := client.ConnectCommand(context.Background(), exec.Command("/nonexistent/mcp-server"), clientInfo, nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/mcp-server") {
		t.Fatalf("err = %v, want one naming the command", err)
	}
}

// On HTTP a 400 whose body is not a recognised modern error means a legacy
// server (COMPAT-7): the call fails with a *VersionError with Legacy set,
// naming the version an initialize probe was offered. Modern errors on 400
// and 404 pass through as JSON-RPC errors.
func TestCOMPAT7_LegacyHTTPServer(t *testing.T) {
	legacy := func(refuse func(w http.ResponseWriter, m msg), init func(w http.ResponseWriter, m msg)) func(http.ResponseWriter, *http.Request, msg) {
		return func(w http.ResponseWriter, r *http.Request, m msg) {
			if m.Method == "initialize" && init != nil {
				init(w, m)
				return
			}
			refuse(w, m)
		}
	}
	plain400 := func(w http.ResponseWriter, m msg) { http.Error(w, "Bad Request: Server not initialized", 400) }
	for _, tc := range []struct {
		name    string
		handler func(http.ResponseWriter, *http.Request, msg)
		theirs  []string
		maxReqs int
	}{
		{"plain text 400", legacy(plain400, func(w http.ResponseWriter, m msg) {
			writeJSON(w, 200, result(m.ID, obj{"protocolVersion": "2025-03-26", "capabilities": obj{}, "serverInfo": obj{"name": "old", "version": "1"}}))
		}), []string{"2025-03-26"}, 2},
		{"JSON-RPC -32000 400, initialize over SSE", legacy(func(w http.ResponseWriter, m msg) {
			writeJSON(w, 400, rpcError(nil, -32000, "Bad Request: No valid session ID provided", nil))
		}, func(w http.ResponseWriter, m msg) {
			startSSE(w).event(result(m.ID, obj{"protocolVersion": "2025-11-25", "capabilities": obj{}, "serverInfo": obj{"name": "old", "version": "1"}}))
		}), []string{"2025-11-25"}, 2},
		{"empty 400 to everything", legacy(func(w http.ResponseWriter, m msg) { w.WriteHeader(400) }, nil), nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newHTTPFake(t)
			f.on(mcp.MethodListTools, tc.handler)
			f.on("initialize", tc.handler)
			c := f.connect(t, &client.Options{Header: http.Header{"Authorization": {"Bearer t0k"}}})
			err := within(t, "ListToolsPage", func() error { _, err := c.ListToolsPage(context.Background(), nil); return err })
			var ve *client.VersionError
			if !errors.As(err, &ve) || !ve.Legacy {
				t.Fatalf("err = %v, want a legacy *VersionError", err)
			}
			if !reflect.DeepEqual(ve.Theirs, tc.theirs) {
				t.Errorf("Theirs = %v, want %v", ve.Theirs, tc.theirs)
			}
			reqs := f.requests("")
			if len(reqs) > tc.maxReqs {
				t.Errorf("%d requests, want at most %d", len(reqs), tc.maxReqs)
			}
			if len(reqs) < 2 || reqs[1].Method != "initialize" {
				t.Fatalf("no initialize probe after the refusal: %d requests", len(reqs))
			}
			if v, _ := reqs[1].param("protocolVersion"); v != "2025-11-25" {
				t.Errorf("initialize offers %v", v)
			}
			if a := reqs[1].header.Get("Authorization"); a != "Bearer t0k" {
				t.Errorf("initialize Authorization %q", a)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		status int
		code   int
	}{
		{"-32601 on 404", 404, -32601},
		{"-32021 on 400", 400, -32021},
		{"-32020 on 400", 400, -32020},
		{"-32602 on 400", 400, -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newHTTPFake(t)
			f.on(mcp.MethodListPrompts, func(w http.ResponseWriter, r *http.Request, m msg) {
				writeJSON(w, tc.status, rpcError(m.ID, tc.code, "refused", obj{"requiredCapabilities": obj{}}))
			})
			c := f.connect(t, nil)
			_, err := c.ListPromptsPage(context.Background(), nil)
			var ve *client.VersionError
			if errors.As(err, &ve) || !isRPCError(err, int64(tc.code)) {
				t.Fatalf("err = %v, want the %d JSON-RPC error", err, tc.code)
			}
			if n := len(f.requests("")); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// Discover is optional: the first request may be any method (DISC-4).
func TestDISC4_DiscoverIsOptional(t *testing.T) {
	c := connectURL(t, realHTTP(t, exampleServer()), nil)
	r, err := c.CallTool(context.Background(), "greet", wire.Raw(`{"name":"Bob"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, r); got != "Hello, Bob!" {
		t.Errorf("result %q", got)
	}

	f := newHTTPFake(t)
	f.setTools(toolDef("t", nil))
	c2 := f.connect(t, nil)
	toolNames(t, c2)
	if reqs := f.requests(""); len(reqs) != 1 || reqs[0].Method != mcp.MethodListTools {
		t.Errorf("requests %v, want only tools/list", reqs)
	}
	d, err := c2.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.SupportedVersions, []string{mcp.ProtocolVersion}) || d.Capabilities.Tools == nil {
		t.Errorf("discover result %+v", d)
	}
}

// The probe is bounded by ProbeTimeout, not by Options.Timeout: a server
// slower to start than one request may take is still a modern server.
func TestCOMPAT4_ProbeNotBoundByRequestTimeout(t *testing.T) {
	const timeout = 50 * time.Millisecond
	f, cmd := startStdio(t)
	t.Cleanup(f.close)
	done := make(chan error, 1)
	go func() {
		c, err := client.ConnectCommand(context.Background(), cmd, clientInfo, &client.Options{Timeout: timeout, ProbeTimeout: waitFor})
		if err == nil {
			c.Close()
		}
		done <- err
	}()
	probe := f.recvMethod(mcp.MethodDiscover)
	<-time.After(4 * timeout) // a slow server, not synchronisation
	f.send(result(probe.ID, discoverResult(0)))
	if err := within(t, "ConnectCommand", func() error { return <-done }); err != nil {
		t.Fatalf("ConnectCommand: %v", err)
	}
}
