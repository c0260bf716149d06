package emit

import (
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/plan"
)

// shapesFile writes the shape of every type (wireimpl.Shape: declared
// members, element and variant shapes) and the Shapes table of the
// definitions, for converting values between revisions.
func shapesFile(f *jen.File, pkg *plan.Package) {
	f.Commentf("%s describes the schema definitions of this package for mcpgen", plan.ManifestConst)
	f.Comment("-reuse (cmd/mcpgen/internal/plan/reuse.go): the schema, then per definition its")
	f.Comment("name, JSON pointer, Go kind and a digest of its structure.")
	f.Const().Id(plan.ManifestConst).Op("=").Id("`" + plan.Manifest(pkg) + "`")
	f.Line()
	var named []*plan.Type
	for _, t := range pkg.Types {
		if hasShape(t) {
			named = append(named, t)
		}
	}
	if len(named) == 0 {
		return
	}
	var vars []jen.Code
	for _, t := range named {
		vars = append(vars, jen.Id(shapeVar(t)).Op("=").Op("&").Add(iq("Shape")).Values())
	}
	f.Comment("The shape of each type; init fills them in (types refer to each other).")
	f.Var().Defs(vars...)
	f.Line()
	var body []jen.Code
	for _, t := range named {
		v := jen.Id(shapeVar(t))
		switch t.Kind {
		case plan.Struct:
			members := jen.Dict{}
			for _, fl := range t.Fields {
				members[jen.Lit(fl.JSON)] = shapeOf(fl.Value)
			}
			body = append(body, cl(v).Dot("Members").Op("=").Map(jen.String()).Op("*").Add(iq("Shape")).Values(members))
		case plan.Union:
			var vs []jen.Code
			for _, vr := range t.Variants {
				vs = append(vs, shapeOf(vr.Value))
			}
			body = append(body, cl(v).Dot("Variants").Op("=").Index().Op("*").Add(iq("Shape")).Values(vs...))
		case plan.Map, plan.Slice:
			body = append(body, cl(v).Dot("Elem").Op("=").Add(shapeOf(t.Elem.Elem)))
		}
	}
	f.Func().Id("init").Params().Block(body...)
	f.Line()
	defs := jen.Dict{}
	var names []string
	for _, t := range pkg.Types {
		if t.Def {
			names = append(names, t.Name)
		}
	}
	sort.Strings(names)
	byName := map[string]*plan.Type{}
	for _, t := range pkg.Types {
		byName[t.Name] = t
	}
	for _, n := range names {
		defs[jen.Lit(n)] = shapeOf(&plan.Value{Kind: plan.Named, Type: byName[n]})
	}
	f.Comment("Shapes are the shapes of the schema's definitions, by name (nil for")
	f.Comment("definitions with nothing declared inside: scalars, free-form JSON).")
	f.Var().Id("Shapes").Op("=").Map(jen.String()).Op("*").Add(iq("Shape")).Values(defs)
}

// hasShape reports whether a type gets a shape variable of its own.
func hasShape(t *plan.Type) bool {
	if t.Reused != nil {
		return false // its package has the shape
	}
	switch t.Kind {
	case plan.Struct, plan.Union:
		return true
	case plan.Map, plan.Slice:
		return shapeNeeded(t.Elem.Elem)
	}
	return false
}

func shapeVar(t *plan.Type) string { return "shape" + t.Name }

// shapeNeeded reports whether a value has anything declared inside.
func shapeNeeded(v *plan.Value) bool {
	if v == nil {
		return false
	}
	if r := reusedType(v); r != nil {
		return true
	}
	u := plan.Underlying(v)
	switch u.Kind {
	case plan.Named:
		return hasShape(u.Type)
	case plan.List, plan.Dict:
		return shapeNeeded(u.Elem)
	}
	return false // scalars and verbatim values (kept byte for byte)
}

// shapeOf is the shape expression of a value: a shape variable, an
// element shape, or nil.
func shapeOf(v *plan.Value) jen.Code {
	if !shapeNeeded(v) {
		return jen.Nil()
	}
	if r := reusedType(v); r != nil {
		return jen.Qual(r.Reused.Path, "Shapes").Index(jen.Lit(r.Name))
	}
	u := plan.Underlying(v)
	switch u.Kind {
	case plan.Named:
		return jen.Id(shapeVar(u.Type))
	case plan.List, plan.Dict:
		return jen.Op("&").Add(iq("Shape")).Values(jen.Dict{jen.Id("Elem"): shapeOf(u.Elem)})
	}
	return jen.Nil()
}

// reusedType is the reused definition v names (directly or through
// aliases), or nil.
func reusedType(v *plan.Value) *plan.Type {
	for i := 0; v != nil && v.Kind == plan.Named && i < 64; i++ {
		if v.Type.Reused != nil {
			return v.Type
		}
		if v.Type.Kind != plan.Alias {
			return nil
		}
		v = v.Type.Elem
	}
	return nil
}
