package spectest

// Exact JSON for the differential test (differential_test.go): a parser
// that keeps what encoding/json loses, and a writer that can spell values
// any way a mutation asks. Numbers keep their token and are compared as
// decimal values; strings keep lone surrogates (as 3-byte sequences, the
// "wobbly" UTF-8 of WTF8, so "\ud800" and "\ufffd" stay different);
// member names keep their spelling and duplicates. Nothing here uses the
// runtime's wire package.

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// jnode is one JSON value. Nodes are never modified once built: mutations
// copy the path to the node they change.
type jnode struct {
	kind  jkind
	b     bool
	num   string // jNumber: the token as written
	str   string // jString: the value, lone surrogates as 3-byte sequences (WTF8)
	raw   string // jString: exact spelling, quotes included; "" = canonical
	mem   []jmember
	elems []*jnode
	// start and end locate a parsed value in its input (both 0 for a
	// built one), for comparing free-form values byte for byte.
	start, end int
}

type jmember struct {
	key    string // lone surrogates as in str
	rawKey string // exact spelling, quotes included; "" = canonical
	val    *jnode
}

func jstr(s string) *jnode          { return &jnode{kind: jString, str: s} }
func jnum(tok string) *jnode        { return &jnode{kind: jNumber, num: tok} }
func jbool(b bool) *jnode           { return &jnode{kind: jBool, b: b} }
func jnull() *jnode                 { return &jnode{kind: jNull} }
func jarr(e ...*jnode) *jnode       { return &jnode{kind: jArray, elems: e} }
func jobj(m ...jmember) *jnode      { return &jnode{kind: jObject, mem: m} }
func jm(k string, v *jnode) jmember { return jmember{key: k, val: v} }

// parseInfo describes an instance beyond its value.
type parseInfo struct {
	depth   int  // deepest nesting of objects and arrays (the outermost is 1)
	tooDeep bool // nesting beyond harnessMaxDepth: parsing stopped there
	dup     bool // some object repeats a member name (after unescaping)
	lone    bool // some string or name holds a lone surrogate
	hugeExp bool // some number has an exponent too large to evaluate cheaply
}

// harnessMaxDepth is the documented limit of the generated decoders
// (README: "nesting deeper than wire.MaxDepth (128)"); the parser stops
// one level beyond it, so fuzz input cannot exhaust the stack.
const harnessMaxDepth = 128

var errHarnessTooDeep = errors.New("nesting deeper than 128")

type jparser struct {
	s    []byte
	i    int
	info parseInfo
	cur  int
}

// parseExact parses data as one RFC 8259 JSON text. An error means data is
// not JSON (or nests deeper than 128 levels: info.tooDeep).
func parseExact(data []byte) (*jnode, parseInfo, error) {
	p := &jparser{s: data}
	if !utf8.Valid(data) {
		return nil, p.info, errors.New("invalid UTF-8")
	}
	p.ws()
	n, err := p.value()
	if err != nil {
		return nil, p.info, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, p.info, errors.New("data after the value")
	}
	return n, p.info, nil
}

func (p *jparser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) lit(word string) bool {
	if strings.HasPrefix(string(p.s[p.i:min(len(p.s), p.i+len(word))]), word) {
		p.i += len(word)
		return true
	}
	return false
}

func (p *jparser) value() (*jnode, error) {
	start := p.i
	n, err := p.token()
	if err != nil {
		return nil, err
	}
	n.start, n.end = start, p.i
	return n, nil
}

// token reads the value at p.i (value records where it is).
func (p *jparser) token() (*jnode, error) {
	if p.i >= len(p.s) {
		return nil, errors.New("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, raw, err := p.string()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jString, str: s, raw: raw}, nil
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case p.lit("true"):
		return jbool(true), nil
	case p.lit("false"):
		return jbool(false), nil
	case p.lit("null"):
		return jnull(), nil
	}
	return nil, errors.New("invalid value at " + strconv.Itoa(p.i))
}

func (p *jparser) enter() error {
	p.cur++
	if p.cur > p.info.depth {
		p.info.depth = p.cur
	}
	if p.cur > harnessMaxDepth {
		p.info.tooDeep = true
		return errHarnessTooDeep
	}
	return nil
}

func (p *jparser) object() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.cur-- }()
	p.i++
	n := &jnode{kind: jObject}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		n.mem = []jmember{}
		return n, nil
	}
	seen := map[string]bool{}
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, errors.New("expected a member name")
		}
		k, raw, err := p.string()
		if err != nil {
			return nil, err
		}
		if seen[k] {
			p.info.dup = true
		}
		seen[k] = true
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, errors.New("expected ':'")
		}
		p.i++
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.mem = append(n.mem, jmember{key: k, rawKey: raw, val: v})
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return n, nil
		}
		return nil, errors.New("expected ',' or '}'")
	}
}

func (p *jparser) array() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.cur-- }()
	p.i++
	n := &jnode{kind: jArray, elems: []*jnode{}}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return n, nil
	}
	for {
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return n, nil
		}
		return nil, errors.New("expected ',' or ']'")
	}
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func (p *jparser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	var r rune
	for j := 0; j < 4; j++ {
		h := hexVal(p.s[p.i+j])
		if h < 0 {
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	p.i += 4
	return r, true
}

// string reads a string at p.s[p.i] == '"'. It returns the value (lone surrogates as in jnode.str)
// and the spelling when it differs from the canonical one ("" otherwise).
func (p *jparser) string() (string, string, error) {
	start := p.i
	p.i++
	var b []byte
	escaped := false
	for {
		if p.i >= len(p.s) {
			return "", "", errors.New("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			raw := string(p.s[start:p.i])
			if !escaped {
				return raw[1 : len(raw)-1], "", nil
			}
			s := string(b)
			if quoteWTF8(s) == raw {
				raw = ""
			}
			return s, raw, nil
		case c < 0x20:
			return "", "", errors.New("control character in string")
		case c == '\\':
			if !escaped {
				escaped = true
				b = append(b, p.s[start+1:p.i]...)
			}
			p.i++
			if p.i >= len(p.s) {
				return "", "", errors.New("unterminated escape")
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", "", errors.New("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) && r < 0xdc00 && p.i+6 <= len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if r2, ok := p.hex4(); ok && 0xdc00 <= r2 && r2 <= 0xdfff {
						b = utf8.AppendRune(b, utf16.DecodeRune(r, r2))
						continue
					}
					p.i = save
				}
				if utf16.IsSurrogate(r) {
					p.info.lone = true
					b = appendWTF8Surrogate(b, r)
				} else {
					b = utf8.AppendRune(b, r)
				}
			default:
				return "", "", errors.New("invalid escape")
			}
		default:
			if escaped {
				b = append(b, c)
			}
			p.i++
		}
	}
}

func appendWTF8Surrogate(b []byte, r rune) []byte {
	return append(b, 0xed, byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
}

// wtf8Surrogate reports the lone surrogate encoded at s[i:], if any.
func wtf8Surrogate(s string, i int) (rune, bool) {
	if i+3 <= len(s) && s[i] == 0xed && s[i+1] >= 0xa0 && s[i+1] <= 0xbf && s[i+2] >= 0x80 && s[i+2] <= 0xbf {
		return 0xd000 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f), true
	}
	return 0, false
}

// toUTF8 replaces lone surrogates by U+FFFD, as encoding/json does: what
// the validator sees of a string.
func toUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if _, ok := wtf8Surrogate(s, i); ok {
			b.WriteRune(utf8.RuneError)
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += n
	}
	return b.String()
}

// quoteWTF8 is the canonical JSON spelling of s: quotes, backslash and
// control characters escaped, lone surrogates as \uXXXX, the rest as is.
func quoteWTF8(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		if r, ok := wtf8Surrogate(s, i); ok {
			b.WriteString(`\u` + strconv.FormatInt(int64(r), 16))
			i += 3
			continue
		}
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&15])
		default:
			b.WriteByte(c)
		}
		i++
	}
	b.WriteByte('"')
	return b.String()
}

// escapeAll spells s with every ASCII character as a \u escape: the same
// value, spelled as differently as JSON allows.
func escapeAll(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r < 0x80 {
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789ABCDEF"[r&15]) // mixed-case hex digits
			continue
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// escapeOne spells s with its middle character escaped ("na\u006de").
func escapeOne(s string) string {
	if s == "" || !utf8.ValidString(s) {
		return ""
	}
	rs := []rune(s)
	m := len(rs) / 2
	q := quoteWTF8(string(rs[:m]))
	t := quoteWTF8(string(rs[m+1:]))
	esc := ""
	if rs[m] > 0xffff {
		r1, r2 := utf16.EncodeRune(rs[m])
		esc = `\u` + strconv.FormatInt(int64(r1), 16) + `\u` + strconv.FormatInt(int64(r2), 16)
	} else {
		esc = `\u` + leftPad(strconv.FormatInt(int64(rs[m]), 16), 4)
	}
	return q[:len(q)-1] + esc + t[1:]
}

func leftPad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

func (n *jnode) bytes() []byte {
	var b []byte
	return n.append(b)
}

func (n *jnode) String() string { return string(n.bytes()) }

func (n *jnode) append(b []byte) []byte {
	switch n.kind {
	case jNull:
		return append(b, "null"...)
	case jBool:
		return strconv.AppendBool(b, n.b)
	case jNumber:
		return append(b, n.num...)
	case jString:
		if n.raw != "" {
			return append(b, n.raw...)
		}
		return append(b, quoteWTF8(n.str)...)
	case jArray:
		b = append(b, '[')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.append(b)
		}
		return append(b, ']')
	default:
		b = append(b, '{')
		for i, m := range n.mem {
			if i > 0 {
				b = append(b, ',')
			}
			if m.rawKey != "" {
				b = append(b, m.rawKey...)
			} else {
				b = append(b, quoteWTF8(m.key)...)
			}
			b = append(b, ':')
			b = m.val.append(b)
		}
		return append(b, '}')
	}
}

// decimal is a number as (sign, significant digits, exponent): equal
// decimals are equal numbers. Zero is ("", 0) whatever its sign.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// parseDecimal reads a JSON number token exactly. ok is false when the
// exponent is too large for the harness to evaluate (|e| > 10⁹).
func parseDecimal(tok string) (d decimal, ok bool) {
	s := tok
	if strings.HasPrefix(s, "-") {
		d.neg = true
		s = s[1:]
	}
	mant, expPart, _ := strings.Cut(strings.ToLower(s), "e")
	var exp int64
	if expPart != "" {
		e, err := strconv.ParseInt(expPart, 10, 64)
		if err != nil || e > 1e9 || e < -1e9 {
			return d, false
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	exp -= int64(len(frac))
	digits = strings.TrimLeft(digits, "0")
	t := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(t))
	if t == "" {
		return decimal{}, true
	}
	d.digits = t
	d.exp = exp
	return d, true
}

// rat is the value of a number token, for arithmetic on bounds.
func rat(tok string) *big.Rat {
	r, ok := new(big.Rat).SetString(tok)
	if !ok {
		panic("bad number " + tok)
	}
	return r
}

// plainInteger spells tok as a plain integer when its value is one
// ("1.0" → "1", "1e2" → "100", "-0" → "0"); ok is false for fractions and
// for exponents beyond 400 digits.
func plainInteger(tok string) (string, bool) {
	d, ok := parseDecimal(tok)
	if !ok || d.exp < 0 || d.exp > 400 {
		return "", false
	}
	if d.digits == "" {
		return "0", true
	}
	s := d.digits + strings.Repeat("0", int(d.exp))
	if d.neg {
		s = "-" + s
	}
	return s, true
}

// isPlainInteger reports whether tok is spelled -?[0-9]+.
func isPlainInteger(tok string) bool {
	return !strings.ContainsAny(tok, ".eE")
}

// sameValue compares two JSON values exactly: numbers as decimals, strings
// code point by code point (lone surrogates included), objects as sets of
// members. It returns the path of the first difference, or ok.
func sameValue(a, b *jnode, path string) (string, bool) {
	if a.kind != b.kind {
		return path + ": " + a.kind.String() + " became " + b.kind.String(), false
	}
	switch a.kind {
	case jBool:
		if a.b != b.b {
			return path + ": boolean changed", false
		}
	case jNumber:
		da, oka := parseDecimal(a.num)
		db, okb := parseDecimal(b.num)
		if !oka || !okb || da != db {
			return path + ": number " + a.num + " became " + b.num, false
		}
	case jString:
		if a.str != b.str && !utf8.ValidString(a.str) && b.str == toUTF8(a.str) {
			return path + ": lone surrogate replaced by U+FFFD in " + quoteWTF8(a.str), false
		}
		if a.str != b.str {
			return path + ": string " + quoteWTF8(a.str) + " became " + quoteWTF8(b.str), false
		}
	case jArray:
		if len(a.elems) != len(b.elems) {
			return path + ": array of " + strconv.Itoa(len(a.elems)) + " became " + strconv.Itoa(len(b.elems)), false
		}
		for i := range a.elems {
			if p, ok := sameValue(a.elems[i], b.elems[i], path+"["+strconv.Itoa(i)+"]"); !ok {
				return p, false
			}
		}
	case jObject:
		bm := map[string]*jnode{}
		for _, m := range b.mem {
			bm[m.key] = m.val
		}
		// a member name with a lone surrogate, replaced
		for _, m := range a.mem {
			if _, ok := bm[m.key]; !ok && !utf8.ValidString(m.key) {
				if _, ok := bm[toUTF8(m.key)]; ok {
					return joinPath(path, toUTF8(m.key)) + ": lone surrogate replaced by U+FFFD in member name " + quoteWTF8(m.key), false
				}
			}
		}
		if len(bm) != len(b.mem) {
			return path + ": re-encoding repeats a member name", false
		}
		am := map[string]bool{}
		for _, m := range a.mem {
			am[m.key] = true
			bv, ok := bm[m.key]
			if !ok {
				return joinPath(path, m.key) + ": member dropped", false
			}
			if p, ok := sameValue(m.val, bv, joinPath(path, m.key)); !ok {
				return p, false
			}
		}
		for _, m := range b.mem {
			if !am[m.key] {
				return joinPath(path, m.key) + ": member added", false
			}
		}
	}
	return "", true
}

// joinPath renders paths as the generated validators do: params.content[2].type.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// toAny converts n to the form the validator takes (map[string]any,
// []any, json.Number, string, bool, nil), seeing strings as encoding/json
// would (lone surrogates become U+FFFD).
func toAny(n *jnode) any {
	switch n.kind {
	case jNull:
		return nil
	case jBool:
		return n.b
	case jNumber:
		return jsonNumber(n.num)
	case jString:
		return toUTF8(n.str)
	case jArray:
		out := make([]any, len(n.elems))
		for i, e := range n.elems {
			out[i] = toAny(e)
		}
		return out
	default:
		out := make(map[string]any, len(n.mem))
		for _, m := range n.mem {
			out[toUTF8(m.key)] = toAny(m.val)
		}
		return out
	}
}

// fromAny converts a value decoded by encoding/json (UseNumber) to a node.
func fromAny(v any) *jnode {
	switch v := v.(type) {
	case nil:
		return jnull()
	case bool:
		return jbool(v)
	case jsonNumber:
		return jnum(string(v))
	case string:
		return jstr(v)
	case []any:
		n := jarr()
		n.elems = []*jnode{}
		for _, e := range v {
			n.elems = append(n.elems, fromAny(e))
		}
		return n
	case map[string]any:
		n := jobj()
		n.mem = []jmember{}
		for _, k := range sortedKeys(v) {
			n.mem = append(n.mem, jm(k, fromAny(v[k])))
		}
		return n
	}
	panic("fromAny: unexpected value")
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *jparser) number() (*jnode, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && isDigit(p.s[p.i]) {
			p.i++
			n++
		}
		return n
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, errors.New("invalid number")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, errors.New("invalid number")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		es := p.i
		if digits() == 0 {
			return nil, errors.New("invalid number")
		}
		if e := strings.TrimLeft(string(p.s[es:p.i]), "0"); len(e) > 4 {
			p.info.hugeExp = true // beyond 1e9999: big.Rat would take long
		}
	}
	return jnum(string(p.s[start:p.i])), nil
}
