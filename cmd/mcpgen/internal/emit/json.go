package emit

import (
	"fmt"
	"math/bits"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/plan"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// jsonFile writes DecodeJSON, EncodeJSON, MarshalJSON and UnmarshalJSON for
// every named type. Decoders read through wireimpl.Decoder (jx underneath),
// encoders write to a jx.Encoder; nothing uses reflection.
func jsonFile(f *jen.File, pkg *plan.Package) {
	entryPoints(f, pkg)
	en := &encodables{pkg: pkg.Name, reach: unionReach(pkg.Types)}
	for _, t := range pkg.Types {
		if t.Reused != nil {
			continue // its package has its codec
		}
		en.methods(f, t)
		switch t.Kind {
		case plan.Struct:
			structDecoder(f, t)
			structEncoder(f, t)
		case plan.Union:
			unionCodec(f, t)
		case plan.Enum, plan.Scalar:
			scalarCodec(f, t)
		case plan.Map, plan.Slice:
			containerCodec(f, t)
		case plan.Verbatim:
			verbatimCodec(f, t)
		case plan.Alias:
			continue
		}
		marshalers(f, t)
	}
}

func recv(t *plan.Type) *jen.Statement { return jen.Id("x").Op("*").Id(t.Name) }

// entryPoints writes the package-level Marshal and Unmarshal.
func entryPoints(f *jen.File, pkg *plan.Package) {
	f.Comment("Marshal encodes v, a pointer to a value of any type of this package, as JSON.")
	f.Comment("It is the fast path: json.Marshal(v) calls v.MarshalJSON too, then scans and")
	f.Comment("copies its output again (several times slower on a large result); Marshal")
	f.Comment("returns the generated encoder's output as it is. Like MarshalJSON, it refuses a")
	f.Comment("value Encodable reports (a union holding no member or several). It does not")
	f.Comment("validate: call v.Validate() for the schema's other rules.")
	f.Func().Id("Marshal").Params(jen.Id("v").Add(iq("EncodeJSONer"))).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(iq("Marshal").Call(jen.Id("v"))),
	)
	f.Line()
	f.Comment("Unmarshal decodes data into v, a pointer to a value of any type of this package.")
	f.Comment("It is the fast path: json.Unmarshal(data, v) scans data before calling")
	f.Comment("v.UnmarshalJSON (several times slower on a large result); Unmarshal runs the")
	f.Comment("generated decoder alone. Decoding is case-sensitive and rejects duplicate")
	f.Comment("members, invalid UTF-8, trailing data and nesting deeper than wireimpl.MaxDepth;")
	f.Comment("data is copied, so the caller may reuse it. It does not validate: call")
	f.Comment("v.Validate() for the schema's rules (required members, bounds, formats).")
	f.Func().Id("Unmarshal").Params(jen.Id("data").Index().Byte(), jen.Id("v").Add(iq("DecodeJSONer"))).Error().Block(
		jen.Return(iq("Decode").Call(jen.Id("data"), jen.Id("v"))),
	)
	f.Line()
}

func marshalers(f *jen.File, t *plan.Type) {
	f.Comment("MarshalJSON implements json.Marshaler.")
	f.Func().Params(jen.Id("x").Id(t.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(iq("Marshal").Call(jen.Op("&").Id("x"))),
	)
	f.Comment("UnmarshalJSON implements json.Unmarshaler. Decoding is case-sensitive and rejects")
	f.Comment("duplicate members, invalid UTF-8 and nesting deeper than wireimpl.MaxDepth.")
	f.Func().Params(recv(t)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Return(iq("Decode").Call(jen.Id("data"), jen.Id("x"))),
	)
	f.Line()
}

// structDecoder writes DecodeJSON for a struct: one pass over the members,
// a bit per declared member to reject duplicates and find missing ones.
func structDecoder(f *jen.File, t *plan.Type) {
	n := words(len(t.Fields))
	var cases []jen.Code
	for _, fl := range t.Fields {
		w, m := bit(fl.Index)
		body := []jen.Code{
			jen.If(jen.Id("seen").Index(jen.Lit(w)).Op("&").Lit(m).Op("!=").Lit(0)).Block(
				jen.Return(iq("DuplicateKey").Call(jen.Id("key"))),
			),
			jen.Id("seen").Index(jen.Lit(w)).Op("|=").Lit(m),
		}
		body = append(body, decodeField(t, fl)...)
		cases = append(cases, jen.Case(jen.Lit(fl.JSON)).Block(body...))
	}
	if t.Extra {
		cases = append(cases, jen.Default().Block(jen.Return(jen.Id("d").Dot("AddMember").Call(jen.Op("&").Id("x").Dot("Extra"), jen.Id("key")))))
	} else {
		cases = append(cases, jen.Default().Block(jen.Return(iq("UnknownMember").Call(jen.Id("key")))))
	}
	var body []jen.Code
	body = append(body, jen.Op("*").Id("x").Op("=").Id(t.Name).Values())
	if len(t.Fields) > 0 {
		body = append(body, jen.Var().Id("seen").Index(jen.Lit(n)).Uint64())
	}
	cb := []jen.Code{}
	if len(t.Fields) > 0 {
		cb = append(cb,
			jen.Var().Err().Error(),
			jen.Switch(jen.String().Parens(jen.Id("key"))).Block(cases...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(iq("AtKey").Call(jen.Err(), jen.String().Parens(jen.Id("key"))))),
			jen.Return(jen.Nil()),
		)
	} else {
		cb = append(cb, jen.Switch(jen.String().Parens(jen.Id("key"))).Block(cases...))
	}
	body = append(body,
		jen.If(jen.Err().Op(":=").Id("d").Dot("Obj").Call(jen.Func().Params(jen.Id("key").Index().Byte()).Error().Block(cb...)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	)
	if req := requiredFields(t); len(req) > 0 {
		masks := make([]uint64, n)
		for _, fl := range req {
			w, m := bit(fl.Index)
			masks[w] |= m
		}
		for w, m := range masks {
			if m != 0 {
				body = append(body, jen.Id("x").Dot("missing").Index(jen.Lit(w)).Op("=").Lit(m).Op("&^").Id("seen").Index(jen.Lit(w)))
			}
		}
	}
	body = append(body, jen.Return(jen.Nil()))
	f.Commentf("DecodeJSON reads a %s object.", t.Name)
	f.Func().Params(recv(t)).Id("DecodeJSON").Params(jen.Id("d").Op("*").Add(iq("Decoder"))).Error().Block(body...)
	f.Line()
}

// decodeField reads one member into its field, setting err.
func decodeField(t *plan.Type, fl *plan.Field) []jen.Code {
	tgt := jen.Id("x").Dot(fl.Go)
	if checkedRaw(fl) {
		return []jen.Code{jen.List(cl(tgt), jen.Id("x").Dot(checkedName(fl)), jen.Err()).Op("=").Id("d").Dot("RawChecked").Call(jen.Id(rawMembersVar(t, fl)))}
	}
	if fl.Const != nil {
		fn := map[plan.ValueKind]string{plan.String: "DecodeConstString", plan.Int: "DecodeConstInt", plan.Float: "DecodeConstFloat", plan.Bool: "DecodeConstBool"}[fl.Value.Kind]
		if fl.Repr == plan.NoField {
			return []jen.Code{jen.Err().Op("=").Add(iq(fn)).Call(jen.Id("d"), jen.Id(fl.ConstGo))}
		}
		return append(decodeValue(fl.Value, cl(tgt).Dot("Value")), cl(tgt).Dot("Set").Op("=").True())
	}
	switch fl.Repr {
	case plan.Optional:
		return append(decodeValue(fl.Value, cl(tgt).Dot("Value")), cl(tgt).Dot("Set").Op("=").True())
	case plan.Pointer:
		return []jen.Code{
			cl(tgt).Op("=").New(goType(fl.Value)),
			jen.Err().Op("=").Add(cl(tgt)).Dot("DecodeJSON").Call(jen.Id("d")),
		}
	}
	return decodeValue(fl.Value, tgt)
}

// decodeValue reads a value into the addressable expression tgt, setting err.
func decodeValue(v *plan.Value, tgt *jen.Statement) []jen.Code {
	d := jen.Id("d")
	u := plan.Underlying(v)
	switch u.Kind {
	case plan.String:
		return read(v, tgt, "Str")
	case plan.Int:
		return read(v, tgt, "Int64")
	case plan.Float:
		return read(v, tgt, "Float64")
	case plan.Bool:
		return read(v, tgt, "Bool")
	case plan.Null:
		return []jen.Code{jen.Err().Op("=").Add(d).Dot("Null").Call(), cl(tgt).Op("=").True()}
	case plan.Raw:
		if u.RawKind == wire.KindInvalid {
			return []jen.Code{jen.List(cl(tgt), jen.Err()).Op("=").Add(d).Dot("Raw").Call()}
		}
		return []jen.Code{jen.List(cl(tgt), jen.Err()).Op("=").Add(d).Dot("RawKind").Call(kindConst(u.RawKind))}
	case plan.ID:
		return []jen.Code{jen.List(cl(tgt), jen.Err()).Op("=").Add(d).Dot("ID").Call()}
	case plan.Named:
		return []jen.Code{jen.Err().Op("=").Add(cl(tgt)).Dot("DecodeJSON").Call(d)}
	case plan.List:
		return []jen.Code{jen.Err().Op("=").Add(iq("DecodeList")).Call(d, jen.Op("&").Add(cl(tgt)), elemDecoder(u.Elem))}
	case plan.Dict:
		return []jen.Code{jen.Err().Op("=").Add(iq("DecodeMap")).Call(d, jen.Op("&").Add(cl(tgt)), elemDecoder(u.Elem))}
	}
	panic(fmt.Sprintf("emit: decode kind %d", u.Kind))
}

// read assigns d.<method>() to tgt, converting to a named scalar type when v
// names one through an alias.
func read(v *plan.Value, tgt *jen.Statement, method string) []jen.Code {
	return []jen.Code{jen.List(cl(tgt), jen.Err()).Op("=").Id("d").Dot(method).Call()}
}

func kindConst(k wire.Kind) *jen.Statement {
	return wq(map[wire.Kind]string{
		wire.KindObject: "KindObject", wire.KindArray: "KindArray", wire.KindString: "KindString",
		wire.KindNumber: "KindNumber", wire.KindBool: "KindBool", wire.KindNull: "KindNull",
		wire.KindInvalid: "KindInvalid",
	}[k])
}

// elemDecoder is a func(*T, *wireimpl.Decoder) error for list and map elements.
func elemDecoder(v *plan.Value) jen.Code {
	u := plan.Underlying(v)
	switch u.Kind {
	case plan.String:
		return iq("DecodeString")
	case plan.Int:
		return iq("DecodeInt64")
	case plan.Float:
		return iq("DecodeFloat64")
	case plan.Bool:
		return iq("DecodeBool")
	case plan.Raw:
		switch u.RawKind {
		case wire.KindObject:
			return iq("DecodeRawObject")
		case wire.KindArray:
			return iq("DecodeRawArray")
		}
		return iq("DecodeRaw")
	case plan.ID:
		return iq("DecodeID")
	case plan.Named:
		return jen.Parens(jen.Op("*").Id(u.Type.Name)).Dot("DecodeJSON")
	}
	return jen.Func().Params(jen.Id("v").Op("*").Add(goType(v)), jen.Id("d").Op("*").Add(iq("Decoder"))).Params(jen.Err().Error()).Block(
		append(decodeValue(v, jen.Parens(jen.Op("*").Id("v"))), jen.Return())...,
	)
}

// structEncoder writes members in declaration order, then Extra.
func structEncoder(f *jen.File, t *plan.Type) {
	body := []jen.Code{jen.Id("e").Dot("ObjStart").Call()}
	for _, fl := range t.Fields {
		body = append(body, encodeField(fl))
	}
	if t.Extra {
		body = append(body, iq("EncodeMembers").Call(jen.Id("e"), jen.Id("x").Dot("Extra")))
	}
	body = append(body, jen.Id("e").Dot("ObjEnd").Call())
	f.Commentf("EncodeJSON writes x as a JSON object.")
	f.Func().Params(recv(t)).Id("EncodeJSON").Params(jen.Id("e").Op("*").Add(jxq("Encoder"))).Block(body...)
	f.Line()
}

func fieldStart(fl *plan.Field) jen.Code {
	return jen.Id("e").Dot("FieldStart").Call(jen.Lit(fl.JSON))
}

func notMissing(fl *plan.Field) *jen.Statement {
	w, m := bit(fl.Index)
	return jen.Id("x").Dot("missing").Index(jen.Lit(w)).Op("&").Lit(m).Op("==").Lit(0)
}

func encodeField(fl *plan.Field) jen.Code {
	tgt := jen.Id("x").Dot(fl.Go)
	if fl.Repr == plan.NoField {
		return jen.If(notMissing(fl)).Block(fieldStart(fl), jen.Id("e").Dot("RawStr").Call(jen.Lit(fl.ConstGo)))
	}
	switch fl.Repr {
	case plan.Optional:
		return jen.If(cl(tgt).Dot("Set")).Block(fieldStart(fl), encodeValue(fl.Value, cl(tgt).Dot("Value"), false))
	case plan.Pointer:
		enc := jen.If(cl(tgt).Op("==").Nil()).Block(jen.Id("e").Dot("ObjEmpty").Call()).Else().Block(cl(tgt).Dot("EncodeJSON").Call(jen.Id("e")))
		if fl.Required {
			return jen.If(notMissing(fl)).Block(fieldStart(fl), enc)
		}
		return jen.If(cl(tgt).Op("!=").Nil()).Block(fieldStart(fl), cl(tgt).Dot("EncodeJSON").Call(jen.Id("e")))
	}
	if fl.Required {
		return jen.If(notMissing(fl)).Block(fieldStart(fl), encodeValue(fl.Value, tgt, true))
	}
	return jen.If(present(fl.Value, tgt)).Block(fieldStart(fl), encodeValue(fl.Value, tgt, false))
}

// present is the condition under which an optional Plain field is written.
func present(v *plan.Value, tgt *jen.Statement) *jen.Statement {
	u := plan.Underlying(v)
	if u.Kind == plan.Named && u.Type.Kind == plan.Union {
		return jen.Op("!").Add(cl(tgt)).Dot("IsZero").Call()
	}
	switch u.Kind {
	case plan.Null:
		return cl(tgt)
	case plan.ID:
		return jen.Op("!").Add(cl(tgt)).Dot("IsZero").Call()
	}
	return cl(tgt).Op("!=").Nil()
}

// encodeValue writes the value of expression x. required: a nil raw value
// is written as its kind's empty value instead of null.
func encodeValue(v *plan.Value, x *jen.Statement, required bool) jen.Code {
	e := jen.Id("e")
	u := plan.Underlying(v)
	switch u.Kind {
	case plan.String:
		return e.Dot("Str").Call(x)
	case plan.Int:
		return e.Dot("Int64").Call(x)
	case plan.Float:
		return iq("EncodeFloat").Call(e, x)
	case plan.Bool:
		return e.Dot("Bool").Call(x)
	case plan.Null:
		return e.Dot("Null").Call()
	case plan.Raw:
		switch {
		case required && u.RawKind == wire.KindObject:
			lit, ok := minimalObject(u.Members)
			if !ok {
				lit = "{}" // Validate reports the nil value
			}
			return iq("EncodeRawOr").Call(e, x, jen.Lit(lit))
		case required && u.RawKind == wire.KindArray:
			return iq("EncodeRawOr").Call(e, x, jen.Lit("[]"))
		}
		return iq("EncodeRaw").Call(e, x)
	case plan.ID:
		return cl(x).Dot("EncodeJSON").Call(e)
	case plan.Named:
		return cl(x).Dot("EncodeJSON").Call(e)
	case plan.List:
		return iq("EncodeList").Call(e, x, elemEncoder(u.Elem))
	case plan.Dict:
		return iq("EncodeMap").Call(e, x, elemEncoder(u.Elem))
	}
	panic(fmt.Sprintf("emit: encode kind %d", u.Kind))
}

// elemEncoder is a func(*T, *jx.Encoder) for list and map elements.
func elemEncoder(v *plan.Value) jen.Code {
	u := plan.Underlying(v)
	switch u.Kind {
	case plan.String:
		return iq("EncodeString")
	case plan.Int:
		return iq("EncodeInt64")
	case plan.Float:
		return iq("EncodeFloat64")
	case plan.Bool:
		return iq("EncodeBool")
	case plan.Raw:
		return iq("EncodeRawElem")
	case plan.ID:
		return iq("EncodeID")
	case plan.Named:
		return jen.Parens(jen.Op("*").Id(u.Type.Name)).Dot("EncodeJSON")
	}
	return jen.Func().Params(jen.Id("v").Op("*").Add(goType(v)), jen.Id("e").Op("*").Add(jxq("Encoder"))).Block(
		encodeValue(v, jen.Parens(jen.Op("*").Id("v")), false),
	)
}

// scalarCodec writes the codec of an enum or a named scalar.
func scalarCodec(f *jen.File, t *plan.Type) {
	kind := plan.String
	if t.Kind == plan.Scalar {
		kind = t.Elem.Kind
	}
	method := map[plan.ValueKind]string{plan.String: "Str", plan.Int: "Int64", plan.Float: "Float64", plan.Bool: "Bool"}[kind]
	base := map[plan.ValueKind]*jen.Statement{plan.String: jen.String(), plan.Int: jen.Int64(), plan.Float: jen.Float64(), plan.Bool: jen.Bool()}[kind]
	f.Commentf("DecodeJSON reads a %s.", t.Name)
	f.Func().Params(recv(t)).Id("DecodeJSON").Params(jen.Id("d").Op("*").Add(iq("Decoder"))).Error().Block(
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("d").Dot(method).Call(),
		jen.Op("*").Id("x").Op("=").Id(t.Name).Call(jen.Id("v")),
		jen.Return(jen.Err()),
	)
	f.Commentf("EncodeJSON writes x.")
	f.Func().Params(jen.Id("x").Id(t.Name)).Id("EncodeJSON").Params(jen.Id("e").Op("*").Add(jxq("Encoder"))).Block(
		jen.Id("e").Dot(method).Call(cl(base).Call(jen.Id("x"))),
	)
	f.Line()
}

// verbatimCodec writes the codec of a named free-form value: it decodes
// any value of its kind verbatim; an absent (nil) object or array is
// written as {} or [], any other absent value as null.
func verbatimCodec(f *jen.File, t *plan.Type) {
	k := t.Elem.RawKind
	read := jen.Id("d").Dot("Raw").Call()
	if k != wire.KindInvalid {
		read = jen.Id("d").Dot("RawKind").Call(kindConst(k))
	}
	f.Commentf("DecodeJSON reads a %s verbatim.", t.Name)
	f.Func().Params(recv(t)).Id("DecodeJSON").Params(jen.Id("d").Op("*").Add(iq("Decoder"))).Error().Block(
		jen.List(jen.Id("r"), jen.Err()).Op(":=").Add(read),
		jen.Op("*").Id("x").Op("=").Id(t.Name).Call(jen.Id("r")),
		jen.Return(jen.Err()),
	)
	var enc jen.Code
	switch k {
	case wire.KindObject:
		enc = iq("EncodeRawOr").Call(jen.Id("e"), wq("Raw").Call(jen.Op("*").Id("x")), jen.Lit("{}"))
	case wire.KindArray:
		enc = iq("EncodeRawOr").Call(jen.Id("e"), wq("Raw").Call(jen.Op("*").Id("x")), jen.Lit("[]"))
	default:
		enc = iq("EncodeRaw").Call(jen.Id("e"), wq("Raw").Call(jen.Op("*").Id("x")))
	}
	f.Commentf("EncodeJSON writes x as it was received.")
	f.Func().Params(recv(t)).Id("EncodeJSON").Params(jen.Id("e").Op("*").Add(jxq("Encoder"))).Block(enc)
	f.Line()
}

// containerCodec writes the codec of a named map or slice.
func containerCodec(f *jen.File, t *plan.Type) {
	fn, efn := "DecodeMap", "EncodeMap"
	if t.Kind == plan.Slice {
		fn, efn = "DecodeList", "EncodeList"
	}
	under := goType(t.Elem)
	f.Commentf("DecodeJSON reads a %s.", t.Name)
	f.Func().Params(recv(t)).Id("DecodeJSON").Params(jen.Id("d").Op("*").Add(iq("Decoder"))).Error().Block(
		jen.Return(iq(fn).Call(jen.Id("d"), jen.Parens(jen.Op("*").Add(under)).Call(jen.Id("x")), elemDecoder(t.Elem.Elem))),
	)
	f.Commentf("EncodeJSON writes x%s.", map[bool]string{true: " with its keys sorted", false: ""}[t.Kind == plan.Map])
	f.Func().Params(recv(t)).Id("EncodeJSON").Params(jen.Id("e").Op("*").Add(jxq("Encoder"))).Block(
		iq(efn).Call(jen.Id("e"), cl(under).Call(jen.Op("*").Id("x")), elemEncoder(t.Elem.Elem)),
	)
	f.Line()
}

// unionCodec writes a union's decoder (see plan/union.go for the order of
// decisions), encoder and IsZero.
func unionCodec(f *jen.File, t *plan.Type) {
	d := t.Dispatch
	maskOf := func(idx []int) uint64 {
		var m uint64
		for _, i := range idx {
			m |= 1 << uint(i)
		}
		return m
	}
	var kindCases []jen.Code
	for _, k := range []wire.Kind{wire.KindObject, wire.KindArray, wire.KindString, wire.KindNumber, wire.KindBool, wire.KindNull} {
		idx := d.ByKind[k]
		if len(idx) == 0 {
			continue
		}
		if k == wire.KindObject && d.Object != nil {
			kindCases = append(kindCases, jen.Case(kindConst(k)).Block(objectDispatch(t, d.Object, maskOf(idx))...))
			continue
		}
		kindCases = append(kindCases, jen.Case(kindConst(k)).Block(jen.Return(jen.Id("x").Dot("decodeFirst").Call(jen.Id("d"), jen.Lit(maskOf(idx)), jen.Lit(0)))))
	}
	f.Commentf("DecodeJSON reads whichever member of %s the value is.", t.Name)
	f.Func().Params(recv(t)).Id("DecodeJSON").Params(jen.Id("d").Op("*").Add(iq("Decoder"))).Error().Block(
		jen.Op("*").Id("x").Op("=").Id(t.Name).Values(),
		jen.Switch(jen.Id("d").Dot("Next").Call()).Block(kindCases...),
		jen.Return(iq("NoVariant").Call(jen.Lit(t.Name), jen.Id("d").Dot("Next").Call())),
	)
	f.Line()

	// decodeVariant
	var cases []jen.Code
	for i, v := range t.Variants {
		tgt := jen.Id("x").Dot(v.Go)
		var body []jen.Code
		switch variantRepr(v) {
		case plan.Pointer:
			body = []jen.Code{cl(tgt).Op("=").New(goType(v.Value)), jen.Return(cl(tgt).Dot("DecodeJSON").Call(jen.Id("d")))}
		case plan.Optional:
			body = append([]jen.Code{jen.Var().Err().Error()}, decodeValue(v.Value, cl(tgt).Dot("Value"))...)
			body = append(body, cl(tgt).Dot("Set").Op("=").True(), jen.Return(jen.Err()))
		default:
			body = append([]jen.Code{jen.Var().Err().Error()}, decodeValue(v.Value, tgt)...)
			body = append(body, jen.Return(jen.Err()))
		}
		cases = append(cases, jen.Case(jen.Lit(i)).Block(body...))
	}
	f.Func().Params(recv(t)).Id("decodeVariant").Params(jen.Id("d").Op("*").Add(iq("Decoder")), jen.Id("i").Int()).Error().Block(
		jen.Switch(jen.Id("i")).Block(cases...),
		jen.Return(jen.Nil()),
	)
	f.Line()
	f.Comment("decodeFirst decodes the member in mask when it is the only candidate.")
	f.Comment("Otherwise it tries mask's members, then others' (members the value may")
	f.Comment("also be), in order, and keeps the first that decodes and validates; when")
	f.Comment("none does, it decodes the first of mask's that decodes (else mask's first),")
	f.Comment("whose errors describe the value best.")
	tryEach := jen.For(jen.List(jen.Id("_"), jen.Id("set")).Op(":=").Range().Index(jen.Lit(2)).Uint64().Values(jen.Id("mask"), jen.Id("others"))).Block(
		jen.For(jen.Empty(), jen.Id("set").Op("!=").Lit(0), jen.Id("set").Op("&=").Id("set").Op("-").Lit(1)).Block(
			jen.Id("i").Op(":=").Qual("math/bits", "TrailingZeros64").Call(jen.Id("set")),
			jen.Var().Id("y").Id(t.Name),
			jen.Err().Op(":=").Id("y").Dot("decodeVariant").Call(jen.Id("d"), jen.Id("i")),
			jen.If(jen.Err().Op("==").Nil().Op("&&").Id("y").Dot("Validate").Call().Op("==").Nil()).Block(
				jen.Op("*").Id("x").Op("=").Id("y"),
				jen.Return(jen.Nil()),
			),
			jen.If(jen.Err().Op("==").Nil().Op("&&").Id("first").Op("<").Lit(0).Op("&&").Id("mask").Op("&").Parens(jen.Lit(1).Op("<<").Id("i")).Op("!=").Lit(0)).Block(
				jen.Id("first").Op("=").Id("i"),
			),
			jen.Id("d").Dot("Rewind").Call(jen.Id("start")),
		),
	)
	f.Func().Params(recv(t)).Id("decodeFirst").Params(jen.Id("d").Op("*").Add(iq("Decoder")), jen.List(jen.Id("mask"), jen.Id("others")).Uint64()).Error().Block(
		jen.If(jen.Id("others").Op("==").Lit(0).Op("&&").Qual("math/bits", "OnesCount64").Call(jen.Id("mask")).Op("==").Lit(1)).Block(
			jen.Return(jen.Id("x").Dot("decodeVariant").Call(jen.Id("d"), jen.Qual("math/bits", "TrailingZeros64").Call(jen.Id("mask")))),
		),
		jen.List(jen.Id("start"), jen.Id("first")).Op(":=").List(jen.Id("d").Dot("Mark").Call(), jen.Lit(-1)),
		tryEach,
		jen.If(jen.Id("first").Op("<").Lit(0)).Block(jen.Id("first").Op("=").Qual("math/bits", "TrailingZeros64").Call(jen.Id("mask"))),
		jen.Return(jen.Id("x").Dot("decodeVariant").Call(jen.Id("d"), jen.Id("first"))),
	)
	f.Line()

	// EncodeJSON
	var enc []jen.Code
	for _, v := range t.Variants {
		x := jen.Id("x").Dot(v.Go)
		var w jen.Code
		switch variantRepr(v) {
		case plan.Pointer:
			w = cl(x).Dot("EncodeJSON").Call(jen.Id("e"))
		case plan.Optional:
			w = encodeValue(v.Value, cl(x).Dot("Value"), false)
		default:
			w = encodeValue(v.Value, x, false)
		}
		enc = append(enc, jen.Case(isSet(jen.Id("x"), v)).Block(w))
	}
	enc = append(enc, jen.Default().Block(jen.Id("e").Dot("Null").Call()))
	f.Comment("EncodeJSON writes the member that is set: null when none is, the first when")
	f.Comment("several are (Encodable reports both; MarshalJSON and Marshal refuse them).")
	f.Func().Params(recv(t)).Id("EncodeJSON").Params(jen.Id("e").Op("*").Add(jxq("Encoder"))).Block(jen.Switch().Block(enc...))
	f.Line()
	var conds []jen.Code
	for _, v := range t.Variants {
		conds = append(conds, isSet(jen.Id("x"), v))
	}
	var members []jen.Code
	for _, v := range t.Variants {
		x := jen.Id("x").Dot(v.Go)
		var val jen.Code = x
		if variantRepr(v) == plan.Optional {
			val = cl(x).Dot("Value")
		}
		members = append(members, jen.Case(isSet(jen.Id("x"), v)).Block(jen.Return(val)))
	}
	f.Comment("Member returns the member that is set (a pointer for struct members), or")
	f.Comment("nil when none is.")
	f.Func().Params(recv(t)).Id("Member").Params().Any().Block(jen.Switch().Block(members...), jen.Return(jen.Nil()))
	f.Line()
	f.Comment("IsZero reports whether no member is set.")
	f.Func().Params(recv(t)).Id("IsZero").Params().Bool().Block(
		jen.Return(jen.Op("!").Parens(jen.List(joinOr(conds)...))),
	)
	f.Line()
	if d.Object != nil && len(d.Object.Keys) > 0 {
		var fits []jen.Code
		keys := d.Object.Keys
		if len(keys) > 64 {
			keys = keys[:64]
		}
		for _, v := range t.Variants {
			var req, dec, forbid uint64
			for i, k := range keys {
				if contains(v.Required, k) {
					req |= 1 << uint(i)
				}
				if contains(v.Declared, k) {
					dec |= 1 << uint(i)
				}
				if contains(v.Forbidden, k) {
					forbid |= 1 << uint(i)
				}
			}
			fit := jen.Dict{jen.Id("Required"): jen.Lit(req), jen.Id("Declared"): jen.Lit(dec)}
			if forbid != 0 {
				fit[jen.Id("Forbidden")] = jen.Lit(forbid)
			}
			fits = append(fits, jen.Values(fit))
		}
		var klits []jen.Code
		for _, k := range keys {
			klits = append(klits, jen.Lit(k))
		}
		f.Var().Id(lower(t.Name) + "Fits").Op("=").Index(jen.Lit(len(t.Variants))).Add(iq("Fit")).Values(fits...)
		f.Var().Id(lower(t.Name) + "Keys").Op("=").Index().String().Values(klits...)
		f.Line()
	}
}

func joinOr(conds []jen.Code) []jen.Code {
	var out []jen.Code
	for i, c := range conds {
		if i > 0 {
			out = append(out, jen.Op("||"))
		}
		out = append(out, c)
	}
	return []jen.Code{jen.Add(out...)}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func lower(s string) string { return string(s[0]|0x20) + s[1:] }

// objectDispatch chooses among object members: by the discriminating
// member when there is one, then by structural fit, keeping the other
// members the object may be for decodeFirst to fall back on.
func objectDispatch(t *plan.Type, od *plan.ObjectDispatch, all uint64) []jen.Code {
	var body []jen.Code
	maskOf := func(idx []int) uint64 {
		var m uint64
		for _, i := range idx {
			m |= 1 << uint(i)
		}
		return m
	}
	fit := []jen.Code{
		jen.Var().Id("others").Uint64(),
		jen.If(jen.Qual("math/bits", "OnesCount64").Call(jen.Id("mask")).Op(">").Lit(1)).Block(
			jen.List(jen.Id("present"), jen.Err()).Op(":=").Id("d").Dot("KeySet").Call(jen.Id(lower(t.Name)+"Keys")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.List(jen.Id("mask"), jen.Id("others")).Op("=").Add(iq("Choose")).Call(jen.Id("present"), jen.Id(lower(t.Name)+"Fits").Index(jen.Empty(), jen.Empty()), jen.Id("mask")),
		),
		jen.Return(jen.Id("x").Dot("decodeFirst").Call(jen.Id("d"), jen.Id("mask"), jen.Id("others"))),
	}
	if od.Key == "" {
		body = append(body, jen.Id("mask").Op(":=").Lit(all))
		return append(body, fit...)
	}
	var cases []jen.Code
	for _, val := range od.Order {
		cases = append(cases, jen.Case(jen.Lit(val)).Block(jen.Id("mask").Op("=").Lit(maskOf(od.Values[val]))))
	}
	cases = append(cases, jen.Default().Block(jen.Return(iq("UnknownVariant").Call(jen.Lit(od.Key), jen.Id("v")))))
	absent := jen.Return(iq("MissingDiscriminator").Call(jen.Lit(od.Key)))
	if len(od.Absent) > 0 {
		absent = jen.Id("mask").Op("=").Lit(maskOf(od.Absent))
	}
	body = append(body,
		jen.List(jen.Id("v"), jen.Id("found"), jen.Err()).Op(":=").Id("d").Dot("PeekMember").Call(jen.Lit(od.Key)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Var().Id("mask").Uint64(),
		jen.If(jen.Op("!").Id("found")).Block(absent).Else().Block(jen.Switch(jen.Id("v")).Block(cases...)),
	)
	if bits.OnesCount64(all) > 1 {
		return append(body, fit...)
	}
	return append(body, jen.Return(jen.Id("x").Dot("decodeFirst").Call(jen.Id("d"), jen.Id("mask"), jen.Lit(0))))
}
