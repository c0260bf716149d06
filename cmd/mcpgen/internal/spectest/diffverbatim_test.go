package spectest

// Free-form values must come back byte for byte (issue "Exact to the
// schema", item 1): tool arguments, structuredContent, the values of _meta
// members, schema documents and every other value the schema leaves open
// are relayed, not re-encoded, so "1.0E+2", "\u00e9" and the spacing inside
// them survive. The differential test checks it on every accepted
// instance with verbatimDiff, which finds those values by walking the
// instance beside schema.json.

import (
	"bytes"
	"strconv"
	"sync/atomic"
	"testing"
)

// verbatimCompared counts the free-form values compared, for the
// differential test's summary.
var verbatimCompared atomic.Int64

// freeFormDefs are the definitions whose values are free-form JSON (with
// the JSONValue deviation, any JSON value).
var freeFormDefs = map[string]bool{"#/$defs/JSONValue": true}

// verbatimDiff walks instance a (parsed from ad) and its re-encoding b
// (parsed from bd) beside schema s and returns the path of the first
// free-form value whose bytes differ, or "". A free-form value is one
// whose schema admits anything: {} (or annotations only), JSONValue, and
// the members an object schema does not declare when it does not
// constrain additionalProperties. Where a union leaves the member of a
// value ambiguous, the walk does not descend into it.
func (d *schemaDoc) verbatimDiff(s schemaNode, a, b *jnode, ad, bd []byte, path string) (string, bool) {
	if ref, _ := s["$ref"].(string); freeFormDefs[ref] || len(s) == 0 || onlyAnnotations(s) {
		verbatimCompared.Add(1)
		return path, !bytes.Equal(ad[a.start:a.end], bd[b.start:b.end])
	}
	s = d.merged(s)
	for _, kw := range []string{"anyOf", "oneOf"} {
		if list, ok := s[kw].([]any); ok {
			br := d.onlyBranch(list, a)
			if br == nil {
				return "", false
			}
			return d.verbatimDiff(br, a, b, ad, bd, path)
		}
	}
	if a.kind != b.kind {
		return "", false // sameValue reports it
	}
	switch a.kind {
	case jObject:
		props, _ := s["properties"].(map[string]any)
		ap, hasAP := s["additionalProperties"]
		out := map[string]*jnode{}
		for _, m := range b.mem {
			out[m.key] = m.val
		}
		for _, m := range a.mem {
			bv := out[m.key]
			if bv == nil {
				continue // sameValue reports it
			}
			var sub schemaNode
			switch p, declared := props[m.key]; {
			case declared:
				sub = p.(schemaNode)
			case !hasAP || ap == true:
				sub = schemaNode{}
			default:
				if sub, _ = ap.(schemaNode); sub == nil {
					continue
				}
			}
			if p, differ := d.verbatimDiff(sub, m.val, bv, ad, bd, joinPath(path, m.key)); differ {
				return p, true
			}
		}
	case jArray:
		items, ok := s["items"].(schemaNode)
		if !ok {
			items = schemaNode{}
		}
		for i := range min(len(a.elems), len(b.elems)) {
			if p, differ := d.verbatimDiff(items, a.elems[i], b.elems[i], ad, bd, path+"["+strconv.Itoa(i)+"]"); differ {
				return p, true
			}
		}
	}
	return "", false
}

// onlyBranch returns the branch of an anyOf or oneOf that n can be, when
// exactly one can; nil otherwise.
func (d *schemaDoc) onlyBranch(list []any, n *jnode) schemaNode {
	var found schemaNode
	for _, b := range list {
		if d.admits(b.(schemaNode), n, 0) {
			if found != nil {
				return nil
			}
			found = b.(schemaNode)
		}
	}
	return found
}

// admits is a rough test of whether schema s may accept n: the JSON kind,
// and for objects the required members and the string constants of
// members (discriminators). It errs on the side of admitting.
func (d *schemaDoc) admits(s schemaNode, n *jnode, depth int) bool {
	if ref, _ := s["$ref"].(string); freeFormDefs[ref] || depth > 16 {
		return true
	}
	s = d.merged(s)
	for _, kw := range []string{"anyOf", "oneOf"} {
		if list, ok := s[kw].([]any); ok {
			for _, b := range list {
				if d.admits(b.(schemaNode), n, depth+1) {
					return true
				}
			}
			return false
		}
	}
	if ts := types(s); len(ts) > 0 && !admitsKind(ts, n) {
		return false
	}
	if n.kind != jObject {
		return true
	}
	has := map[string]*jnode{}
	for _, m := range n.mem {
		has[m.key] = m.val
	}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if has[r.(string)] == nil {
				return false
			}
		}
	}
	props, _ := s["properties"].(map[string]any)
	for k, p := range props {
		v := has[k]
		if v == nil || v.kind != jString {
			continue
		}
		ps := d.merged(p.(schemaNode))
		if c, ok := ps["const"].(string); ok && c != v.str {
			return false
		}
		if e, ok := ps["enum"].([]any); ok && !containsAny(e, v.str) {
			return false
		}
	}
	return true
}

func admitsKind(ts []string, n *jnode) bool {
	for _, t := range ts {
		switch {
		case t == "integer" && n.kind == jNumber && isIntegral(n.num),
			t == "number" && n.kind == jNumber,
			t == n.kind.String():
			return true
		}
	}
	return false
}

func isIntegral(tok string) bool {
	r := rat(tok)
	return r != nil && r.IsInt()
}

func containsAny(list []any, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDifferentialVerbatimCheck pins verbatimDiff: a free-form value
// (a _meta member's, a tool's arguments) must keep its bytes, a typed one
// (text) only its value.
func TestDifferentialVerbatimCheck(t *testing.T) {
	h := loadHarness(t)
	for _, tc := range []struct {
		def, in, out string
		want         string // the path of the difference, "-" for none
	}{
		{"TextContent", `{"type":"text","text":"A","_meta":{"x":1.0}}`, `{"type":"text","text":"A","_meta":{"x":1.0}}`, "-"},
		{"TextContent", `{"type":"text","text":"\u0041","_meta":{"x":1.0}}`, `{"type":"text","text":"A","_meta":{"x":1.0}}`, "-"},
		{"TextContent", `{"type":"text","text":"A","_meta":{"x":1.0}}`, `{"type":"text","text":"A","_meta":{"x":1}}`, "_meta.x"},
		{"TextContent", `{"type":"text","text":"A","z":[ 1 ]}`, `{"type":"text","text":"A","z":[1]}`, "z"},
		{"CallToolRequestParams", `{"name":"t","arguments":{"a":"\u00e9"}}`, `{"name":"t","arguments":{"a":"é"}}`, "arguments.a"},
		{"ContentBlock", `{"type":"text","text":"A","_meta":{"x":-0}}`, `{"type":"text","text":"A","_meta":{"x":0}}`, "_meta.x"},
		{"JSONValue", `[1.0]`, `[1]`, ""}, // JSONValue is compared whole
		{"JSONValue", `[1.0]`, `[1.0]`, "-"},
		{"JSONObject", `{"a":[1.0]}`, `{"a":[1]}`, "a"},
		{"Tool", `{"name":"t","inputSchema":{"type":"object","x":{ }}}`, `{"name":"t","inputSchema":{"type":"object","x":{}}}`, "inputSchema.x"},
	} {
		a, _, err := parseExact([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := parseExact([]byte(tc.out))
		if err != nil {
			t.Fatal(err)
		}
		got, differ := h.doc.verbatimDiff(schemaNode{"$ref": "#/$defs/" + tc.def}, a, b, []byte(tc.in), []byte(tc.out), "")
		if !differ {
			got = "-"
		}
		if got != tc.want {
			t.Errorf("%s %s → %s: %q, want %q", tc.def, tc.in, tc.out, got, tc.want)
		}
	}
}
