package client_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// cachingFake answers every cacheable method with the given hints; ttl < 0
// leaves ttlMs and cacheScope out (a legacy server).
func cachingFake(t *testing.T, ttl int, scope string) *httpFake {
	f := newHTTPFake(t)
	hints := func(r obj) obj {
		if ttl >= 0 {
			r["ttlMs"], r["cacheScope"] = ttl, scope
		} else {
			delete(r, "ttlMs")
			delete(r, "cacheScope")
		}
		return r
	}
	list := func(member string) func(http.ResponseWriter, *http.Request, msg) {
		return func(w http.ResponseWriter, r *http.Request, m msg) {
			writeJSON(w, 200, result(m.ID, hints(obj{"resultType": "complete", member: []obj{}})))
		}
	}
	f.on(mcp.MethodDiscover, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, hints(discoverResult(0))))
	})
	f.on(mcp.MethodListTools, list("tools"))
	f.on(mcp.MethodListPrompts, list("prompts"))
	f.on(mcp.MethodListResources, list("resources"))
	f.on(mcp.MethodListResourceTemplates, list("resourceTemplates"))
	f.on(mcp.MethodReadResource, func(w http.ResponseWriter, r *http.Request, m msg) {
		uri, _ := m.param("uri")
		writeJSON(w, 200, result(m.ID, hints(readResult(uri.(string), "text", 0, ""))))
	})
	return f
}

// useAll makes each cacheable request once.
func useAll(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := context.Background()
	for _, err := range []error{
		func() error { _, err := c.Discover(ctx); return err }(),
		func() error { _, err := c.ListToolsPage(ctx, nil); return err }(),
		func() error { _, err := c.ListPromptsPage(ctx, nil); return err }(),
		func() error { _, err := c.ListResourcesPage(ctx, nil); return err }(),
		func() error { _, err := c.ListResourceTemplatesPage(ctx, nil); return err }(),
		func() error { _, err := c.ReadResource(ctx, "file:///a"); return err }(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

var cacheable = []string{mcp.MethodDiscover, mcp.MethodListTools, mcp.MethodListPrompts,
	mcp.MethodListResources, mcp.MethodListResourceTemplates, mcp.MethodReadResource}

func countEach(f *httpFake) map[string]int {
	n := map[string]int{}
	for _, m := range f.requests("") {
		n[m.Method]++
	}
	return n
}

// List, read and discover results are served from the cache while their
// ttlMs says they are fresh (CACHE-2, CACHE-3); ttlMs 0, or absent (a
// legacy server), means not cached; DisableCache turns caching off.
func TestCACHE2_ResultsCachedForTTL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ttl     int
		opts    client.Options
		fetches int
	}{
		{"ttl 60s", 60000, client.Options{}, 1},
		{"ttl 0", 0, client.Options{}, 3},
		{"ttl absent", -1, client.Options{}, 3},
		{"DisableCache", 60000, client.Options{DisableCache: true}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := cachingFake(t, tc.ttl, "public")
			opts := tc.opts
			c := f.connect(t, &opts)
			for range 3 {
				useAll(t, c)
			}
			n := countEach(f)
			for _, m := range cacheable {
				if n[m] != tc.fetches {
					t.Errorf("%s fetched %d times, want %d", m, n[m], tc.fetches)
				}
			}
		})
	}
}

// The key is the method and the params that shape the result (CACHE-6):
// another URI or cursor is another entry; "" is a cursor of its own.
func TestCACHE6_KeyedByParams(t *testing.T) {
	f := cachingFake(t, 60000, "public")
	c := f.connect(t, nil)
	ctx := context.Background()
	for range 2 {
		for _, uri := range []string{"file:///a", "file:///b"} {
			r, err := c.ReadResource(ctx, uri)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Contents[0].TextResourceContents.URI; got != uri {
				t.Errorf("read %s returned the entry of %s", uri, got)
			}
		}
		for _, cur := range []*string{nil, ptr(""), ptr("p2")} {
			if _, err := c.ListToolsPage(ctx, cur); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := countEach(f); n[mcp.MethodReadResource] != 2 || n[mcp.MethodListTools] != 3 {
		t.Errorf("fetches %v, want 2 reads and 3 pages", n)
	}
}

// Private entries are reused only under the Authorization they were
// fetched with; public ones under any (CACHE-5).
func TestCACHE5_PrivateEntriesKeyedByCredential(t *testing.T) {
	f := newHTTPFake(t)
	f.on(mcp.MethodListTools, func(w http.ResponseWriter, r *http.Request, m msg) {
		tool := toolDef("for "+m.header.Get("Authorization"), nil)
		writeJSON(w, 200, result(m.ID, toolsResult([]obj{tool}, nil, 60000, "private")))
	})
	f.on(mcp.MethodListPrompts, func(w http.ResponseWriter, r *http.Request, m msg) {
		writeJSON(w, 200, result(m.ID, obj{"resultType": "complete", "prompts": []obj{}, "ttlMs": 60000, "cacheScope": "public"}))
	})
	hdr := http.Header{"Authorization": {"Bearer alice"}}
	c := f.connect(t, &client.Options{Header: hdr})
	ctx := context.Background()
	tools := func() string {
		r, err := c.ListToolsPage(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListPromptsPage(ctx, nil); err != nil {
			t.Fatal(err)
		}
		return r.Tools[0].Name
	}
	steps := []struct {
		token, want string
		lists       int // tools/list requests so far
	}{
		{"Bearer alice", "for Bearer alice", 1},
		{"Bearer alice", "for Bearer alice", 1},
		{"Bearer bob", "for Bearer bob", 2},
		{"Bearer alice", "for Bearer alice", 2},
		{"Bearer bob", "for Bearer bob", 2},
	}
	for i, s := range steps {
		hdr.Set("Authorization", s.token)
		if got := tools(); got != s.want {
			t.Errorf("step %d: tools for %q: %q, want %q", i, s.token, got, s.want)
		}
		if n := countEach(f); n[mcp.MethodListTools] != s.lists || n[mcp.MethodListPrompts] != 1 {
			t.Errorf("step %d: fetches %v, want %d tools/list and 1 (public) prompts/list", i, n, s.lists)
		}
	}
}

// A read that needed input is not cached, whatever its hints (MRTR-14).
func TestMRTR14_RetriedResultsNotCached(t *testing.T) {
	f := newHTTPFake(t)
	var mu sync.Mutex
	reads := 0
	f.on(mcp.MethodReadResource, func(w http.ResponseWriter, r *http.Request, m msg) {
		mu.Lock()
		reads++
		mu.Unlock()
		if _, ok := m.param("requestState"); !ok {
			writeJSON(w, 200, result(m.ID, obj{"resultType": "input_required", "requestState": "s"}))
			return
		}
		writeJSON(w, 200, result(m.ID, readResult("file:///a", "A", 60000, "public")))
	})
	c := f.connect(t, nil)
	for range 2 {
		if _, err := c.ReadResource(context.Background(), "file:///a"); err != nil {
			t.Fatal(err)
		}
	}
	if reads != 4 {
		t.Errorf("%d requests, want 4 (each read: one attempt and one retry, nothing cached)", reads)
	}
}

// listenFake serves subscriptions/listen: the acknowledgement, then every
// event pushed on the returned channel, until the client goes away.
func listenFake(f *httpFake) (push chan<- func(id any) string, closed <-chan struct{}) {
	ch := make(chan func(id any) string)
	gone := make(chan struct{}, 16)
	f.on(mcp.MethodSubscriptionsListen, func(w http.ResponseWriter, r *http.Request, m msg) {
		filter, _ := m.param("notifications")
		s := startSSE(w)
		s.event(notification("notifications/subscriptions/acknowledged", obj{"notifications": filter, "_meta": subMeta(m.ID)}))
		for {
			select {
			case ev := <-ch:
				s.event(ev(m.ID))
			case <-r.Context().Done():
				gone <- struct{}{}
				return
			}
		}
	})
	return ch, gone
}

func listChanged(method string) func(id any) string {
	return func(id any) string {
		return notification(method, obj{"_meta": obj{"io.modelcontextprotocol/subscriptionId": id}})
	}
}

func updated(uri string) func(id any) string {
	return func(id any) string {
		return notification("notifications/resources/updated", obj{"uri": uri, "_meta": obj{"io.modelcontextprotocol/subscriptionId": id}})
	}
}

// A change notification received through Listen drops the matching fresh
// entries at once (CACHE-7); others stay.
func TestCACHE7_NotificationsInvalidate(t *testing.T) {
	f := cachingFake(t, 60000, "public")
	push, _ := listenFake(f)
	c := f.connect(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	useAll(t, c)
	if _, err := c.ReadResource(ctx, "file:///b"); err != nil {
		t.Fatal(err)
	}
	notes := listenChan(c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: wire.Some(true),
		PromptsListChanged: wire.Some(true), ResourcesListChanged: wire.Some(true), ResourceSubscriptions: []string{"file:///a"}}))
	if n := nextNote(t, notes); n.SubscriptionsAcknowledgedNotification == nil {
		t.Fatalf("first notification %+v, want the acknowledgement", n)
	}
	base := countEach(f)
	expect := func(what string, want map[string]int) {
		t.Helper()
		useAll(t, c)
		if _, err := c.ReadResource(ctx, "file:///b"); err != nil {
			t.Fatal(err)
		}
		now := countEach(f)
		for _, m := range append(cacheable, mcp.MethodSubscriptionsListen) {
			if got := now[m] - base[m]; got != want[m] {
				t.Errorf("after %s: %s fetched %d more times, want %d", what, m, got, want[m])
			}
		}
		base = now
	}
	for _, step := range []struct {
		what  string
		event func(any) string
		want  map[string]int
	}{
		{"tools/list_changed", listChanged("notifications/tools/list_changed"), map[string]int{mcp.MethodListTools: 1}},
		{"prompts/list_changed", listChanged("notifications/prompts/list_changed"), map[string]int{mcp.MethodListPrompts: 1}},
		{"resources/list_changed", listChanged("notifications/resources/list_changed"),
			map[string]int{mcp.MethodListResources: 1, mcp.MethodListResourceTemplates: 1}},
		{"resources/updated", updated("file:///a"), map[string]int{mcp.MethodReadResource: 1}},
	} {
		push <- step.event
		if n := nextNote(t, notes); n == nil {
			t.Fatalf("no notification for %s", step.what)
		}
		expect(step.what, step.want)
	}
}
