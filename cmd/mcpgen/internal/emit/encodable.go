package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/plan"
)

// Encoding cannot fail, and a union that does not hold exactly one member
// has no faithful encoding: EncodeJSON writes null for none and the first
// for several, which decodes as something else or not at all. Every type
// therefore gets Encodable, which finds such unions (x included) without
// the rest of Validate's checks; MarshalJSON and the package's Marshal
// call it (through wireimpl.Marshal) and return its error instead of
// output. EncodeJSON keeps no error: it is called by streaming writers
// (the JSON-RPC envelope) which cannot take one back, and those check the
// value first (Encodable or Validate).

// unionReach finds the types whose encodable can record anything: unions,
// and every type holding one.
func unionReach(types []*plan.Type) map[*plan.Type]bool {
	reach := map[*plan.Type]bool{}
	var valueReach func(v *plan.Value) bool
	valueReach = func(v *plan.Value) bool {
		u := plan.Underlying(v)
		switch u.Kind {
		case plan.Named:
			return reach[u.Type]
		case plan.List, plan.Dict:
			return valueReach(u.Elem)
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		for _, t := range types {
			if reach[t] {
				continue
			}
			r := false
			switch {
			case t.Reused != nil:
				// Another package's type: its Encodable decides (and
				// returns nil at once when it holds no union).
				r = t.Kind != plan.Scalar && t.Kind != plan.Enum
			case t.Kind == plan.Union:
				r = true
			case t.Kind == plan.Struct:
				for _, fl := range t.Fields {
					if fl.Value != nil && fl.Repr != plan.NoField && valueReach(fl.Value) {
						r = true
					}
				}
			case t.Kind == plan.Map || t.Kind == plan.Slice:
				r = valueReach(t.Elem.Elem)
			}
			if r {
				reach[t], changed = true, true
			}
		}
	}
	return reach
}

type encodables struct {
	pkg   string
	reach map[*plan.Type]bool
}

// encodableMethods writes Encodable and encodable for t.
func (en *encodables) methods(f *jen.File, t *plan.Type) {
	if t.Kind == plan.Alias {
		return
	}
	f.Comment("Encodable reports what EncodeJSON cannot write as x means: a union (x or one")
	f.Comment("inside it) holding no member where a value is needed, or several. It returns a")
	f.Comment("*wire.EncodeError naming each, or nil. MarshalJSON and Marshal call it first.")
	if !en.reach[t] {
		f.Func().Params(recvFor(t)).Id("Encodable").Params().Error().Block(jen.Return(jen.Nil()))
		f.Line()
		return
	}
	f.Func().Params(recvFor(t)).Id("Encodable").Params().Error().Block(
		jen.Var().Id("c").Add(iq("Checker")),
		jen.Id("x").Dot("encodable").Call(jen.Op("&").Id("c"), jen.Nil()),
		jen.Return(jen.Id("c").Dot("EncodeErr").Call()),
	)
	f.Line()
	var body []jen.Code
	switch t.Kind {
	case plan.Struct:
		body = en.structBody(t)
	case plan.Union:
		body = en.unionBody(t)
	case plan.Map, plan.Slice:
		body = en.value(t.Elem, jen.Parens(jen.Op("*").Id("x")), jen.Id("p"))
	}
	f.Func().Params(recvFor(t)).Id("encodable").Params(jen.Id("c").Op("*").Add(iq("Checker")), jen.Id("p").Op("*").Add(iq("Path"))).Block(body...)
	f.Line()
}

func (en *encodables) valueReach(v *plan.Value) bool {
	u := plan.Underlying(v)
	switch u.Kind {
	case plan.Named:
		return en.reach[u.Type]
	case plan.List, plan.Dict:
		return en.valueReach(u.Elem)
	}
	return false
}

func (en *encodables) structBody(t *plan.Type) []jen.Code {
	var body []jen.Code
	for _, fl := range t.Fields {
		if fl.Value == nil || fl.Repr == plan.NoField || !en.valueReach(fl.Value) {
			continue
		}
		tgt := jen.Id("x").Dot(fl.Go)
		fp := jen.Id("fp").Op(":=").Id("p").Dot("Member").Call(jen.Lit(fl.JSON))
		if fl.Repr == plan.Pointer {
			body = append(body, jen.If(cl(tgt).Op("!=").Nil()).Block(fp, en.call(fl.Value, tgt, jen.Op("&").Id("fp"))))
			continue
		}
		inner := append([]jen.Code{fp}, en.value(fl.Value, tgt, jen.Op("&").Id("fp"))...)
		switch {
		case fl.Required:
			// A required member missing from decoded input is not written.
			body = append(body, jen.If(notMissing(fl)).Block(inner...))
		default:
			// An optional member is absent when unset (a union with no
			// member, a nil slice or map).
			body = append(body, jen.If(present(fl.Value, tgt)).Block(inner...))
		}
	}
	return body
}

func (en *encodables) unionBody(t *plan.Type) []jen.Code {
	return unionMembers(t, en.pkg, func(vr *plan.Variant, x *jen.Statement) []jen.Code {
		if !en.valueReach(vr.Value) {
			return nil
		}
		if variantRepr(vr) == plan.Pointer {
			return []jen.Code{en.call(vr.Value, x, jen.Id("p"))}
		}
		return en.value(vr.Value, x, jen.Id("p"))
	})
}

// value checks expression x (of value v) at path p.
func (en *encodables) value(v *plan.Value, x *jen.Statement, p jen.Code) []jen.Code {
	u := plan.Underlying(v)
	switch u.Kind {
	case plan.Named:
		if en.reach[u.Type] {
			return []jen.Code{en.call(v, x, p)}
		}
	case plan.List:
		if en.valueReach(u.Elem) {
			return []jen.Code{jen.For(jen.Id("i").Op(":=").Range().Add(cl(x))).Block(
				append([]jen.Code{jen.Id("ep").Op(":=").Parens(p).Dot("Elem").Call(jen.Id("i"))}, en.value(u.Elem, cl(x).Index(jen.Id("i")), jen.Op("&").Id("ep"))...)...,
			)}
		}
	case plan.Dict:
		if en.valueReach(u.Elem) {
			return []jen.Code{jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Add(iq("SortedKeys")).Call(cl(x))).Block(
				append([]jen.Code{
					jen.Id("ep").Op(":=").Parens(p).Dot("Member").Call(jen.Id("k")),
					jen.Id("ev").Op(":=").Add(cl(x)).Index(jen.Id("k")),
				}, en.value(u.Elem, jen.Id("ev"), jen.Op("&").Id("ep"))...)...,
			)}
		}
	}
	return nil
}

// call checks x, a value of named type v, at path p: through its
// encodable, or, for a type of another package (mcpgen -reuse), through
// its Encodable, whose findings are placed under p.
func (en *encodables) call(v *plan.Value, x *jen.Statement, p jen.Code) jen.Code {
	if u := plan.Underlying(v); u.Kind == plan.Named && u.Type.Reused != nil {
		return jen.Id("c").Dot("Sub").Call(p, cl(x).Dot("Encodable").Call())
	}
	return cl(x).Dot("encodable").Call(jen.Id("c"), p)
}
