package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// A modern result may hold what the legacy revision cannot express: an
// outputSchema whose root is not an object, structuredContent that is an
// array. One such tool must not cost a legacy client the whole tools/list:
// degrade drops the smallest part that fails, the member of a list item
// (tools[3].outputSchema) or a top-level member (structuredContent), or,
// when the item still fails without it, the item, and tries again.

// maxDegrade bounds how many parts one answer may lose.
const maxDegrade = 32

// degrade makes raw, which failed to decode or validate as the value
// newOut returns with err, into one that does not, by dropping parts. It
// returns the value and the paths of what it dropped; err when nothing it
// may drop helps.
func degrade(raw []byte, newOut func() wireimpl.Codec, err error) (wireimpl.Codec, []string, error) {
	var tree any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&tree) != nil {
		return nil, nil, err
	}
	var dropped []string
	lastItem := ""
	for range maxDegrade {
		segs := parsePath(failurePath(err))
		target, item := memberTarget(segs), itemTarget(segs)
		if item != nil && pathString(item) == lastItem {
			target = item // the item fails without the member too
		}
		var ok bool
		if target == nil {
			return nil, dropped, err
		}
		if tree, ok = without(tree, target); !ok {
			return nil, dropped, err
		}
		dropped = append(dropped, pathString(target))
		switch {
		case item != nil && len(target) == len(item):
			lastItem = "" // the next item now has this index
		case item != nil:
			lastItem = pathString(item)
		}
		b, merr := json.Marshal(tree)
		if merr != nil {
			return nil, dropped, err
		}
		out := newOut()
		if err = decodeAnswer(b, out); err == nil {
			return out, dropped, nil
		}
	}
	return nil, dropped, err
}

// failurePath is where a decoding or validation failure is.
func failurePath(err error) string {
	var ve *wire.ValidationError
	var de *wire.DecodeError
	switch {
	case errors.As(err, &ve) && len(ve.Violations) > 0:
		return ve.Violations[0].Path
	case errors.As(err, &de):
		return de.Path
	}
	return ""
}

// seg is one step of a path: a member name, or an array index (key "").
type seg struct {
	key   string
	index int
}

// parsePath reads the paths of wire errors: a.b, a[3], a["x.y"].
func parsePath(p string) []seg {
	var out []seg
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
		case strings.HasPrefix(p, `["`):
			end := strings.Index(p, `"]`)
			for end > 0 && p[end-1] == '\\' {
				next := strings.Index(p[end+1:], `"]`)
				if next < 0 {
					return nil
				}
				end += 1 + next
			}
			if end < 0 {
				return nil
			}
			k, err := strconv.Unquote(p[1 : end+1])
			if err != nil {
				return nil
			}
			out, p = append(out, seg{key: k, index: -1}), p[end+2:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			n, err := strconv.Atoi(p[1:max(end, 1)])
			if end < 0 || err != nil {
				return nil
			}
			out, p = append(out, seg{index: n}), p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out, p = append(out, seg{key: p[:end], index: -1}), p[end:]
		}
	}
	return out
}

// memberTarget is the member to drop for a failure at segs: the one right
// inside the first list item on the path, or the top-level member.
func memberTarget(segs []seg) []seg {
	for i, s := range segs {
		if s.key == "" && i+1 < len(segs) && segs[i+1].key != "" {
			return segs[:i+2]
		}
	}
	if len(segs) > 0 && segs[0].key != "" && segs[0].key != "_meta" {
		return segs[:1]
	}
	return nil
}

// itemTarget is the first list item on the path.
func itemTarget(segs []seg) []seg {
	for i, s := range segs {
		if s.key == "" {
			return segs[:i+1]
		}
	}
	return nil
}

func pathString(segs []seg) string {
	var b strings.Builder
	for _, s := range segs {
		if s.key == "" {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if strings.ContainsAny(s.key, `.[]" `) || s.key == "" {
			b.WriteString("[" + strconv.Quote(s.key) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

// without returns v with the member or item at path removed; ok is false
// when path leads nowhere.
func without(v any, path []seg) (any, bool) {
	s := path[0]
	switch node := v.(type) {
	case map[string]any:
		child, ok := node[s.key]
		if s.key == "" || !ok {
			return v, false
		}
		if len(path) == 1 {
			delete(node, s.key)
			return node, true
		}
		nc, ok := without(child, path[1:])
		if ok {
			node[s.key] = nc
		}
		return node, ok
	case []any:
		if s.key != "" || s.index < 0 || s.index >= len(node) {
			return v, false
		}
		if len(path) == 1 {
			return append(node[:s.index:s.index], node[s.index+1:]...), true
		}
		nc, ok := without(node[s.index], path[1:])
		if ok {
			node[s.index] = nc
		}
		return node, ok
	}
	return v, false
}
