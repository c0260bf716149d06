package server

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// A list that has not changed is not built or encoded again: each page of
// tools/list, prompts/list, resources/list and resources/templates/list is
// kept with its encoding until what is registered changes. The page value
// is shared between the requests that get it — handlers built it once,
// middleware must not modify it (see Options.Middleware).

// maxCachedPages bounds the pages kept (per cursor, per list method).
const maxCachedPages = 256

type pageCache struct {
	n     atomic.Int32 // pages kept: encode looks nothing up while there are none
	mu    sync.Mutex
	gen   uint64 // registry generation the pages belong to
	pages map[string]*cachedPage
	byVal map[wireimpl.Codec]*cachedPage
}

type cachedPage struct {
	value wireimpl.Codec
	body  []byte // value's encoding; nil until first encoded
}

// invalidate drops every page: what is registered changed.
func (c *pageCache) invalidate() {
	c.mu.Lock()
	c.gen++
	c.pages, c.byVal = nil, nil
	c.n.Store(0)
	c.mu.Unlock()
}

// get returns the page cached under key, if any.
func (c *pageCache) get(key string) (wireimpl.Codec, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.pages[key]; p != nil {
		return p.value, true
	}
	return nil, false
}

// generation is the registry generation now; put only keeps a page built
// in the same generation.
func (c *pageCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put keeps v under key, unless the registry changed since gen.
func (c *pageCache) put(key string, gen uint64, v wireimpl.Codec) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen || len(c.pages) >= maxCachedPages {
		return
	}
	if v.Validate() != nil {
		return // not shared, so the request's own check reports it (check.go)
	}
	if c.pages == nil {
		c.pages, c.byVal = map[string]*cachedPage{}, map[wireimpl.Codec]*cachedPage{}
	}
	p := &cachedPage{value: v}
	c.pages[key], c.byVal[v] = p, p
	c.n.Store(int32(len(c.pages)))
}

// shared reports whether v is a cached page (shared between requests).
func (c *pageCache) shared(v wireimpl.Codec) bool {
	if c.n.Load() == 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byVal[v] != nil
}

// encode writes v: a cached page's stored encoding, encoding it once.
func (c *pageCache) encode(e *jx.Encoder, v wireimpl.Codec) {
	if c.n.Load() == 0 {
		v.EncodeJSON(e)
		return
	}
	c.mu.Lock()
	p := c.byVal[v]
	var body []byte
	if p != nil {
		body = p.body
	}
	c.mu.Unlock()
	switch {
	case p == nil:
		v.EncodeJSON(e)
	case body != nil:
		e.Raw(body)
	default:
		var pe jx.Encoder
		v.EncodeJSON(&pe)
		body = slices.Clone(pe.Bytes())
		c.mu.Lock()
		p.body = body
		c.mu.Unlock()
		e.Raw(body)
	}
}
