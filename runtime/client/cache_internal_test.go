package client

// Package-internal cache tests: they move the cache's clock, which the
// public API cannot.

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// stubTransport answers every request with result(method) and counts them.
type stubTransport struct {
	result func(method string) string

	mu    sync.Mutex
	count map[string]int
}

func (s *stubTransport) Call(ctx context.Context, c *Call) (*jsonrpc.Message, error) {
	s.mu.Lock()
	s.count[c.Method]++
	s.mu.Unlock()
	return jsonrpc.Decode([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, c.ID.Int(), s.result(c.Method))))
}

func (s *stubTransport) MirrorsHeaders() bool                 { return true }
func (s *stubTransport) Notify(context.Context, []byte) error { return nil }
func (s *stubTransport) Close() error                         { return nil }

func (s *stubTransport) n(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count[method]
}

// A result is fresh while now < received + ttlMs, and fetched again once
// stale (CACHE-3); each entry has its own clock (CACHE-8).
func TestCACHE3_FreshUntilTTLExpires(t *testing.T) {
	st := &stubTransport{count: map[string]int{}, result: func(method string) string {
		switch method {
		case mcp.MethodListTools:
			return `{"resultType":"complete","tools":[],"ttlMs":1000,"cacheScope":"public"}`
		case mcp.MethodDiscover:
			return `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":3000,"cacheScope":"private"}`
		}
		return `{"resultType":"complete","contents":[],"ttlMs":-5,"cacheScope":"public"}`
	}}
	c := newClient(st, mcp.Implementation{Name: "c", Version: "1"}, nil)
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	c.cache.now = func() time.Time { return now }
	ctx := context.Background()
	use := func() {
		if _, err := c.ListToolsPage(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Discover(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ReadResource(ctx, "file:///a"); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		at                 time.Duration
		lists, disc, reads int
	}{
		{0, 1, 1, 1},
		{999 * time.Millisecond, 1, 1, 2}, // a negative ttlMs counts as 0 (CACHE-2)
		{1000 * time.Millisecond, 2, 1, 3},
		{1999 * time.Millisecond, 2, 1, 4},
		{2000 * time.Millisecond, 3, 1, 5},
		{3000 * time.Millisecond, 4, 2, 6},
	} {
		now = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC).Add(step.at)
		use()
		if st.n(mcp.MethodListTools) != step.lists || st.n(mcp.MethodDiscover) != step.disc || st.n(mcp.MethodReadResource) != step.reads {
			t.Errorf("at +%v: fetches %v, want tools/list %d, server/discover %d, resources/read %d",
				step.at, st.count, step.lists, step.disc, step.reads)
		}
	}
}

// Private entries carry the credential they were stored under; public
// ones do not (CACHE-5).
func TestCACHE5_CacheKeysPrivateByCredential(t *testing.T) {
	cred := "Bearer a"
	k := newCache(true, func() string { return cred })
	k.put(mcp.MethodListTools, "", 60000, mcp.CacheScopePrivate, &mcp.ListToolsResult{Tools: []mcp.Tool{{Name: "mine"}}, CacheScope: mcp.CacheScopePrivate})
	k.put(mcp.MethodListPrompts, "", 60000, mcp.CacheScopePublic, &mcp.ListPromptsResult{CacheScope: mcp.CacheScopePublic})
	var tools mcp.ListToolsResult
	var prompts mcp.ListPromptsResult
	if !k.get(mcp.MethodListTools, "", &tools) || len(tools.Tools) != 1 || tools.Tools[0].Name != "mine" {
		t.Errorf("the private entry is not served under its own credential: %+v", tools)
	}
	cred = "Bearer b"
	if k.get(mcp.MethodListTools, "", &tools) {
		t.Error("a private entry is served under another credential")
	}
	if !k.get(mcp.MethodListPrompts, "", &prompts) {
		t.Error("a public entry is not served under another credential")
	}
	cred = ""
	if k.get(mcp.MethodListTools, "", &tools) {
		t.Error("a private entry is served without a credential")
	}
	// The client reads the credential from the HTTP transport's header at
	// each use.
	hdr := http.Header{}
	c := newClient(HTTPTransport("http://127.0.0.1:1/mcp", &HTTPOptions{Header: hdr}), mcp.Implementation{Name: "c", Version: "1"}, nil)
	if got := c.cache.cred(); got != "" {
		t.Errorf("credential %q without Authorization", got)
	}
	hdr.Set("Authorization", "Bearer z")
	if got := c.cache.cred(); got != "Bearer z" {
		t.Errorf("credential %q, want the header's current value", got)
	}
}
