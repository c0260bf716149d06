package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/plan"
)

// factsFile writes what the runtime needs to know about the revision
// besides its types and their codecs: the values of resultType, reserved
// _meta keys, constant strings, the order of log levels, capability
// lookups, caching-hint and _meta accessors.
func factsFile(f *jen.File, pkg *plan.Package) {
	if x := pkg.Extension; x != nil {
		f.Comment("ExtensionID identifies the extension these bindings are for: its key under")
		f.Comment("capabilities.extensions, in both directions.")
		f.Const().Id("ExtensionID").Op("=").Lit(x.ID)
		f.Line()
	}
	if len(pkg.ResultTypes) > 0 {
		var cs []jen.Code
		for _, r := range pkg.ResultTypes {
			c := jen.Id(r.Const)
			if pkg.ResultTypeType != nil {
				c = c.Id(pkg.ResultTypeType.Name)
			}
			cs = append(cs, jen.Commentf("%s is the resultType %q.", r.Const, r.Value), c.Op("=").Lit(r.Value))
		}
		f.Comment("The values of resultType (a result without one is complete).")
		f.Const().Defs(cs...)
		f.Line()
	}
	if len(pkg.MetaKeys) > 0 {
		var cs []jen.Code
		for _, k := range pkg.MetaKeys {
			where := "reserved"
			if k.Def != "" {
				where = "declared by " + k.Def
			}
			cs = append(cs, jen.Commentf("%s is the _meta key %q (%s).", k.Const, k.Key, where), jen.Id(k.Const).Op("=").Lit(k.Key))
		}
		f.Comment("Reserved _meta keys.")
		f.Const().Defs(cs...)
		f.Line()
	}
	if len(pkg.ConstStrings) > 0 {
		var cs []jen.Code
		for _, c := range pkg.ConstStrings {
			cs = append(cs, jen.Commentf("%s is the value %s fixes for %q.", c.Const, c.Def, c.Member), jen.Id(c.Const).Op("=").Lit(c.Value))
		}
		f.Comment("The constant strings definitions fix for a member.")
		f.Const().Defs(cs...)
		f.Line()
	}
	if ll := pkg.LogLevels; ll != nil && ll.Type.Reused == nil {
		var cases []jen.Code
		for i, v := range ll.Order {
			cases = append(cases, jen.Case(jen.Id(ll.Type.Consts[indexOf(ll.Type.Values, v)])).Block(jen.Return(jen.Lit(i))))
		}
		f.Commentf("Severity orders the levels, lowest first (%s), from 0; -1 for a value", strings.Join(ll.Order, " < "))
		f.Comment("outside the enumeration.")
		f.Func().Params(jen.Id("x").Id(ll.Type.Name)).Id("Severity").Params().Int().Block(
			jen.Switch(jen.Id("x")).Block(cases...),
			jen.Return(jen.Lit(-1)),
		)
		f.Line()
	}
	for _, t := range pkg.Types {
		if !t.Def || t.Reused != nil || t.Kind != plan.Struct {
			continue // a reused type has its methods in its own package
		}
		if strings.HasSuffix(t.Name, "Capabilities") {
			capabilityLookup(f, t)
		}
		if strings.HasSuffix(t.Name, "MetaObject") {
			declares(f, t)
		}
		metaAccessor(f, t)
	}
	for _, t := range cacheableTypes(pkg) {
		cacheHints(f, pkg, t)
	}
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// capabilityLookup writes Has: whether a capability, named by its member
// ("tools") or a member of that ("resources.subscribe"), is declared.
func capabilityLookup(f *jen.File, t *plan.Type) {
	var cases []jen.Code
	for _, fl := range t.Fields {
		if fl.Repr == plan.NoField {
			continue
		}
		top := declared(fl, jen.Id("x").Dot(fl.Go))
		cases = append(cases, jen.Case(jen.Lit(fl.JSON)).Block(jen.Return(top)))
		u := plan.Underlying(fl.Value)
		if fl.Repr != plan.Pointer || u.Kind != plan.Named || u.Type.Kind != plan.Struct {
			continue
		}
		for _, sub := range u.Type.Fields {
			if sub.Repr == plan.NoField {
				continue
			}
			cases = append(cases, jen.Case(jen.Lit(fl.JSON+"."+sub.JSON)).Block(
				jen.Return(cl(top).Op("&&").Add(declared(sub, jen.Id("x").Dot(fl.Go).Dot(sub.Go)))),
			))
		}
	}
	f.Comment("Has reports whether the capability named by its member (\"" + firstJSON(t) + "\") or by a member of")
	f.Comment("that (\"a.b\") is declared: present, and true for a boolean flag.")
	f.Func().Params(recv(t)).Id("Has").Params(jen.Id("name").String()).Bool().Block(
		jen.If(jen.Id("x").Op("==").Nil()).Block(jen.Return(jen.False())),
		jen.Switch(jen.Id("name")).Block(cases...),
		jen.Return(jen.False()),
	)
	f.Line()
}

func firstJSON(t *plan.Type) string {
	for _, fl := range t.Fields {
		return fl.JSON
	}
	return ""
}

// declared is the condition under which field fl of expression x says a
// capability is declared.
func declared(fl *plan.Field, x *jen.Statement) *jen.Statement {
	switch fl.Repr {
	case plan.Optional:
		if fl.Value.Kind == plan.Bool {
			return cl(x).Dot("Set").Op("&&").Add(cl(x)).Dot("Value")
		}
		return cl(x).Dot("Set")
	case plan.Pointer:
		return cl(x).Op("!=").Nil()
	}
	if fl.Required {
		return jen.True()
	}
	return present(fl.Value, x)
}

// declares writes Declares for a _meta object: whether it declares key.
func declares(f *jen.File, t *plan.Type) {
	var keys []jen.Code
	for _, fl := range t.Fields {
		keys = append(keys, jen.Lit(fl.JSON))
	}
	body := []jen.Code{jen.Return(jen.False())}
	if len(keys) > 0 {
		body = []jen.Code{jen.Switch(jen.Id("key")).Block(jen.Case(keys...).Block(jen.Return(jen.True()))), jen.Return(jen.False())}
	}
	f.Commentf("Declares reports whether %s declares the _meta key key (its other", t.Name)
	f.Comment("members go to Extra).")
	f.Func().Params(jen.Id(t.Name)).Id("Declares").Params(jen.Id("key").String()).Bool().Block(body...)
	f.Line()
}

// metaAccessor writes, for a struct whose _meta member is a *MetaObject
// definition, an accessor named after it: RequestMeta() *RequestMetaObject
// (nil when an optional _meta is absent), so the runtime reads the _meta of
// any params or result without knowing its type.
func metaAccessor(f *jen.File, t *plan.Type) {
	for _, fl := range t.Fields {
		if fl.JSON != "_meta" || fl.Value == nil {
			continue
		}
		u := plan.Underlying(fl.Value)
		if u.Kind != plan.Named || u.Type.Kind != plan.Struct || !strings.HasSuffix(u.Type.Name, "MetaObject") {
			return
		}
		name := strings.TrimSuffix(u.Type.Name, "Object")
		if name == "Meta" { // MetaObject: the field itself is the accessor
			return
		}
		var ret jen.Code = jen.Op("&").Id("x").Dot(fl.Go)
		if fl.Repr == plan.Pointer {
			ret = jen.Id("x").Dot(fl.Go)
		}
		f.Commentf("%s returns the _meta member (nil when absent).", name)
		f.Func().Params(recv(t)).Id(name).Params().Op("*").Id(u.Type.Name).Block(jen.Return(ret))
		f.Line()
		return
	}
}

// cacheableTypes are the final results of cacheable methods.
func cacheableTypes(pkg *plan.Package) []*plan.Type {
	var out []*plan.Type
	seen := map[*plan.Type]bool{}
	for _, m := range pkg.Methods {
		if !m.Cacheable {
			continue
		}
		for _, t := range m.ResultTypes {
			if t.Reused == nil && hasAll(t, pkg.CacheHints) && !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

func hasAll(t *plan.Type, members []string) bool {
	for _, m := range members {
		if fieldByJSON(t, m) == nil {
			return false
		}
	}
	return len(members) > 0
}

func fieldByJSON(t *plan.Type, member string) *plan.Field {
	for _, f := range t.Fields {
		if f.JSON == member {
			return f
		}
	}
	return nil
}

// cacheHints writes CacheHints and SetCacheHints for a result carrying
// caching hints.
func cacheHints(f *jen.File, pkg *plan.Package, t *plan.Type) {
	var params, results, sets, gets []jen.Code
	for _, m := range pkg.CacheHints {
		fl := fieldByJSON(t, m)
		params = append(params, jen.Id(fl.JSON).Add(goType(fl.Value)))
		results = append(results, goType(fl.Value))
		sets = append(sets, jen.Id("x").Dot(fl.Go).Op("=").Id(fl.JSON))
		gets = append(gets, jen.Id("x").Dot(fl.Go))
	}
	f.Commentf("CacheHints returns the caching hints (%s).", strings.Join(pkg.CacheHints, ", "))
	f.Func().Params(recv(t)).Id("CacheHints").Params().Params(results...).Block(jen.Return(gets...))
	f.Commentf("SetCacheHints sets the caching hints (%s).", strings.Join(pkg.CacheHints, ", "))
	f.Func().Params(recv(t)).Id("SetCacheHints").Params(params...).Block(sets...)
	f.Line()
}
