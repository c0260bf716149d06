package spectest

// Instances for the differential test: valid instances built from
// schema.json itself, and mutations of any instance (generated or a spec
// example). The generator reads the schema as plain JSON (map[string]any,
// json.Number); it shares nothing with the generator under test.

import (
	"fmt"
	"hash/fnv"
	"math/big"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

type schemaNode = map[string]any

// schemaDoc is schema.json with helpers to walk it.
type schemaDoc struct {
	defs  map[string]schemaNode
	names []string // sorted
	index keyIndex
}

func newSchemaDoc(doc map[string]any) *schemaDoc {
	d := &schemaDoc{defs: map[string]schemaNode{}}
	for name, v := range doc["$defs"].(map[string]any) {
		d.defs[name] = v.(schemaNode)
		d.names = append(d.names, name)
	}
	sort.Strings(d.names)
	d.index = buildIndex(d)
	return d
}

// resolve follows local $refs.
func (d *schemaDoc) resolve(s schemaNode) schemaNode {
	for i := 0; i < 32; i++ {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok || d.defs[name] == nil {
			panic("unresolvable $ref " + ref)
		}
		s = d.defs[name]
	}
	panic("$ref cycle")
}

// merged resolves s and folds its allOf into one node (properties merged
// member by member, required lists joined): enough for the three allOf
// of schema.json, which refine Error.
func (d *schemaDoc) merged(s schemaNode) schemaNode {
	s = d.resolve(s)
	all, ok := s["allOf"].([]any)
	if !ok {
		return s
	}
	out := schemaNode{}
	for k, v := range s {
		if k != "allOf" {
			out[k] = v
		}
	}
	for _, a := range all {
		out = mergeSchemas(out, d.merged(a.(schemaNode)), d)
	}
	return out
}

func mergeSchemas(a, b schemaNode, d *schemaDoc) schemaNode {
	out := schemaNode{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		switch k {
		case "properties":
			props := map[string]any{}
			if pa, ok := out["properties"].(map[string]any); ok {
				for pk, pv := range pa {
					props[pk] = pv
				}
			}
			for pk, pv := range v.(map[string]any) {
				if old, ok := props[pk]; ok {
					props[pk] = mergeSchemas(d.merged(old.(schemaNode)), d.merged(pv.(schemaNode)), d)
				} else {
					props[pk] = pv
				}
			}
			out["properties"] = props
		case "required":
			var req []any
			if ra, ok := out["required"].([]any); ok {
				req = append(req, ra...)
			}
			out["required"] = append(req, v.([]any)...)
		default:
			out[k] = v
		}
	}
	return out
}

func types(s schemaNode) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			out = append(out, x.(string))
		}
		return out
	}
	return nil
}

// keyIndex records, per member name, what the schema says of members of
// that name anywhere (array elements count under their array's name, the
// values of a whole definition under ""). Mutations of any instance, spec
// examples included, use it to find neighbours and bounds.
type keyIndex struct {
	strs     map[string][]string // enum and const strings
	nums     map[string][]string // const numbers
	bounds   map[string][]string // minimum and maximum
	integer  map[string]bool     // some member of the name is an integer
	formats  map[string][]string
	maxItems map[string]int
}

func buildIndex(d *schemaDoc) keyIndex {
	ix := keyIndex{strs: map[string][]string{}, nums: map[string][]string{}, bounds: map[string][]string{},
		integer: map[string]bool{}, formats: map[string][]string{}, maxItems: map[string]int{}}
	add := func(m map[string][]string, k, v string) {
		for _, x := range m[k] {
			if x == v {
				return
			}
		}
		m[k] = append(m[k], v)
	}
	visited := map[string]bool{}
	var walk func(key string, s schemaNode)
	walk = func(key string, s schemaNode) {
		if ref, ok := s["$ref"].(string); ok {
			if !visited[key+"|"+ref] {
				visited[key+"|"+ref] = true
				walk(key, d.resolve(s))
			}
			return
		}
		if c, ok := s["const"]; ok {
			switch c := c.(type) {
			case string:
				add(ix.strs, key, c)
			case jsonNumber:
				add(ix.nums, key, string(c))
			}
		}
		if e, ok := s["enum"].([]any); ok {
			for _, v := range e {
				if v, ok := v.(string); ok {
					add(ix.strs, key, v)
				}
			}
		}
		for _, b := range []string{"minimum", "maximum"} {
			if v, ok := s[b].(jsonNumber); ok {
				add(ix.bounds, key, string(v))
			}
		}
		for _, t := range types(s) {
			if t == "integer" {
				ix.integer[key] = true
			}
		}
		if f, ok := s["format"].(string); ok {
			add(ix.formats, key, f)
		}
		if m, ok := s["maxItems"].(jsonNumber); ok {
			n, _ := strconv.Atoi(string(m))
			ix.maxItems[key] = n
		}
		if props, ok := s["properties"].(map[string]any); ok {
			for k, v := range props {
				walk(k, v.(schemaNode))
			}
		}
		if it, ok := s["items"].(schemaNode); ok {
			walk(key, it)
		}
		if ap, ok := s["additionalProperties"].(schemaNode); ok {
			walk("*", ap)
		}
		for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
			if list, ok := s[kw].([]any); ok {
				for _, b := range list {
					walk(key, b.(schemaNode))
				}
			}
		}
	}
	for _, name := range d.names {
		walk("", d.defs[name])
	}
	return ix
}

// --- generation ---

// genCtx drives one generated instance. Instance k of a definition picks,
// at every choice point, alternative (k + h) mod n, where h hashes the
// choice point's path: over enough instances every point sees every
// alternative, independently of the others.
type genCtx struct {
	d     *schemaDoc
	k     int
	rnd   *rand.Rand
	depth int
}

func pathHash(path string) int {
	h := fnv.New32a()
	h.Write([]byte(path))
	return int(h.Sum32() & 0x7fffffff)
}

func (g *genCtx) choose(path string, n int) int {
	if n <= 1 {
		return 0
	}
	return (g.k + pathHash(path)) % n
}

// include decides whether an optional member is present: never in
// instance 0, always in instance 1, otherwise by a coin.
func (g *genCtx) include() bool {
	switch g.k {
	case 0:
		return false
	case 1:
		return true
	}
	return g.rnd.IntN(2) == 0
}

const genDeep = 7 // below this nesting, instances are kept small

func (g *genCtx) gen(s schemaNode, path string) *jnode {
	s = g.d.merged(s)
	g.depth++
	defer func() { g.depth-- }()
	if c, ok := s["const"]; ok {
		return fromAny(c)
	}
	if e, ok := s["enum"].([]any); ok {
		return fromAny(e[g.choose(path+"/enum", len(e))])
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if list, ok := s[kw].([]any); ok {
			i := g.choose(path+"/"+kw, len(list))
			if g.depth > genDeep {
				i = len(list) - 1 // JSONValue: the scalar branch
			}
			return g.gen(list[i].(schemaNode), path+"/"+kw+strconv.Itoa(i))
		}
	}
	ts := types(s)
	if len(ts) == 0 {
		if len(s) == 0 || onlyAnnotations(s) {
			return g.free(path)
		}
		if _, ok := s["properties"]; ok {
			ts = []string{"object"}
		}
	}
	if len(ts) == 0 {
		panic(fmt.Sprintf("%s: cannot generate %v", path, s))
	}
	t := ts[g.choose(path+"/type", len(ts))]
	switch t {
	case "object":
		return g.object(s, path)
	case "array":
		return g.array(s, path)
	case "string":
		return g.string(s, path)
	case "integer", "number":
		return g.number(s, path, t == "integer")
	case "boolean":
		return jbool(g.choose(path+"/bool", 2) == 0)
	case "null":
		return jnull()
	}
	panic(path + ": type " + t)
}

func onlyAnnotations(s schemaNode) bool {
	for k := range s {
		switch k {
		case "description", "title", "$comment", "examples", "default":
		default:
			return false
		}
	}
	return true
}

// free is a value for the schema {}: any JSON value.
func (g *genCtx) free(path string) *jnode {
	vals := []func() *jnode{
		func() *jnode { return jobj(jm("a", jnum("1")), jm("b", jarr(jstr("x"), jnull()))) },
		func() *jnode { return jarr(jnum("1"), jnum("2.5"), jstr("s")) },
		func() *jnode { return jstr("free") },
		func() *jnode { return jnum("-3") },
		func() *jnode { return jbool(true) },
		func() *jnode { return jnull() },
		func() *jnode { return jobj() },
	}
	return vals[g.choose(path+"/free", len(vals))]()
}

func (g *genCtx) object(s schemaNode, path string) *jnode {
	n := &jnode{kind: jObject, mem: []jmember{}}
	req := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, x := range r {
			req[x.(string)] = true
		}
	}
	props, _ := s["properties"].(map[string]any)
	for _, k := range sortedKeys(props) {
		if !req[k] && (g.depth > genDeep || !g.include()) {
			continue
		}
		n.mem = append(n.mem, jm(k, g.gen(props[k].(schemaNode), path+"."+k)))
	}
	for _, k := range sortedKeysBool(req) {
		if _, ok := props[k]; !ok {
			n.mem = append(n.mem, jm(k, g.free(path+"."+k)))
		}
	}
	if ap, ok := s["additionalProperties"].(schemaNode); ok && len(props) == 0 && g.depth <= genDeep {
		for i := 0; i < g.choose(path+"/ap", 3); i++ {
			k := "k" + strconv.Itoa(i)
			n.mem = append(n.mem, jm(k, g.gen(ap, path+"."+k)))
		}
	}
	return n
}

func (g *genCtx) array(s schemaNode, path string) *jnode {
	items, _ := s["items"].(schemaNode)
	lens := []int{0, 1, 2}
	if m, ok := s["maxItems"].(jsonNumber); ok {
		n, _ := strconv.Atoi(string(m))
		lens = append(lens, n)
	}
	l := lens[g.choose(path+"/len", len(lens))]
	if g.depth > genDeep {
		l = 0
	}
	n := &jnode{kind: jArray, elems: []*jnode{}}
	for i := 0; i < l; i++ {
		if items == nil {
			n.elems = append(n.elems, g.free(path+"[]"))
		} else {
			n.elems = append(n.elems, g.gen(items, path+"["+strconv.Itoa(i%2)+"]"))
		}
	}
	return n
}

// Valid values per format, and for plain strings.
var (
	validURIs      = []string{"https://example.com/a?b=c#d", "file:///tmp/x.txt", "urn:isbn:0451450523", "mailto:a@example.com", "http://[::1]:8080/", "custom+scheme://h/%20p"}
	validBase64    = []string{"", "aGVsbG8=", "YWJj", "YQ==", "+/+/"}
	validTemplates = []string{"file:///{path}", "{scheme}://{host}/x", "https://example.com/{+rest}{?q,r}", "db://{table}/{id:3}", "plain"}
	plainStrings   = []string{"x", "", "héllo wörld", `quote " and \ backslash`, "tab\there", "😀"}
)

func (g *genCtx) string(s schemaNode, path string) *jnode {
	pool := plainStrings
	switch s["format"] {
	case "uri":
		pool = validURIs
	case "byte":
		pool = validBase64
	case "uri-template":
		pool = validTemplates
	}
	return jstr(pool[g.choose(path+"/str", len(pool))])
}

func (g *genCtx) number(s schemaNode, path string, integer bool) *jnode {
	var pool []string
	lo, hasLo := s["minimum"].(jsonNumber)
	hi, hasHi := s["maximum"].(jsonNumber)
	switch {
	case hasLo && hasHi:
		pool = []string{string(lo), string(hi)}
		if !integer {
			mid := new(big.Rat).Add(rat(string(lo)), rat(string(hi)))
			mid.Quo(mid, big.NewRat(2, 1))
			pool = append(pool, ratString(mid), "0.25")
		}
	case hasLo:
		pool = []string{string(lo), ratString(new(big.Rat).Add(rat(string(lo)), big.NewRat(1, 1))), "60000"}
	case integer:
		pool = []string{"0", "1", "-5", "42", "1000000"}
	default:
		pool = []string{"0", "1.5", "-2.25", "3", "1e3"}
	}
	return jnum(pool[g.choose(path+"/num", len(pool))])
}

// ratString spells r as a finite decimal (r's denominator must divide a
// power of ten).
func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	s := r.FloatString(40)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// seeds returns the generated valid instances of a definition.
func (d *schemaDoc) seeds(name string, count int) []*jnode {
	var out []*jnode
	seen := map[string]bool{}
	for k := 0; k < count; k++ {
		g := &genCtx{d: d, k: k, rnd: rand.New(rand.NewPCG(uint64(pathHash(name)), uint64(k)))}
		n := g.gen(d.defs[name], name)
		if b := string(n.bytes()); !seen[b] {
			seen[b] = true
			out = append(out, n)
		}
	}
	return out
}

// --- mutations ---

// mutant is one instance derived from a seed.
type mutant struct {
	kind string // what was done, e.g. "drop", "number", "uri"
	path string // where, as in params.content[2].type
	ptr  string // where, as the validator's instance location: /params/content/2/type
	data []byte
}

// step is one link of the path from the root to a node.
type step struct {
	key   string // object member (by position: mem[index])
	index int
}

// replaceAt returns a copy of root with the node at path replaced by
// f(node); nodes off the path are shared.
func replaceAt(root *jnode, path []step, f func(*jnode) *jnode) *jnode {
	if len(path) == 0 {
		return f(root)
	}
	c := *root
	st := path[0]
	if root.kind == jObject {
		c.mem = append([]jmember(nil), root.mem...)
		c.mem[st.index].val = replaceAt(root.mem[st.index].val, path[1:], f)
	} else {
		c.elems = append([]*jnode(nil), root.elems...)
		c.elems[st.index] = replaceAt(root.elems[st.index], path[1:], f)
	}
	return &c
}

func renderPath(path []step, root *jnode) string {
	var b strings.Builder
	n := root
	for _, st := range path {
		if n.kind == jObject {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(toUTF8(n.mem[st.index].key))
			n = n.mem[st.index].val
		} else {
			b.WriteString("[" + strconv.Itoa(st.index) + "]")
			n = n.elems[st.index]
		}
	}
	return b.String()
}

// renderPointer renders path as the validator reports instance
// locations: "/" and the unescaped tokens joined by "/".
func renderPointer(path []step, root *jnode) string {
	var b strings.Builder
	n := root
	for _, st := range path {
		b.WriteByte('/')
		if n.kind == jObject {
			b.WriteString(toUTF8(n.mem[st.index].key))
			n = n.mem[st.index].val
		} else {
			b.WriteString(strconv.Itoa(st.index))
			n = n.elems[st.index]
		}
	}
	return b.String()
}

// Values a mutation puts in place of a node.
var (
	// numberSpellings: odd spellings and values at the edges of float64
	// and int64.
	numberSpellings = []string{"1.0", "1e2", "1E+2", "0.1e1", "-0", "-0.0", "0.0", "2.5", "-1",
		"1E400", "-1E400", "1e-400", "9007199254740993", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "100000000000000000000.00", "1.00000000000000000001"}
	// stringSpellings: escapes, lone surrogates and pairs, as raw JSON.
	stringSpellings = []string{`"\ud800"`, `"\udc00x"`, `"\ud83d\ude00"`, `"\uD83D\uDE00"`, `"\u0000"`,
		`"\"\\\/\b\f\n\r\t"`, `"\u00e9"`, `"é"`, `"\ud800\ud800"`, `"\udbff\udfff"`}
	retypes = []*jnode{jnull(), jbool(true), jnum("0"), jnum("1.5"), jstr("s"), jarr(), jobj()}
	// badURIs break RFC 3986 (and sometimes only net/url's reading of it);
	// a few valid ones check nothing valid is refused.
	badURIs = []string{"", "example.com", "/just/a/path", "//host/path", ":nope", "1http://x", "-x:y",
		"http://exa mple.com/", "http://x/a b", "http://x/%zz", "http://x/%2", "http://x/\u00e9", "http://[::1/",
		"http://[::1]x/", "http://[1.2.3.4]/", "http://x:8o/", "http://x/#a#b", "http://x/<y>", `http://x/a"b`,
		"http://x/a\\b", "http://x/{y}", "http://x/a|b", "http://x/a^b", "http://x/`", "http://u@v@x/",
		"http://x/\t", "\thttp://x/", "http://x/ ", "http:// x/", "ht_tp://x",
		// valid
		"mailto:", "HTTP://X.COM/", "a+b.c-d:x", "http://x:/", "http://[v1.x]/", "http://u:p@x:80/p?q#f",
		"urn:x:%41", "file:///C:/a", "http://x/?a=1?b#c/d?"}
	badBase64 = []string{"aGVsbG8", "aGVsbG8==", "a===", "====", "aGVs bG8=", "aGVsbG8=\n", "aGVs\nbG8=", "aGVs-G8=",
		"aGVs_G8=", "YR==", "Y===", "=YWJ", "YW=J", "YWJj\r\n", "é", "ZZZ=", "ZZ=="}
	badTemplates = []string{"file:///{a", "file:///a}", "http://x/{a b}", "{}", "http://x/{+}", "http://x/{a:0}",
		"http://x/{a:10000}", "http://x/{a*b}", "http://x/{.a.}", "http://x/%zz{a}", "http://x/a b", "http://x/{=a}",
		"http://x/{a,b}", "http://x/{#a}", "<{a}>", "{a}{b}", "http://x/{a:9999}", "http://x/{%41}", "http://x/\u00e9/{a}"}
)

// mutate returns the mutants of seed: every mutation at every node.
func (d *schemaDoc) mutate(seed *jnode) []mutant {
	var out []mutant
	add := func(kind string, path []step, n *jnode) {
		out = append(out, mutant{kind: kind, path: renderPath(path, seed), ptr: renderPointer(path, seed), data: replaceAt(seed, path, func(*jnode) *jnode { return n }).bytes()})
	}
	ix := &d.index
	deepBudget := 3 // objects given an over-deep unknown member
	var walk func(n *jnode, path []step, key string, depth int)
	walk = func(n *jnode, path []step, key string, depth int) {
		// retype: another JSON kind in place of the node.
		for _, r := range retypes {
			if r.kind != n.kind {
				add("retype", path, r)
			}
		}
		switch n.kind {
		case jObject:
			for i, m := range n.mem {
				// drop a member
				c := *n
				c.mem = append(append([]jmember(nil), n.mem[:i]...), n.mem[i+1:]...)
				add("drop", path, &c)
				// repeat it: same spelling, escaped spelling
				c = *n
				c.mem = append(append([]jmember(nil), n.mem...), m)
				add("duplicate", path, &c)
				if esc := escapeOne(m.key); esc != "" {
					c = *n
					c.mem = append(append([]jmember(nil), n.mem...), jmember{key: m.key, rawKey: esc, val: m.val})
					add("duplicate-escaped", path, &c)
					// the escaped spelling alone is the same member
					c = *n
					c.mem = append([]jmember(nil), n.mem...)
					c.mem[i].rawKey = esc
					add("escaped-name", path, &c)
				}
				// case variants of the name
				for _, v := range caseVariants(m.key) {
					c = *n
					c.mem = append([]jmember(nil), n.mem...)
					c.mem[i] = jmember{key: v, val: m.val}
					add("case-name", path, &c)
				}
			}
			// an unknown member of several kinds
			for _, v := range []*jnode{jnum("1"), jobj(jm("a", jarr(jnum("1.5"), jnull()))), jnull(), jstr(string(appendWTF8Surrogate(nil, 0xd800)))} {
				c := *n
				c.mem = append(append([]jmember(nil), n.mem...), jm("x-unknown", v))
				add("unknown", path, &c)
			}
			// the same members in reverse order (discriminators last or first)
			if len(n.mem) > 1 {
				c := *n
				c.mem = make([]jmember, len(n.mem))
				for i, m := range n.mem {
					c.mem[len(n.mem)-1-i] = m
				}
				add("reorder", path, &c)
			}
			// nesting around the limit, in an unknown member (kept verbatim);
			// many unknown members, then one repeated (duplicate detection
			// beyond the first few members)
			if deepBudget > 0 {
				many := append([]jmember(nil), n.mem...)
				for i := 0; i < 20; i++ {
					many = append(many, jm(fmt.Sprintf("x-%02d", i), jnum(strconv.Itoa(i))))
				}
				c := *n
				c.mem = many
				add("many-unknown", path, &c)
				c.mem = append(append([]jmember(nil), many...), jmember{key: "x-03", rawKey: `"x-\u0030\u0033"`, val: jnull()})
				add("duplicate-late", path, &c)
				deepBudget--
				for _, total := range []int{127, 128, 129} {
					c := *n
					c.mem = append(append([]jmember(nil), n.mem...), jm("x-deep", nested(total-depth, total%2 == 0)))
					add(fmt.Sprintf("deep-%d", total), path, &c)
				}
			}
			for i, m := range n.mem {
				walk(m.val, append(path[:len(path):len(path)], step{key: m.key, index: i}), m.key, depth+1)
			}
		case jArray:
			if len(n.elems) > 0 {
				add("array-empty", path, jarr())
				last := n.elems[len(n.elems)-1]
				grown := jarr(append(append([]*jnode(nil), n.elems...), last)...)
				add("array-grow", path, grown)
				odd := jarr(append(append([]*jnode(nil), n.elems...), jnum("7"))...)
				add("array-element", path, odd)
				if max, ok := ix.maxItems[key]; ok {
					for _, l := range []int{max, max + 1} {
						e := make([]*jnode, l)
						for i := range e {
							e[i] = n.elems[i%len(n.elems)]
						}
						add(fmt.Sprintf("array-len-%d", l), path, jarr(e...))
					}
				}
			}
			for i, e := range n.elems {
				walk(e, append(path[:len(path):len(path)], step{index: i}), key, depth+1)
			}
		case jString:
			add("string-escaped", path, &jnode{kind: jString, str: n.str, raw: escapeAll(n.str)})
			for _, sp := range stringSpellings {
				v, _, err := parseExact([]byte(sp))
				if err != nil {
					panic(sp)
				}
				add("string", path, v)
				add("string-append", path, jstr(n.str+v.str))
			}
			for _, v := range ix.strs[key] {
				if v != n.str {
					add("enum-neighbour", path, jstr(v))
				}
			}
			for _, v := range nearMisses(n.str) {
				add("enum-near-miss", path, jstr(v))
			}
			for _, f := range ix.formats[key] {
				pool := map[string][]string{"uri": badURIs, "byte": badBase64, "uri-template": badTemplates}[f]
				for _, v := range pool {
					add(f, path, jstr(v))
				}
			}
		case jNumber:
			for _, sp := range numberSpellings {
				add("number", path, jnum(sp))
			}
			for _, c := range ix.nums[key] {
				for _, v := range numberNeighbours(c) {
					add("const-number", path, jnum(v))
				}
			}
			if !strings.ContainsAny(n.num, ".eE") {
				for _, v := range []string{n.num + ".0", n.num + "e0", n.num + ".000e+0"} {
					add("integer-spelling", path, jnum(v))
				}
			}
			for _, b := range ix.bounds[key] {
				for _, v := range numberNeighbours(b) {
					add("bound", path, jnum(v))
				}
			}
		case jBool:
			add("bool", path, jbool(!n.b))
		}
	}
	walk(seed, nil, "", 1)
	return out
}

// nested is levels of nested arrays ([[...]]), or objects when objects.
func nested(levels int, objects bool) *jnode {
	n := jnum("0")
	for i := 0; i < levels; i++ {
		if objects {
			n = jobj(jm("d", n))
		} else {
			n = jarr(n)
		}
	}
	return n
}

func caseVariants(s string) []string {
	var out []string
	for _, v := range []string{strings.ToUpper(s), strings.ToLower(s), titleCase(s)} {
		if v != s && !contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	if 'a' <= s[0] && s[0] <= 'z' {
		return string(s[0]-32) + s[1:]
	}
	if 'A' <= s[0] && s[0] <= 'Z' {
		return string(s[0]+32) + s[1:]
	}
	return s
}

// nearMisses are strings close to s that no enum of the schema holds.
func nearMisses(s string) []string {
	out := caseVariants(s)
	out = append(out, s+" ", " "+s, s+"\u0000", s+"\u200b")
	if len(s) > 1 {
		out = append(out, s[:len(s)-1])
	}
	return out
}

// numberNeighbours are the numbers at, just beside and beyond tok.
func numberNeighbours(tok string) []string {
	r := rat(tok)
	one := big.NewRat(1, 1)
	tiny, _ := new(big.Rat).SetString("1e-20")
	out := []string{tok}
	for _, delta := range []*big.Rat{one, tiny} {
		out = append(out, ratString(new(big.Rat).Add(r, delta)), ratString(new(big.Rat).Sub(r, delta)))
	}
	out = append(out, tok+".0", tok+"e0", strings.Replace(ratString(r), ".", "", 1)+"e-"+strconv.Itoa(fracLen(ratString(r))))
	return out
}

func fracLen(s string) int {
	if _, f, ok := strings.Cut(s, "."); ok {
		return len(f)
	}
	return 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// syntaxMutants are byte-level defects of the whole text, and harmless
// variations (whitespace) that must change nothing.
func syntaxMutants(seed []byte) []mutant {
	s := string(seed)
	var out []mutant
	add := func(kind, v string) { out = append(out, mutant{kind: kind, data: []byte(v)}) }
	add("syntax-ws", " \t\r\n"+s+"\n")
	add("syntax", "\ufeff"+s)
	add("syntax", s+"x")
	add("syntax", s+" "+s)
	add("syntax", "\f"+s)
	add("syntax", "\u00a0"+s)
	if strings.HasSuffix(s, "}") && len(s) > 2 {
		add("syntax", s[:len(s)-1]+",}")
		add("syntax", s[:len(s)-1])
	}
	if i := strings.Index(s, `":"`); i >= 0 {
		add("syntax", s[:i+3]+"\x01"+s[i+3:])
		add("syntax", s[:i+3]+`\x`+s[i+3:])
		add("syntax", s[:i+3]+`\u12`+s[i+3:])
		add("syntax", s[:i+3]+"\xff"+s[i+3:])
	}
	if i := strings.IndexAny(s, "0123456789"); i > 0 && (s[i-1] == ':' || s[i-1] == ',' || s[i-1] == '[') {
		for _, bad := range []string{"0", "+", "--", "."} {
			add("syntax", s[:i]+bad+s[i:])
		}
		add("syntax", s[:i]+"NaN"+s[i+1:])
	}
	return out
}
