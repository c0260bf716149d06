package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/plan"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// typesFile declares every type.
func typesFile(f *jen.File, pkg *plan.Package) {
	for _, t := range pkg.Types {
		if t.Reused != nil {
			f.Add(reusedDoc(t))
			f.Type().Id(t.Name).Op("=").Qual(t.Reused.Path, t.Name)
			f.Line()
			continue
		}
		f.Add(typeDoc(t))
		switch t.Kind {
		case plan.Struct:
			f.Type().Id(t.Name).Struct(structFields(t)...)
		case plan.Union:
			var fields []jen.Code
			for _, v := range t.Variants {
				fields = append(fields, jen.Id(v.Go).Add(variantType(v)))
			}
			f.Type().Id(t.Name).Struct(fields...)
		case plan.Enum:
			f.Type().Id(t.Name).String()
			var consts []jen.Code
			for i, v := range t.Values {
				consts = append(consts, jen.Id(t.Consts[i]).Id(t.Name).Op("=").Lit(v))
			}
			f.Const().Defs(consts...)
		case plan.Scalar, plan.Map, plan.Slice:
			f.Type().Id(t.Name).Add(goType(t.Elem))
		case plan.Alias:
			f.Type().Id(t.Name).Op("=").Add(goType(t.Elem))
		case plan.Verbatim:
			f.Type().Id(t.Name).Add(wq("Raw"))
		}
		f.Line()
	}
}

func typeDoc(t *plan.Type) jen.Code {
	var b strings.Builder
	if t.Def {
		fmt.Fprintf(&b, "%s is the schema definition %q.", t.Name, t.Name)
	} else {
		fmt.Fprintf(&b, "%s is the inline schema at %s.", t.Name, t.Pointer)
	}
	switch t.Kind {
	case plan.Union:
		b.WriteString(" It holds exactly one of its members;")
		b.WriteString(" the others are unset.")
	case plan.Verbatim:
		b.WriteString(" It is free-form JSON" + kindPhrase(t.Elem.RawKind) + ", kept verbatim; nil is absent.")
	case plan.Alias:
		if plan.Underlying(t.Elem).Kind == plan.ID {
			b.WriteString(" It is the JSON-RPC request id, a string or an integer: wire.ID.")
		}
	}
	if t.Doc != "" {
		b.WriteString("\n\n")
		b.WriteString(t.Doc)
	}
	if c := docComment(b.String()); c != nil {
		return c
	}
	return jen.Null()
}

func structFields(t *plan.Type) []jen.Code {
	var fields []jen.Code
	for _, f := range t.Fields {
		if f.Repr == plan.NoField {
			continue
		}
		var d strings.Builder
		d.WriteString(f.Doc)
		if f.Const != nil {
			if d.Len() > 0 {
				d.WriteString("\n\n")
			}
			fmt.Fprintf(&d, "When set it must be %s.", f.Const)
		}
		if note := presenceNote(f); note != "" {
			if d.Len() > 0 {
				d.WriteString("\n\n")
			}
			d.WriteString(note)
		}
		fields = append(fields, jen.Add(doc(d.String())).Id(f.Go).Add(fieldType(f)))
	}
	if t.Extra {
		fields = append(fields, jen.Add(doc("Extra holds members the schema does not declare, verbatim and in the\norder they arrived; they are written back after the declared members.")).Id("Extra").Add(wq("Members")))
	}
	if n := len(requiredFields(t)); n > 0 {
		fields = append(fields, jen.Add(doc("missing records required members absent from decoded input, so that\nValidate reports them and encoding does not invent them.")).Id("missing").Index(jen.Lit(words(len(t.Fields)))).Uint64())
	}
	for _, f := range t.Fields {
		if checkedRaw(f) {
			fields = append(fields, jen.Add(doc(checkedName(f)+" is "+f.Go+" as decoded, when its declared members passed the\ncheck made while scanning it; Validate trusts "+f.Go+" while it is still that slice.")).Id(checkedName(f)).Add(wq("Raw")))
		}
	}
	return fields
}

func presenceNote(f *plan.Field) string {
	if f.Required {
		u := plan.Underlying(f.Value)
		switch {
		case u.Kind == plan.List:
			return "Required: a nil slice is written as []."
		case u.Kind == plan.Raw && u.RawKind == wire.KindObject:
			if lit, ok := minimalObject(u.Members); ok {
				return "Required: nil is written as " + lit + "."
			}
			return "Required: nil has no encoding; Validate reports it."
		case u.Kind == plan.Raw && u.RawKind == wire.KindArray:
			return "Required: nil is written as []."
		}
		return ""
	}
	switch f.Repr {
	case plan.Plain:
		u := plan.Underlying(f.Value)
		switch {
		case u.Kind == plan.Named && u.Type.Kind == plan.Union:
			return "Optional: absent when no member is set."
		case u.Kind == plan.Raw:
			return "Optional: nil means absent (the JSON literal null is present)."
		default:
			return "Optional: nil means absent; an empty value is written."
		}
	case plan.Pointer:
		return "Optional: nil means absent."
	}
	return ""
}

// kindPhrase names the JSON kind a free-form value must have.
func kindPhrase(k wire.Kind) string {
	switch k {
	case wire.KindObject:
		return " (an object)"
	case wire.KindArray:
		return " (an array)"
	}
	return ""
}

// reusedDoc documents the alias of a reused definition.
func reusedDoc(t *plan.Type) jen.Code {
	r := t.Reused
	return docComment(fmt.Sprintf("%s is the schema definition %q: the type of package %s, whose schema\ndeclares it with the same structure (%s#%s);\nmcpgen -reuse %s.",
		t.Name, t.Name, r.Package, r.Source, r.Defs[t.Name].Pointer, r.Path))
}
