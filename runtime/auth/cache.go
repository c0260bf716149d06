package auth

import (
	"crypto/sha256"
	"sync"
	"time"
	"unsafe"
)

// digest is the SHA256 of a token: tokens are remembered by digest,
// never in clear (AUTHS-11).
type digest [sha256.Size]byte

func tokenDigest(token string) digest {
	// Hash the string's bytes in place: Sum256 neither keeps nor modifies
	// them, and a copy of every token would be an allocation per request.
	return sha256.Sum256(unsafe.Slice(unsafe.StringData(token), len(token)))
}

// tokenCache remembers verified Principals until a deadline (unix
// seconds). When full, expired entries go first, then an arbitrary one.
type tokenCache struct {
	size int
	mu   sync.RWMutex
	m    map[digest]cached
}

type cached struct {
	p     *Principal
	until int64
}

// newTokenCache returns a cache of size entries; nil (no caching) for a
// negative size.
func newTokenCache(size int) *tokenCache {
	if size < 0 {
		return nil
	}
	if size == 0 {
		size = DefaultCacheSize
	}
	return &tokenCache{size: size, m: make(map[digest]cached)}
}

func (c *tokenCache) get(d digest, now time.Time) *Principal {
	if c == nil {
		return nil
	}
	c.mu.RLock()
	e, ok := c.m[d]
	c.mu.RUnlock()
	if !ok || now.Unix() > e.until {
		return nil
	}
	return e.p
}

func (c *tokenCache) put(d digest, p *Principal, until int64, now time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.size {
		for k, e := range c.m {
			if e.until < now.Unix() {
				delete(c.m, k)
			}
		}
		if len(c.m) >= c.size {
			for k := range c.m {
				delete(c.m, k)
				break
			}
		}
	}
	c.m[d] = cached{p: p, until: until}
}

func (c *tokenCache) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	clear(c.m)
	c.mu.Unlock()
}
