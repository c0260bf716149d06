package client

import (
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// cache keeps list, read and discover results while their ttlMs says they
// are fresh (CACHE-2, CACHE-3). An entry is keyed by method and the params
// that shape the result (cursor, uri: CACHE-6); "private" entries are also
// keyed by the credential in use, so they are never served under another
// (CACHE-5). The encoded result is stored, so every hit decodes a value of
// its own.
type cache struct {
	on bool
	// cred returns the credential in use now (it may change between calls).
	cred func() string
	now  func() time.Time

	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	data    []byte
	expires time.Time
}

func newCache(on bool, credential func() string) *cache {
	return &cache{on: on, cred: credential, now: time.Now, entries: map[string]cacheEntry{}}
}

func cacheKey(method, param string) string { return method + "\x00" + param }

func (c *cache) get(method, param string, into wireimpl.Codec) bool {
	if !c.on {
		return false
	}
	cred := c.cred()
	c.mu.Lock()
	e, ok := c.entries[cacheKey(method, param)]
	if !ok {
		e, ok = c.entries[cacheKey(method, param)+"\x00"+cred]
	}
	c.mu.Unlock()
	if !ok || !c.now().Before(e.expires) {
		return false
	}
	return wireimpl.Decode(e.data, into) == nil
}

// put stores a result; a ttl of 0 (or a negative or absent one, CACHE-2)
// means stale at once, so nothing is kept.
func (c *cache) put(method, param string, ttlMs int64, scope mcp.CacheScope, v wireimpl.Codec) {
	if !c.on || ttlMs <= 0 {
		return
	}
	data, err := wireimpl.Marshal(v)
	if err != nil {
		return
	}
	key := cacheKey(method, param)
	if scope != mcp.CacheScopePublic {
		key += "\x00" + c.cred()
	}
	c.mu.Lock()
	c.entries[key] = cacheEntry{data: data, expires: c.now().Add(time.Duration(ttlMs) * time.Millisecond)}
	c.mu.Unlock()
}

// invalidate drops every entry of method whose param starts with prefix
// (a change notification makes fresh entries stale at once, CACHE-7).
func (c *cache) invalidate(method, prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		m, param, _ := strings.Cut(k, "\x00")
		if m == method && strings.HasPrefix(param, prefix) {
			delete(c.entries, k)
		}
	}
}

// clear drops everything.
func (c *cache) clear() {
	c.mu.Lock()
	c.entries = map[string]cacheEntry{}
	c.mu.Unlock()
}

// onNotification applies a listen notification to the cache.
func (c *cache) onNotification(n *mcp.ServerNotification) {
	switch {
	case n.ToolListChangedNotification != nil:
		c.invalidate(mcp.MethodListTools, "")
	case n.PromptListChangedNotification != nil:
		c.invalidate(mcp.MethodListPrompts, "")
	case n.ResourceListChangedNotification != nil:
		c.invalidate(mcp.MethodListResources, "")
		c.invalidate(mcp.MethodListResourceTemplates, "")
	case n.ResourceUpdatedNotification != nil:
		c.invalidate(mcp.MethodReadResource, n.ResourceUpdatedNotification.Params.URI)
	}
}
