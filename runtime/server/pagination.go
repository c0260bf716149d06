package server

import (
	"encoding/base64"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Cursors are opaque to clients (PAG-2); here they encode an offset.
func encodeCursor(offset int) wire.Opt[string] {
	if offset < 0 {
		return wire.Opt[string]{}
	}
	return wire.Some(base64.RawURLEncoding.EncodeToString([]byte("o" + strconv.Itoa(offset))))
}

var errBadCursor = &wire.Error{Code: wire.CodeInvalidParams, Message: "Invalid params: invalid cursor"}

func decodeCursor(c wire.Opt[string]) (int, error) {
	if !c.Set {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(b) < 2 || b[0] != 'o' {
		return 0, errBadCursor
	}
	n, err := strconv.Atoi(string(b[1:]))
	if err != nil || n < 0 {
		return 0, errBadCursor
	}
	return n, nil
}

// listPage returns one page of r's definitions (PAG-1).
// listCached answers a list method: the page for cursor from the page
// cache while the registries are unchanged, else built from r (def gives
// an item's definition, result wraps a page), stamped with the caching
// hints and cached.
func listCached[T, D any, R wireimpl.Codec](s *Server, method string, cursor wire.Opt[string], r *registry[T], def func(T) D,
	result func(items []D, next wire.Opt[string]) R) (R, error) {
	key := method // the first page: no string to build
	if c := cursorKey(cursor); c != "" {
		key += "\x00" + c
	}
	if v, ok := s.pages.get(key); ok {
		return v.(R), nil
	}
	gen := s.pages.generation()
	items, next, err := listPage(s, cursor, r, def)
	if err != nil {
		var none R
		return none, err
	}
	out := result(items, next)
	s.stampCacheHints(out)
	s.pages.put(key, gen, out)
	return out, nil
}

func listPage[T, D any](s *Server, cursor wire.Opt[string], r *registry[T], def func(T) D) ([]D, wire.Opt[string], error) {
	off, err := decodeCursor(cursor)
	if err != nil {
		return nil, wire.Opt[string]{}, err
	}
	s.mu.RLock()
	items, next := r.page(off, s.opts.PageSize)
	s.mu.RUnlock()
	out := make([]D, 0, len(items))
	for _, it := range items {
		out = append(out, def(it))
	}
	return out, encodeCursor(next), nil
}

// cursorKey names a page for the page cache: "" for the first page.
func cursorKey(c wire.Opt[string]) string {
	if !c.Set {
		return ""
	}
	return "c" + c.Value
}
