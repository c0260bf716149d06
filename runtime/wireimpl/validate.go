package wireimpl

import (
	"math"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/wire"

	"strconv"
	"strings"
)

// Path is a location inside a value being validated. Generated validators
// build it on the stack as they descend, one link per level; it is only
// rendered to a string when a violation is recorded.
type Path struct {
	Parent *Path
	Key    string
	Index  int // array index, or -1 for an object member
}

// Key returns the path of member key under p.
func (p *Path) Member(key string) Path { return Path{Parent: p, Key: key, Index: -1} }

// Elem returns the path of element i under p.
func (p *Path) Elem(i int) Path { return Path{Parent: p, Index: i} }

// String renders the path as in params.content[2].type.
func (p *Path) String() string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	p.render(&b)
	return b.String()
}

// render writes the path outermost segment first. It keeps no reference
// to any link, so paths built on validators' stacks stay there.
func (p *Path) render(b *strings.Builder) {
	if p.Parent != nil {
		p.Parent.render(b)
	}
	appendSeg(b, p.Key, p.Index)
}

// Checker collects violations for a generated validator.
type Checker struct {
	violations []wire.Violation
}

// Err returns a *ValidationError when violations were recorded, else nil.
func (c *Checker) Err() error {
	if len(c.violations) == 0 {
		return nil
	}
	return &wire.ValidationError{Violations: c.violations}
}

// Add records a violation at p.
func (c *Checker) Add(p *Path, msg string) {
	c.violations = append(c.violations, wire.Violation{Path: p.String(), Message: msg})
}

// EncodeErr returns a *wire.EncodeError when violations were recorded (by
// the generated encodable methods, which record only unions), else nil.
func (c *Checker) EncodeErr() error {
	if len(c.violations) == 0 {
		return nil
	}
	return &wire.EncodeError{Violations: c.violations}
}

// Union records a union (typ, "mcp.ContentBlock") holding n members
// instead of one; members lists them all ("TextContent, ImageContent").
func (c *Checker) Union(p *Path, typ string, n int, members string) {
	held := "none"
	if n > 1 {
		held = strconv.Itoa(n)
	}
	c.Add(p, typ+" must hold exactly one of "+members+"; it holds "+held)
}

// Finite records a NaN or an infinity, which JSON cannot hold (the encoder
// would write null).
func (c *Checker) Finite(p *Path, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		c.Add(p, "must be a finite number (JSON has no NaN or infinity)")
	}
}

// ID records an unset request id where one is required (the encoder
// would write null, which is no id).
func (c *Checker) ID(p *Path, id wire.ID) {
	if id.IsZero() {
		c.Add(p, "must be set: a request id is a string or an integer")
	}
}

// RawKind records a verbatim value of another JSON kind than want, as a
// value set in Go may be (decoding checks the kind already); nil is
// absent and passes.
func (c *Checker) RawKind(p *Path, r wire.Raw, want wire.Kind) {
	if r != nil {
		if got := r.Kind(); got != want {
			c.Add(p, "expected "+want.String()+", got "+got.String())
		}
	}
}

// Missing records that the required member key is absent under p.
func (c *Checker) Missing(p *Path, key string) {
	mp := p.Member(key)
	c.Add(&mp, "required member is missing")
}

// Const records a value that differs from the schema's constant.
func (c *Checker) Const(p *Path, want string) {
	c.Add(p, "must be "+want)
}

// Enum records a value outside the schema's enumeration.
func (c *Checker) Enum(p *Path, got string, allowed string) {
	c.Add(p, strconv.Quote(got)+" is not one of "+allowed)
}

// Minimum checks v >= min.
func (c *Checker) Minimum(p *Path, v, min float64) {
	if v < min {
		c.Add(p, "must be >= "+formatNum(min))
	}
}

// Maximum checks v <= max.
func (c *Checker) Maximum(p *Path, v, max float64) {
	if v > max {
		c.Add(p, "must be <= "+formatNum(max))
	}
}

// MinimumInt checks v >= min for an integer. The generator turns every
// bound on an integer into an inclusive int64 bound it equals on the
// integers (exclusiveMinimum 0.5 and minimum 0.5 are both MinimumInt 1),
// so the comparison is exact over the whole int64 range.
func (c *Checker) MinimumInt(p *Path, v, min int64) {
	if v < min {
		c.Add(p, "must be >= "+strconv.FormatInt(min, 10))
	}
}

// MaximumInt checks v <= max for an integer (see MinimumInt).
func (c *Checker) MaximumInt(p *Path, v, max int64) {
	if v > max {
		c.Add(p, "must be <= "+strconv.FormatInt(max, 10))
	}
}

// Decimal is a multipleOf as the generator writes it: Digits × 10^Exp,
// exactly (0.01 is {1, -2, "0.01"}), and Text to name it in messages.
type Decimal struct {
	Digits uint64
	Exp    int
	Text   string
}

// MultipleOf checks that the number v is an integer multiple of m. The
// test is exact, on decimals: v stands for its shortest decimal, which is
// the number as it was received (decoding refuses numbers a float64 would
// round), not for the binary fraction a float64 holds, so 0.3 is a
// multiple of 0.1. NaN and infinities, which JSON cannot hold, are not.
func (c *Checker) MultipleOf(p *Path, v float64, m Decimal) {
	digits, exp, ok := shortestDecimal(v)
	if !ok || !isMultiple(digits, exp, m) {
		c.Add(p, "must be a multiple of "+m.Text)
	}
}

// MultipleOfInt checks that the integer v is an integer multiple of m.
func (c *Checker) MultipleOfInt(p *Path, v int64, m Decimal) {
	u := uint64(v)
	if v < 0 {
		u = -u // two's complement: right for math.MinInt64 too
	}
	if !isMultiple(u, 0, m) {
		c.Add(p, "must be a multiple of "+m.Text)
	}
}

// Length checks a count (string length in characters, items, properties)
// against optional bounds; a negative bound is absent.
func (c *Checker) Length(p *Path, what string, n, min, max int) {
	switch {
	case min == 1 && n == 0 && what == "characters":
		c.Add(p, "must not be empty")
	case min >= 0 && n < min:
		c.Add(p, "must have at least "+strconv.Itoa(min)+" "+what)
	}
	if max >= 0 && n > max {
		c.Add(p, "must have at most "+strconv.Itoa(max)+" "+what)
	}
}

// Format checks a string against a format the runtime knows how to check;
// unknown formats are annotations and always pass.
func (c *Checker) Format(p *Path, format, s string) {
	if ok, known := CheckFormat(format, s); known && !ok {
		c.Add(p, "is not a valid "+format)
	}
}

func formatNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// ExclusiveMinimum checks v > min.
func (c *Checker) ExclusiveMinimum(p *Path, v, min float64) {
	if v <= min {
		c.Add(p, "must be > "+formatNum(min))
	}
}

// ExclusiveMaximum checks v < max.
func (c *Checker) ExclusiveMaximum(p *Path, v, max float64) {
	if v >= max {
		c.Add(p, "must be < "+formatNum(max))
	}
}

// RawMember is a member a verbatim object declares.
type RawMember struct {
	Name     string
	Required bool
	Kind     wire.Kind
	Const    string // JSON literal the member must equal, "" for none
}

// RawMembers checks the declared members of a verbatim object.
func (c *Checker) RawMembers(p *Path, r wire.Raw, members []RawMember) {
	if r == nil {
		return
	}
	var found uint64
	err := eachMember(r, func(name []byte, escaped bool, v []byte) {
		for i, m := range members {
			if i >= 64 || !memberIs(name, escaped, m.Name) {
				continue
			}
			found |= 1 << uint(i)
			if got := wire.Raw(v).Kind(); got != m.Kind {
				mp := p.Member(m.Name)
				c.Add(&mp, "expected "+m.Kind.String()+", got "+got.String())
			} else if !m.accepts(v) {
				mp := p.Member(m.Name)
				c.Const(&mp, m.Const)
			}
			return
		}
	})
	if err != nil {
		c.Add(p, err.Error())
		return
	}
	for i, m := range members {
		if m.Required && i < 64 && found&(1<<uint(i)) == 0 {
			c.Missing(p, m.Name)
		}
	}
}

// RawValues checks that every member of the verbatim object r has JSON
// kind want (an object whose additionalProperties is an object schema,
// kept verbatim).
func (c *Checker) RawValues(p *Path, r wire.Raw, want wire.Kind) {
	if r == nil {
		return
	}
	err := eachMember(r, func(name []byte, escaped bool, v []byte) {
		if got := wire.Raw(v).Kind(); got != want {
			k, _ := rawKey(name, escaped)
			mp := p.Member(k)
			c.Add(&mp, "expected "+want.String()+", got "+got.String())
		}
	})
	if err != nil {
		c.Add(p, err.Error())
	}
}

// accepts reports whether v, the member's verbatim value, has the member's
// kind and, when it has one, equals its constant.
func (m RawMember) accepts(v []byte) bool {
	if wire.Raw(v).Kind() != m.Kind {
		return false
	}
	return m.Const == "" || string(v) == m.Const || equalJSONString(v, m.Const)
}

// equalJSONString compares two JSON string literals by value.
func equalJSONString(a wire.Raw, b string) bool {
	if len(a) == 0 || a[0] != '"' || len(b) == 0 || b[0] != '"' {
		return false
	}
	x, err1 := strconv.Unquote(string(a))
	y, err2 := strconv.Unquote(b)
	return err1 == nil && err2 == nil && x == y
}

// RawJSON checks a named free-form value: well-formed JSON (syntax, depth,
// no repeated member names) of kind want (KindInvalid: any). nil is absent
// and passes.
func (c *Checker) RawJSON(p *Path, r wire.Raw, want wire.Kind) {
	if r == nil {
		return
	}
	if got := r.Kind(); want != wire.KindInvalid && got != want {
		c.Add(p, "expected "+want.String()+", got "+got.String())
		return
	}
	v := verbatimPool.Get().(*verbatim)
	end, err := v.scan(r, ws(r, 0), MaxDepth, true)
	v.reset(nil)
	verbatimPool.Put(v)
	switch {
	case err != nil:
		c.Add(p, err.Error())
	case ws(r, end) != len(r):
		c.Add(p, "invalid JSON: unexpected data after the value")
	}
}

var verbatimPool = sync.Pool{New: func() any { return new(verbatim) }}
