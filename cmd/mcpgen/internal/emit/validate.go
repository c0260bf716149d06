package emit

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/plan"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// validateFile writes Validate (exported) and validate (path-aware) for
// every named type. A validator records every violation with its path and
// allocates nothing when the value is valid.
func validateFile(f *jen.File, pkg *plan.Package) {
	v := &validators{needs: needsValidation(pkg.Types), f: f, pkg: pkg.Name}
	for _, t := range pkg.Types {
		if t.Kind == plan.Alias || t.Reused != nil {
			continue
		}
		f.Commentf("Validate checks x against the schema and lists every violation.")
		f.Func().Params(recvFor(t)).Id("Validate").Params().Error().Block(
			jen.Var().Id("c").Add(iq("Checker")),
			jen.Id("x").Dot("validate").Call(jen.Op("&").Id("c"), jen.Nil()),
			jen.Return(jen.Id("c").Dot("Err").Call()),
		)
		f.Line()
		var body []jen.Code
		switch t.Kind {
		case plan.Struct:
			body = v.structBody(t)
		case plan.Union:
			body = v.unionBody(t)
		case plan.Enum:
			var vals []jen.Code
			var names []string
			for i, val := range t.Values {
				vals = append(vals, jen.Id(t.Consts[i]))
				names = append(names, strconv.Quote(val))
			}
			body = []jen.Code{jen.Switch(jen.Id("x")).Block(
				jen.Case(vals...).Block(jen.Return()),
			), jen.Id("c").Dot("Enum").Call(jen.Id("p"), jen.String().Parens(jen.Id("x")), jen.Lit(strings.Join(names, ", ")))}
		case plan.Scalar:
			body = v.checks(t.Elem, baseConv(t), jen.Id("p"))
		case plan.Map, plan.Slice:
			body = v.value(t.Elem, jen.Parens(jen.Op("*").Id("x")), jen.Id("p"))
		case plan.Verbatim:
			body = v.verbatim(t)
		}
		f.Func().Params(recvFor(t)).Id("validate").Params(jen.Id("c").Op("*").Add(iq("Checker")), jen.Id("p").Op("*").Add(iq("Path"))).Block(body...)
		f.Line()
	}
}

func recvFor(t *plan.Type) *jen.Statement {
	if t.Kind == plan.Enum || t.Kind == plan.Scalar {
		return jen.Id("x").Id(t.Name)
	}
	return recv(t)
}

func baseConv(t *plan.Type) *jen.Statement {
	switch t.Elem.Kind {
	case plan.Int:
		return jen.Int64().Parens(jen.Id("x"))
	case plan.Float:
		return jen.Float64().Parens(jen.Id("x"))
	case plan.Bool:
		return jen.Bool().Parens(jen.Id("x"))
	}
	return jen.String().Parens(jen.Id("x"))
}

// validateCall validates x, a value of val's named type, at path p: with
// its validate method, or, for a type of the reused package (whose
// validate is not exported), with Validate, its violations recorded
// under p (wireimpl.Checker.Sub).
func validateCall(val *plan.Value, x *jen.Statement, p jen.Code) jen.Code {
	if u := plan.Underlying(val); u.Kind == plan.Named && u.Type.Reused != nil || val.Kind == plan.Named && val.Type.Reused != nil {
		return jen.Id("c").Dot("Sub").Call(p, cl(x).Dot("Validate").Call())
	}
	return cl(x).Dot("validate").Call(jen.Id("c"), p)
}

// needsValidation finds the types whose validate can record anything.
func needsValidation(types []*plan.Type) map[*plan.Type]bool {
	needs := map[*plan.Type]bool{}
	var valueNeeds func(v *plan.Value) bool
	valueNeeds = func(v *plan.Value) bool {
		if !v.Checks.Empty() || len(v.Members) > 0 || v.ValuesKind != 0 {
			return true
		}
		u := plan.Underlying(v)
		switch u.Kind {
		case plan.Float, plan.ID: // NaN and infinities (Checker.Finite), unset ids (Checker.ID)
			return true
		case plan.Named:
			return needs[u.Type]
		case plan.List, plan.Dict:
			return !u.Checks.Empty() || valueNeeds(u.Elem)
		case plan.Raw:
			// RawKind: a value of another kind set in Go (Checker.RawKind).
			return len(u.Members) > 0 || u.ValuesKind != 0 || u.RawKind != wire.KindInvalid
		}
		return !u.Checks.Empty()
	}
	for changed := true; changed; {
		changed = false
		for _, t := range types {
			if needs[t] {
				continue
			}
			n := t.Reused != nil // its own package validates it: ask
			switch t.Kind {
			case plan.Union, plan.Enum:
				n = true
			case plan.Struct:
				for _, fl := range t.Fields {
					if fl.Required || fl.Const != nil || fl.Value != nil && valueNeeds(fl.Value) {
						n = true
					}
				}
			case plan.Scalar, plan.Map, plan.Slice, plan.Alias:
				n = valueNeeds(t.Elem)
			case plan.Verbatim:
				n = true
			}
			if n {
				needs[t], changed = true, true
			}
		}
	}
	return needs
}

type validators struct {
	pkg      string // package name, to name union types in messages
	needs    map[*plan.Type]bool
	f        *jen.File
	patterns int
	members  int
}

func (v *validators) valueNeeds(val *plan.Value) bool {
	if !val.Checks.Empty() || len(val.Members) > 0 || val.ValuesKind != 0 {
		return true
	}
	u := plan.Underlying(val)
	switch u.Kind {
	case plan.Float, plan.ID:
		return true
	case plan.Raw:
		if u.RawKind != wire.KindInvalid {
			return true
		}
	case plan.Named:
		return v.needs[u.Type]
	case plan.List, plan.Dict:
		return !u.Checks.Empty() || v.valueNeeds(u.Elem)
	}
	return !u.Checks.Empty() || len(u.Members) > 0 || u.ValuesKind != 0
}

func (v *validators) structBody(t *plan.Type) []jen.Code {
	var body []jen.Code
	for _, fl := range t.Fields {
		if fl.Required {
			w, m := bit(fl.Index)
			body = append(body, jen.If(jen.Id("x").Dot("missing").Index(jen.Lit(w)).Op("&").Lit(m).Op("!=").Lit(0)).Block(
				jen.Id("c").Dot("Missing").Call(jen.Id("p"), jen.Lit(fl.JSON)),
			))
		}
	}
	for _, fl := range t.Fields {
		tgt := jen.Id("x").Dot(fl.Go)
		fp := jen.Id("fp").Op(":=").Id("p").Dot("Member").Call(jen.Lit(fl.JSON))
		if fl.Const != nil {
			if fl.Repr == plan.Optional {
				body = append(body, jen.If(cl(tgt).Dot("Set").Op("&&").Add(cl(tgt)).Dot("Value").Op("!=").Id(fl.ConstGo)).Block(
					fp, jen.Id("c").Dot("Const").Call(jen.Op("&").Id("fp"), jen.Lit(fl.ConstGo)),
				))
			}
			continue
		}
		if fl.Value == nil || !v.valueNeeds(fl.Value) {
			continue
		}
		if checkedRaw(fl) {
			name := rawMembersVar(t, fl)
			v.f.Var().Id(name).Op("=").Add(rawMemberList(plan.Underlying(fl.Value).Members))
			check := jen.If(jen.Op("!").Add(iq("Same")).Call(cl(tgt), jen.Id("x").Dot(checkedName(fl)))).Block(
				fp, jen.Id("c").Dot("RawMembers").Call(jen.Op("&").Id("fp"), cl(tgt), jen.Id(name)),
			)
			if _, ok := minimalObject(plan.Underlying(fl.Value).Members); fl.Required && !ok {
				// nil has no encoding that holds the required members.
				check = jen.If(cl(tgt).Op("==").Nil()).Block(
					fp, jen.Id("c").Dot("Add").Call(jen.Op("&").Id("fp"), jen.Lit("must be set: nil cannot be written as an object holding the required members")),
				).Else().Add(check)
			}
			if fl.Required {
				body = append(body, jen.If(notMissing(fl)).Block(check))
			} else {
				body = append(body, jen.If(cl(tgt).Op("!=").Nil()).Block(check))
			}
			continue
		}
		if fl.Repr == plan.Pointer {
			body = append(body, jen.If(cl(tgt).Op("!=").Nil()).Block(fp, validateCall(fl.Value, cl(tgt), jen.Op("&").Id("fp"))))
			continue
		}
		// v.value is called once per field: it declares package-level
		// variables (compiled patterns, raw member lists) as it goes.
		x := tgt
		if fl.Repr == plan.Optional {
			x = cl(tgt).Dot("Value")
		}
		checks := v.value(fl.Value, x, jen.Op("&").Id("fp"))
		if len(checks) == 0 {
			continue
		}
		inner := append([]jen.Code{fp}, checks...)
		switch {
		case fl.Repr == plan.Optional:
			body = append(body, jen.If(cl(tgt).Dot("Set")).Block(inner...))
		case fl.Required:
			body = append(body, jen.If(notMissing(fl)).Block(inner...))
		default:
			body = append(body, jen.If(present(fl.Value, tgt)).Block(inner...))
		}
	}
	return body
}

func (v *validators) unionBody(t *plan.Type) []jen.Code {
	return unionMembers(t, v.pkg, func(vr *plan.Variant, x *jen.Statement) []jen.Code {
		switch variantRepr(vr) {
		case plan.Pointer:
			return []jen.Code{validateCall(vr.Value, cl(x), jen.Id("p"))}
		case plan.Optional:
			return v.value(vr.Value, cl(x).Dot("Value"), jen.Id("p"))
		}
		return v.value(vr.Value, x, jen.Id("p"))
	})
}

// unionMembers is the body shared by a union's Validate and Encodable:
// each member that is set counts and gets check's statements (x is the
// member's field), and a count other than one is reported with
// Checker.Union, naming the type and its members.
func unionMembers(t *plan.Type, pkg string, check func(vr *plan.Variant, x *jen.Statement) []jen.Code) []jen.Code {
	body := []jen.Code{jen.Id("n").Op(":=").Lit(0)}
	var names []string
	for _, vr := range t.Variants {
		names = append(names, vr.Go)
		x := jen.Id("x").Dot(vr.Go)
		inner := append([]jen.Code{jen.Id("n").Op("++")}, check(vr, x)...)
		body = append(body, jen.If(isSet(jen.Id("x"), vr)).Block(inner...))
	}
	return append(body, jen.If(jen.Id("n").Op("!=").Lit(1)).Block(
		jen.Id("c").Dot("Union").Call(jen.Id("p"), jen.Lit(pkg+"."+t.Name), jen.Id("n"), jen.Lit(strings.Join(names, ", "))),
	))
}

// verbatim checks a named free-form value: JSON of its kind (nil, absent,
// encodes as the kind's empty value), then what its schema says of its
// members.
func (v *validators) verbatim(t *plan.Type) []jen.Code {
	raw := wq("Raw").Call(jen.Op("*").Id("x"))
	body := []jen.Code{jen.Id("c").Dot("RawJSON").Call(jen.Id("p"), raw, kindConst(t.Elem.RawKind))}
	elem := *t.Elem
	elem.RawKind = wire.KindInvalid // RawJSON checked the kind
	return append(body, v.checks(&elem, raw, jen.Id("p"))...)
}

// value checks expression x (of value val) at path p.
func (v *validators) value(val *plan.Value, x *jen.Statement, p jen.Code) []jen.Code {
	body := v.checks(val, x, p)
	u := plan.Underlying(val)
	switch u.Kind {
	case plan.Named:
		if v.needs[u.Type] {
			body = append(body, validateCall(val, cl(x), p))
		}
	case plan.List:
		if v.valueNeeds(u.Elem) {
			body = append(body, jen.For(jen.Id("i").Op(":=").Range().Add(cl(x))).Block(
				append([]jen.Code{jen.Id("ep").Op(":=").Parens(p).Dot("Elem").Call(jen.Id("i"))}, v.value(u.Elem, cl(x).Index(jen.Id("i")), jen.Op("&").Id("ep"))...)...,
			))
		}
	case plan.Dict:
		if v.valueNeeds(u.Elem) {
			body = append(body, jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Add(iq("SortedKeys")).Call(cl(x))).Block(
				append([]jen.Code{
					jen.Id("ep").Op(":=").Parens(p).Dot("Member").Call(jen.Id("k")),
					jen.Id("ev").Op(":=").Add(cl(x)).Index(jen.Id("k")),
				}, v.value(u.Elem, jen.Id("ev"), jen.Op("&").Id("ep"))...)...,
			))
		}
	}
	return body
}

// checks applies the keyword checks attached to val to expression x.
func (v *validators) checks(val *plan.Value, x *jen.Statement, p jen.Code) []jen.Code {
	var body []jen.Code
	c := val.Checks
	u := plan.Underlying(val)
	num := func(f *float64) jen.Code { return jen.Lit(*f) }
	count := func(i *int) jen.Code {
		if i == nil {
			return jen.Lit(-1)
		}
		return jen.Lit(*i)
	}
	switch u.Kind {
	case plan.Int:
		body = append(body, intBounds(c, cl(x), p)...)
		if c.MultipleOf != nil {
			body = append(body, jen.Id("c").Dot("MultipleOfInt").Call(p, cl(x), decimalLit(*c.MultipleOf)))
		}
	case plan.Float:
		// Exact: a decoded float64 stands for its shortest decimal (decoding
		// refuses numbers it would round), so does a bound (the schema
		// loader refuses bounds a float64 would round), and the shortest
		// decimals of float64s are in the order of the float64s.
		fx := jen.Float64().Parens(cl(x))
		body = append(body, jen.Id("c").Dot("Finite").Call(p, fx))
		if c.Minimum != nil {
			body = append(body, jen.Id("c").Dot("Minimum").Call(p, fx, num(c.Minimum)))
		}
		if c.Maximum != nil {
			body = append(body, jen.Id("c").Dot("Maximum").Call(p, fx, num(c.Maximum)))
		}
		if c.ExclusiveMinimum != nil {
			body = append(body, jen.Id("c").Dot("ExclusiveMinimum").Call(p, fx, num(c.ExclusiveMinimum)))
		}
		if c.ExclusiveMaximum != nil {
			body = append(body, jen.Id("c").Dot("ExclusiveMaximum").Call(p, fx, num(c.ExclusiveMaximum)))
		}
		if c.MultipleOf != nil {
			body = append(body, jen.Id("c").Dot("MultipleOf").Call(p, fx, decimalLit(*c.MultipleOf)))
		}
	case plan.String:
		if c.MinLength != nil || c.MaxLength != nil {
			body = append(body, jen.Id("c").Dot("Length").Call(p, jen.Lit("characters"), jen.Qual("unicode/utf8", "RuneCountInString").Call(cl(x)), count(c.MinLength), count(c.MaxLength)))
		}
		if c.Format != "" {
			body = append(body, jen.Id("c").Dot("Format").Call(p, jen.Lit(c.Format), cl(x)))
		}
		if c.Pattern != "" {
			v.patterns++
			name := fmt.Sprintf("pattern%d", v.patterns)
			if _, err := regexp.Compile(c.Pattern); err == nil {
				v.f.Var().Id(name).Op("=").Qual("regexp", "MustCompile").Call(jen.Lit(c.Pattern))
				body = append(body, jen.If(jen.Op("!").Id(name).Dot("MatchString").Call(cl(x))).Block(
					jen.Id("c").Dot("Add").Call(p, jen.Lit("must match "+c.Pattern)),
				))
			}
		}
	case plan.List:
		if c.MinItems != nil || c.MaxItems != nil {
			body = append(body, jen.Id("c").Dot("Length").Call(p, jen.Lit("items"), jen.Len(cl(x)), count(c.MinItems), count(c.MaxItems)))
		}
	case plan.ID:
		body = append(body, jen.Id("c").Dot("ID").Call(p, cl(x)))
	case plan.Raw:
		if u.RawKind != wire.KindInvalid {
			body = append(body, jen.Id("c").Dot("RawKind").Call(p, cl(x), kindConst(u.RawKind)))
		}
		if u.ValuesKind != 0 {
			body = append(body, jen.Id("c").Dot("RawValues").Call(p, cl(x), kindConst(u.ValuesKind)))
		}
		if len(u.Members) > 0 {
			v.members++
			name := fmt.Sprintf("rawMembers%d", v.members)
			v.f.Var().Id(name).Op("=").Add(rawMemberList(u.Members))
			body = append(body, jen.Id("c").Dot("RawMembers").Call(p, cl(x), jen.Id(name)))
		}
	}
	return body
}

// intBounds checks an integer's bounds in int64 arithmetic: each bound
// becomes the inclusive int64 bound it equals on the integers (minimum 0.5
// and exclusiveMinimum 0 are MinimumInt 1). A bound no int64 can meet is
// a violation whatever the value; one every int64 meets is no check.
func intBounds(c plan.Checks, x *jen.Statement, p jen.Code) []jen.Code {
	var body []jen.Code
	for _, b := range []struct {
		bound            *float64
		lower, exclusive bool
		kw               string
	}{
		{c.Minimum, true, false, ">="}, {c.ExclusiveMinimum, true, true, ">"},
		{c.Maximum, false, false, "<="}, {c.ExclusiveMaximum, false, true, "<"},
	} {
		if b.bound == nil {
			continue
		}
		n, always, never := intBound(*b.bound, b.lower, b.exclusive)
		switch {
		case always:
		case never:
			body = append(body, jen.Id("c").Dot("Add").Call(p, jen.Lit("must be "+b.kw+" "+strconv.FormatFloat(*b.bound, 'g', -1, 64)+" (no int64 is)")))
		case b.lower:
			body = append(body, jen.Id("c").Dot("MinimumInt").Call(p, x, intLit(n)))
		default:
			body = append(body, jen.Id("c").Dot("MaximumInt").Call(p, x, intLit(n)))
		}
	}
	return body
}

// intBound is the inclusive int64 bound that bound b (a lower or an upper
// one, exclusive or not) sets on integers: v >= n for a lower bound, v <= n
// for an upper one. always: every int64 meets b; never: none does.
func intBound(b float64, lower, exclusive bool) (n int64, always, never bool) {
	r := new(big.Rat).SetFloat64(b)                               // exact: a float64 is a binary fraction
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int)) // q = floor(b)
	if lower && (exclusive || m.Sign() != 0) {
		q.Add(q, big.NewInt(1)) // v > b, or v >= a fraction: v >= floor(b)+1
	}
	if !lower && exclusive && m.Sign() == 0 {
		q.Sub(q, big.NewInt(1)) // v < b for an integral b: v <= b-1
	}
	switch {
	case q.IsInt64():
		return q.Int64(), false, false
	case q.Sign() > 0:
		return 0, !lower, lower
	}
	return 0, lower, !lower
}

// intLit writes n as an untyped constant (jen.Lit would write int64(n)).
func intLit(n int64) jen.Code { return jen.Id(strconv.FormatInt(n, 10)) }

// decimalLit is the wireimpl.Decimal literal of a multipleOf: its shortest
// decimal (the decimal the schema writes) as digits × 10^exp.
func decimalLit(f float64) jen.Code {
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	d, _ := strconv.ParseUint(digits, 10, 64)
	return iq("Decimal").Values(
		jen.Id("Digits").Op(":").Id(strconv.FormatUint(d, 10)),
		jen.Id("Exp").Op(":").Lit(e-(len(digits)-1)),
		jen.Id("Text").Op(":").Lit(strconv.FormatFloat(f, 'g', -1, 64)),
	)
}

// rawMemberList is the []wire.RawMember literal of a verbatim object's
// declared members.
func rawMemberList(members []plan.RawMember) jen.Code {
	var ms []jen.Code
	for _, m := range members {
		d := jen.Dict{jen.Id("Name"): jen.Lit(m.Name), jen.Id("Kind"): kindOfValue(m.Kind)}
		if m.Required {
			d[jen.Id("Required")] = jen.True()
		}
		if m.Const != nil {
			d[jen.Id("Const")] = jen.Lit(string(m.Const))
		}
		ms = append(ms, jen.Values(d))
	}
	return jen.Index().Add(iq("RawMember")).Values(ms...)
}

func kindOfValue(k plan.ValueKind) jen.Code {
	switch k {
	case plan.String:
		return wq("KindString")
	case plan.Bool:
		return wq("KindBool")
	}
	return wq("KindNumber")
}
