package emit

import (
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/plan"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// methodConst names the constant of a method: MethodCallTool,
// NotificationToolListChanged, InputElicit (named by the plan).
func methodConst(m *plan.Method) string { return m.Const }

// methodsFile writes the method constants and the method table.
func methodsFile(f *jen.File, pkg *plan.Package) {
	if pkg.Revision != "" {
		f.Comment("ProtocolVersion is the protocol revision this package was generated from.")
		f.Const().Id("ProtocolVersion").Op("=").Lit(pkg.Revision)
		f.Line()
	}
	if len(pkg.ErrorCodes) > 0 {
		var codes []jen.Code
		for _, c := range pkg.ErrorCodes {
			codes = append(codes, jen.Commentf("%s is the code of %s.", c.Const, c.Def), jen.Id(c.Const).Op("=").Lit(int(c.Code)))
		}
		f.Comment("The error codes this revision defines.")
		f.Const().Defs(codes...)
		f.Line()
	}
	var consts []jen.Code
	for _, m := range pkg.Methods {
		what := map[wireimpl.MethodKind]string{wireimpl.Request: "request", wireimpl.Notification: "notification", wireimpl.InputRequest: "input request (carried in InputRequiredResult, never sent as a JSON-RPC request)"}[m.Kind]
		consts = append(consts, jen.Comment(methodConst(m)+" is the "+m.Name+" "+what+", "+m.Direction.String()+"."), jen.Id(methodConst(m)).Op("=").Lit(m.Name))
	}
	f.Comment("The methods of this revision.")
	f.Const().Defs(consts...)
	f.Line()

	sorted := append([]*plan.Method(nil), pkg.Methods...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Name != sorted[j].Name {
			return sorted[i].Name < sorted[j].Name
		}
		return sorted[i].Kind < sorted[j].Kind
	})
	var entries []jen.Code
	for _, m := range sorted {
		d := jen.Dict{
			jen.Id("Name"):      jen.Id(methodConst(m)),
			jen.Id("Kind"):      iq(map[wireimpl.MethodKind]string{wireimpl.Request: "Request", wireimpl.Notification: "Notification", wireimpl.InputRequest: "InputRequest"}[m.Kind]),
			jen.Id("Direction"): iq(map[wireimpl.Direction]string{wireimpl.ClientToServer: "ClientToServer", wireimpl.ServerToClient: "ServerToClient", wireimpl.Both: "Both"}[m.Direction]),
		}
		if m.Params != nil {
			d[jen.Id("ParamsType")] = jen.Lit(m.Params.Name)
			d[jen.Id("ParamsRequired")] = jen.Lit(m.ParamsRequired)
			d[jen.Id("NewParams")] = jen.Func().Params().Add(iq("Codec")).Block(jen.Return(jen.New(jen.Id(m.Params.Name))))
		}
		if m.Result != nil {
			var names []jen.Code
			for _, t := range m.ResultTypes {
				names = append(names, jen.Lit(t.Name))
			}
			d[jen.Id("ResultTypes")] = jen.Index().String().Values(names...)
			d[jen.Id("NewResult")] = jen.Func().Params().Add(iq("Codec")).Block(jen.Return(jen.New(jen.Id(m.Result.Name))))
		}
		entries = append(entries, jen.Values(d))
	}
	f.Comment("methodTable describes every method, sorted by name.")
	f.Var().Id("methodTable").Op("=").Index().Add(iq("Method")).Values(entries...)
	f.Line()
	f.Comment("Methods returns the method table of this revision, sorted by name.")
	f.Func().Id("Methods").Params().Index().Add(iq("Method")).Block(
		jen.Return(jen.Qual("slices", "Clone").Call(jen.Id("methodTable"))),
	)
	f.Line()
	var cases []jen.Code
	for i, m := range sorted {
		if i > 0 && sorted[i-1].Name == m.Name {
			continue // a name used twice (a notification sent both ways) has one entry per kind
		}
		cases = append(cases, jen.Case(jen.Id(methodConst(m))).Block(jen.Return(jen.Op("&").Id("methodTable").Index(jen.Lit(i)), jen.True())))
	}
	f.Comment("LookupMethod returns the description of the named method.")
	f.Func().Id("LookupMethod").Params(jen.Id("name").String()).Params(jen.Op("*").Add(iq("Method")), jen.Bool()).Block(
		jen.Switch(jen.Id("name")).Block(cases...),
		jen.Return(jen.Nil(), jen.False()),
	)
	var defs []jen.Code
	for _, t := range pkg.Types {
		if !t.Def {
			continue
		}
		var v jen.Code = jen.New(jen.Id(t.Name))
		if t.Kind == plan.Alias && plan.Underlying(t.Elem).Kind == plan.ID {
			v = jen.New(iq("IDValue")) // wire.ID has no decoder of its own
		}
		defs = append(defs, jen.Case(jen.Lit(t.Name)).Block(jen.Return(v, jen.True())))
	}
	f.Comment("NewDefinition returns a new zero value of the schema definition named name")
	f.Comment("(the $defs key), for code that handles definitions by name.")
	f.Func().Id("NewDefinition").Params(jen.Id("name").String()).Params(iq("Codec"), jen.Bool()).Block(
		jen.Switch(jen.Id("name")).Block(defs...),
		jen.Return(jen.Nil(), jen.False()),
	)
}

// handlerMethods lists the requests one side handles.
func handlerMethods(pkg *plan.Package, dir wireimpl.Direction) []*plan.Method {
	var out []*plan.Method
	for _, m := range pkg.Methods {
		if m.Kind == wireimpl.Request && m.Direction&dir != 0 && m.Result != nil {
			out = append(out, m)
		}
	}
	return out
}

// serverFile writes the handler interfaces, their "unimplemented"
// defaults and the dispatch functions.
func serverFile(f *jen.File, pkg *plan.Package) {
	for _, side := range []struct {
		name, peer string
		dir        wireimpl.Direction
	}{{"Server", "client", wireimpl.ClientToServer}, {"Client", "server", wireimpl.ServerToClient}} {
		ms := handlerMethods(pkg, side.dir)
		if len(ms) == 0 {
			continue
		}
		iface := side.name + "Handler"
		var methods []jen.Code
		for _, m := range ms {
			methods = append(methods, jen.Comment(m.Go+" handles "+m.Name+"."), jen.Id(m.Go).Add(handlerSig(m)))
		}
		f.Commentf("%s handles the requests a %s sends, one method per request.", iface, side.peer)
		f.Commentf("Embed Unimplemented%s to implement only some of them.", iface)
		f.Type().Id(iface).Interface(methods...)
		f.Line()
		un := "Unimplemented" + iface
		f.Commentf("%s answers every request with -32601 (method not found).", un)
		f.Type().Id(un).Struct()
		f.Line()
		for _, m := range ms {
			f.Commentf("%s answers -32601.", m.Go)
			f.Func().Params(jen.Id(un)).Id(m.Go).Params(jen.Qual("context", "Context"), paramsType(m)).Params(jen.Op("*").Id(m.Result.Name), jen.Error()).Block(
				jen.Return(jen.Nil(), iq("MethodNotFound").Call(jen.Id(methodConst(m)))),
			)
		}
		f.Line()
		var cases []jen.Code
		for _, m := range ms {
			body := []jen.Code{}
			args := []jen.Code{jen.Id("ctx")}
			if m.Params != nil {
				body = append(body,
					jen.Id("p").Op(":=").New(jen.Id(m.Params.Name)),
					jen.If(jen.Err().Op(":=").Add(iq("DecodeParams")).Call(jen.Id("params"), jen.Id("p"), jen.Lit(m.ParamsRequired)), jen.Err().Op("!=").Nil()).Block(
						jen.Return(jen.Err()),
					),
				)
				args = append(args, jen.Id("p"))
			} else {
				args = append(args, jen.Id("params"))
			}
			body = append(body,
				jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("h").Dot(m.Go).Call(args...),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
				jen.If(jen.Id("r").Op("==").Nil()).Block(jen.Return(iq("NilResult").Call(jen.Id("method")))),
				jen.Id("r").Dot("EncodeJSON").Call(jen.Id("e")),
				jen.Return(jen.Nil()),
			)
			cases = append(cases, jen.Case(jen.Id(methodConst(m))).Block(body...))
		}
		fn := "Dispatch" + side.name
		f.Commentf("%s serves one request: it decodes and validates params", fn)
		f.Comment("(-32602 with every violation in error.data), calls the handler method for")
		f.Comment("method (-32601 when there is none) and writes the result to e.")
		f.Comment("Errors are *wire.Error values or the handler's own errors.")
		f.Func().Id(fn).Params(
			jen.Id("ctx").Qual("context", "Context"), jen.Id("h").Id(iface), jen.Id("method").String(),
			jen.Id("params").Add(wq("Raw")), jen.Id("e").Op("*").Add(jxq("Encoder")),
		).Error().Block(
			jen.Switch(jen.Id("method")).Block(cases...),
			jen.Return(iq("MethodNotFound").Call(jen.Id("method"))),
		)
	}
}

func paramsType(m *plan.Method) jen.Code {
	if m.Params == nil {
		return wq("Raw")
	}
	return jen.Op("*").Id(m.Params.Name)
}

func handlerSig(m *plan.Method) jen.Code {
	return jen.Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("params").Add(paramsType(m))).Params(jen.Op("*").Id(m.Result.Name), jen.Error())
}
