package plan

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
	"github.com/mcpgen/mcpgen/schema"
)

// Options configure planning.
type Options struct {
	Package  string // Go package name
	Source   string // schema file name, for the generated header
	Revision string // protocol revision, for docs and tables
	// Facts of the revision (LoadFacts); nil generates without them.
	Facts *Facts
	// Reuse is a generated package whose definitions this one refers to
	// where the schema repeats them (LoadReuse); nil generates everything.
	Reuse *Reuse
}

// Build plans the Go package for doc.
func Build(doc *schema.Document, opts Options) (*Package, error) {
	applyQuirks(doc)
	p := &planner{
		doc:      doc,
		pkg:      &Package{Name: opts.Package, Source: opts.Source, Revision: opts.Revision, Reuse: opts.Reuse},
		defTypes: map[string]*Type{},
		defByPtr: map[string]*schema.Def{},
		names:    map[string]bool{},
		enums:    map[string]*Type{},
		inline:   map[*Type][]*Type{},
		facts:    opts.Facts,
		metaDefs: findMetaDefs(doc),
	}
	for _, d := range doc.Defs {
		name := d.Name
		if !validIdent(name) {
			return nil, p.errorf(d.Schema, "definition name %q is not a Go identifier", name)
		}
		if generatedIdents[name] {
			return nil, p.errorf(d.Schema, "definition name %q is also an identifier mcpgen generates", name)
		}
		p.names[name] = true
		p.defByPtr[d.Schema.Pointer] = d
		p.defTypes[name] = &Type{Name: name, Def: true, Pointer: d.Schema.Pointer, Doc: d.Schema.Description}
	}
	for name := range generatedIdents {
		p.names[name] = true
	}
	p.findDefEnums()
	if err := p.digests(); err != nil {
		return nil, err
	}
	if opts.Reuse != nil {
		if opts.Reuse.Package == opts.Package {
			return nil, fmt.Errorf("-reuse %s: the reused package is also named %s; choose another -package", opts.Reuse.Path, opts.Package)
		}
		if err := p.markReused(opts.Reuse); err != nil {
			return nil, err
		}
	}
	for _, d := range doc.Defs {
		if err := p.ensure(d); err != nil {
			return nil, err
		}
	}
	for _, d := range doc.Defs {
		t := p.defTypes[d.Name]
		p.pkg.Types = append(p.pkg.Types, t)
		if t.Reused == nil { // a reused definition's inline types are its package's
			p.pkg.Types = append(p.pkg.Types, p.inline[t]...)
		}
	}
	p.planRequestID()
	if err := p.checkReused(); err != nil {
		return nil, err
	}
	p.planErrorCodes()
	breakCycles(p.pkg.Types)
	if err := p.planMethods(); err != nil {
		return nil, err
	}
	p.deriveMethodFacts()
	if err := p.applyFacts(); err != nil {
		return nil, err
	}
	p.nameConsts()
	p.planMetaKeys()
	p.nameFactConsts()
	p.planConstStrings()
	return p.pkg, nil
}

// planErrorCodes collects the error codes the schema fixes: every
// definition named ...Error whose code member (its own, or that of its
// error member) is an integer constant.
func (p *planner) planErrorCodes() {
	constCode := func(t *Type) (int64, bool) {
		for _, f := range t.Fields {
			if f.JSON == "code" && f.Const != nil {
				n, err := strconv.ParseInt(string(f.Const), 10, 64)
				return n, err == nil
			}
		}
		return 0, false
	}
	for _, t := range p.pkg.Types {
		if !t.Def || t.Reused != nil || t.Kind != Struct || !strings.HasSuffix(t.Name, "Error") || t.Name == "Error" {
			continue
		}
		code, ok := constCode(t)
		if !ok {
			for _, f := range t.Fields {
				if f.JSON == "error" && f.Value != nil {
					if u := Underlying(f.Value); u.Kind == Named && u.Type.Kind == Struct {
						code, ok = constCode(u.Type)
					}
				}
			}
		}
		if !ok {
			continue
		}
		name := strings.TrimSuffix(t.Name, "Error")
		p.pkg.ErrorCodes = append(p.pkg.ErrorCodes, &ErrorCode{
			Name: name, Const: p.newName("Code" + name),
			Def: t.Name, Code: code, Doc: t.Doc,
		})
	}
}

// planRequestID makes the schema's JSON-RPC request id type (the type of
// the "id" member of the request message: the object fixing jsonrpc "2.0"
// that declares method and id) an alias of wire.ID, when it is the
// string-or-integer union every revision defines. The JSON-RPC layer and
// every generated package then share one id type.
func (p *planner) planRequestID() {
	for _, t := range p.pkg.Types {
		if t.Kind != Struct || !t.Def {
			continue
		}
		var rpc, method bool
		var id *Field
		for _, f := range t.Fields {
			switch {
			case f.JSON == "jsonrpc" && string(f.Const) == `"2.0"`:
				rpc = true
			case f.JSON == "method":
				method = true
			case f.JSON == "id":
				id = f
			}
		}
		if !rpc || !method || id == nil || id.Value == nil || id.Value.Kind != Named {
			continue
		}
		u := id.Value.Type
		if u.Kind != Union || len(u.Variants) != 2 {
			continue
		}
		kinds := map[ValueKind]bool{}
		for _, v := range u.Variants {
			kinds[v.Value.Kind] = true
		}
		if kinds[String] && kinds[Int] {
			u.Kind, u.Elem, u.Variants, u.Dispatch = Alias, &Value{Kind: ID}, nil, nil
		}
		return
	}
}

// nameConsts names the constants of enum values and methods once every
// type is named, so that no constant collides with a type, a generated
// identifier or another constant: a colliding name gets a number.
func (p *planner) nameConsts() {
	for _, t := range p.pkg.Types {
		if t.Kind != Enum {
			continue
		}
		t.Consts = make([]string, len(t.Values))
		for i, v := range t.Values {
			t.Consts[i] = p.newName(enumConstBase(t.Name, v, i))
		}
	}
	for _, m := range p.pkg.Methods {
		prefix := map[wireimpl.MethodKind]string{wireimpl.Request: "Method", wireimpl.Notification: "Notification", wireimpl.InputRequest: "Input"}[m.Kind]
		m.Const = p.newName(prefix + m.Go)
	}
}

// enumConstBase is the natural name of the constant of enum value v
// (the i-th): the type name and the value's words, RoleUser,
// CacheScopePublic; TypeValueN when the value has no letters or digits.
func enumConstBase(typeName, v string, i int) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(v, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	if b.Len() == 0 {
		return typeName + "Value" + strconv.Itoa(i)
	}
	return typeName + b.String()
}

type planner struct {
	doc      *schema.Document
	pkg      *Package
	defTypes map[string]*Type
	defByPtr map[string]*schema.Def
	names    map[string]bool
	enums    map[string]*Type
	inline   map[*Type][]*Type
	facts    *Facts
	defEnums map[string]*Type // definitions that are string enumerations, by their values
	owner    *Type            // the definition being planned; inline types attach to it
	params   bool             // the next value planned is a message's params (valueAs)
	state    map[string]int   // 1 while planning a definition, 2 once done
	// metaDefs are the definitions used as the schema of a _meta member;
	// sharedMeta the struct of inline _meta schemas that declare no key
	// (meta.go).
	metaDefs   map[*schema.Schema]bool
	sharedMeta *Type
}

// ensure plans definition d unless that is done or under way.
func (p *planner) ensure(d *schema.Def) error {
	if p.state == nil {
		p.state = map[string]int{}
	}
	if p.state[d.Name] != 0 {
		return nil
	}
	p.state[d.Name] = 1
	owner := p.owner
	p.owner = p.defTypes[d.Name]
	err := p.planDef(d)
	p.owner = owner
	p.state[d.Name] = 2
	return err
}

func (p *planner) errorf(s *schema.Schema, format string, args ...any) error {
	return &schema.Error{File: p.doc.File, Pointer: s.Pointer, Msg: fmt.Sprintf(format, args...)}
}

func validIdent(s string) bool {
	if s == "" || goKeywords[s] {
		return false
	}
	for i, r := range s {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// newName reserves a type name, adding a number when it is taken.
func (p *planner) newName(base string) string {
	name := base
	for i := 2; p.names[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	p.names[name] = true
	return name
}

func (p *planner) addInline(t *Type) {
	p.inline[p.owner] = append(p.inline[p.owner], t)
}

// planDef fills in the type of a definition.
func (p *planner) planDef(d *schema.Def) error {
	t := p.defTypes[d.Name]
	s := d.Schema
	if s.Target != nil && !refHasSiblings(s) {
		target := s.Resolve()
		if td := p.defByPtr[target.Pointer]; td != nil {
			t.Kind, t.Elem = Alias, &Value{Kind: Named, Type: p.defTypes[td.Name]}
			return p.ensure(td)
		}
	}
	v, err := p.valueAs(s, d.Name, t)
	if err != nil {
		return err
	}
	if t.Kind == 0 { // the value did not fill t itself: name it
		switch v.Kind {
		case String, Int, Float, Bool:
			t.Kind, t.Elem = Scalar, v
		case List:
			t.Kind, t.Elem = Slice, v
		case Dict:
			t.Kind, t.Elem = Map, v
		case Raw:
			t.Kind, t.Elem = Verbatim, v
		default:
			t.Kind, t.Elem = Alias, v
		}
	}
	return nil
}

// defSchema is the schema of the definition t plans, nil for an inline type.
func (p *planner) defSchema(t *Type) *schema.Schema {
	if !t.Def {
		return nil
	}
	if d := p.doc.Def(t.Name); d != nil {
		return d.Schema
	}
	return nil
}

func refHasSiblings(s *schema.Schema) bool {
	c := *s
	c.Ref, c.Target, c.Description, c.Title, c.Default = "", nil, "", "", nil
	return !c.IsTrue()
}

// unsupported are validation keywords the generator cannot honour: a
// schema using them cannot be mapped faithfully.
var unsupported = map[string]bool{
	"not": true, "if": true, "then": true, "else": true, "patternProperties": true,
	"dependentRequired": true, "dependentSchemas": true, "dependencies": true, "uniqueItems": true,
	"propertyNames": true, "prefixItems": true, "contains": true,
	"minProperties": true, "maxProperties": true, "unevaluatedProperties": true,
	"unevaluatedItems": true, "additionalItems": true, "$dynamicRef": true, "$recursiveRef": true,
}

// value plans the Go representation of s; hint names any type it needs.
func (p *planner) value(s *schema.Schema, hint string) (*Value, error) {
	return p.valueAs(s, hint, nil)
}

// valueAs is value, filling into (when not nil) instead of creating a new
// named type for structs, unions and enums.
func (p *planner) valueAs(s *schema.Schema, hint string, into *Type) (*Value, error) {
	params := p.params // this value is a message's params (see object)
	p.params = false
	if s.Target != nil && !refHasSiblings(s) {
		target := s.Resolve()
		if d := p.defByPtr[target.Pointer]; d != nil {
			if err := p.ensure(d); err != nil {
				return nil, err
			}
			return &Value{Kind: Named, Type: p.defTypes[d.Name]}, nil
		}
		s = target
	}
	s, err := p.doc.Flatten(s)
	if err != nil {
		return nil, err
	}
	if kw := unmappable(s); kw != "" {
		return nil, p.errorf(s, "keyword %q cannot be mapped to Go", kw)
	}
	if isFalse(s) {
		return nil, p.errorf(s, "the schema false admits no value and cannot be mapped to Go")
	}
	if s.IsTrue() {
		return &Value{Kind: Raw}, nil
	}
	if k, ok := p.rawKind(s); ok && !(into != nil && p.metaDefs[p.defSchema(into)] && metaObject(s)) {
		v := &Value{Kind: Raw, RawKind: k}
		if k == wire.KindObject && s.AdditionalProperties != nil {
			// {additionalProperties: JSONObject} (experimental, extensions):
			// kept verbatim, but every member must still be an object.
			v.ValuesKind = compoundKind(s.AdditionalProperties.Resolve())
		}
		return v, nil
	}
	if vals, ok := constStrings(s); ok {
		t, err := p.enum(asEnum(s, vals), hint, into)
		if err != nil {
			return nil, err
		}
		return &Value{Kind: Named, Type: t}, nil
	}
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		t, err := p.union(s, hint, into)
		if err != nil {
			return nil, err
		}
		return &Value{Kind: Named, Type: t}, nil
	}
	types := inferTypes(s)
	checks := checksOf(s)
	switch len(types) {
	case 0:
		return &Value{Kind: Raw, Checks: checks}, nil
	case 1:
	default:
		t, err := p.union(s, hint, into)
		if err != nil {
			return nil, err
		}
		return &Value{Kind: Named, Type: t}, nil
	}
	switch types[0] {
	case "object":
		if len(s.Properties) == 0 && s.AdditionalProperties != nil && !s.AdditionalProperties.IsTrue() && !isFalse(s.AdditionalProperties) {
			elem, err := p.value(s.AdditionalProperties, hint+"Value")
			if err != nil {
				return nil, err
			}
			return &Value{Kind: Dict, Elem: elem, Checks: checks}, nil
		}
		if into == nil && !params {
			if members, ok := openScalarObject(s); ok {
				return &Value{Kind: Raw, RawKind: wire.KindObject, Checks: checks, Members: members}, nil
			}
		}
		t, err := p.object(s, hint, into)
		if err != nil {
			return nil, err
		}
		return &Value{Kind: Named, Type: t}, nil
	case "array":
		if s.Items == nil {
			return &Value{Kind: Raw, RawKind: wire.KindArray, Checks: checks}, nil
		}
		elem, err := p.value(s.Items, hint+"Item")
		if err != nil {
			return nil, err
		}
		return &Value{Kind: List, Elem: elem, Checks: checks}, nil
	case "string":
		if len(s.Enum) > 0 {
			t, err := p.enum(s, hint, into)
			if err != nil {
				return nil, err
			}
			return &Value{Kind: Named, Type: t, Checks: checks}, nil
		}
		return &Value{Kind: String, Checks: checks}, nil
	case "integer":
		return &Value{Kind: Int, Checks: checks}, nil
	case "number":
		return &Value{Kind: Float, Checks: checks}, nil
	case "boolean":
		return &Value{Kind: Bool, Checks: checks}, nil
	case "null":
		return &Value{Kind: Null}, nil
	}
	return nil, p.errorf(s, "unknown type %q", types[0])
}

// inferTypes returns the schema's types, inferred from other keywords
// when "type" is absent.
func inferTypes(s *schema.Schema) []string {
	if len(s.Types) > 0 {
		return s.Types
	}
	switch {
	case len(s.Properties) > 0 || s.AdditionalProperties != nil || len(s.Required) > 0:
		return []string{"object"}
	case s.Items != nil || s.MinItems != nil || s.MaxItems != nil:
		return []string{"array"}
	case s.HasConst:
		return []string{jsonType(s.Const)}
	case len(s.Enum) > 0:
		t := jsonType(s.Enum[0])
		for _, e := range s.Enum[1:] {
			if jsonType(e) != t {
				return nil
			}
		}
		return []string{t}
	}
	return nil
}

func jsonType(lit []byte) string {
	if len(lit) == 0 {
		return ""
	}
	switch lit[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if strings.ContainsAny(string(lit), ".eE") {
		return "number"
	}
	return "integer"
}

// compoundKind is the JSON kind s admits when that is exactly one of
// object or array, else KindInvalid.
func compoundKind(s *schema.Schema) wire.Kind {
	if len(s.AnyOf)+len(s.OneOf) > 0 {
		return wire.KindInvalid
	}
	if t := inferTypes(s); len(t) == 1 {
		switch t[0] {
		case "object":
			return wire.KindObject
		case "array":
			return wire.KindArray
		}
	}
	return wire.KindInvalid
}

func checksOf(s *schema.Schema) Checks {
	return Checks{
		Minimum: s.Minimum, Maximum: s.Maximum,
		ExclusiveMinimum: s.ExclusiveMinimum, ExclusiveMaximum: s.ExclusiveMaximum, MultipleOf: s.MultipleOf,
		MinLength: s.MinLength, MaxLength: s.MaxLength, MinItems: s.MinItems, MaxItems: s.MaxItems,
		Format: s.Format, Pattern: s.Pattern,
	}
}

// rawKind reports whether s is free-form JSON (kept verbatim): any value,
// an object with no declared members whose values are free-form, an array
// of free-form values, or a union of free-form schemas (JSONValue).
func (p *planner) rawKind(s *schema.Schema) (wire.Kind, bool) {
	if !p.freeForm(s, map[string]bool{}, true) {
		return 0, false
	}
	switch t := inferTypes(s); {
	case len(s.AnyOf)+len(s.OneOf) > 0 || len(t) != 1:
		return wire.KindInvalid, true
	case t[0] == "object":
		return wire.KindObject, true
	case t[0] == "array":
		return wire.KindArray, true
	}
	return 0, false
}

// freeForm: see rawKind. A lone scalar type is not free-form at the top
// (a string is a string), but is inside a union or a type list.
func (p *planner) freeForm(s *schema.Schema, visiting map[string]bool, top bool) bool {
	if s.Target != nil {
		if refHasSiblings(s) {
			return false
		}
		t := s.Resolve()
		if visiting[t.Pointer] {
			return true
		}
		visiting[t.Pointer] = true
		defer delete(visiting, t.Pointer)
		return p.freeForm(t, visiting, top)
	}
	if s.IsTrue() {
		return true
	}
	if len(s.AllOf) > 0 || s.HasConst || len(s.Enum) > 0 || !checksOf(s).Empty() || len(s.Required) > 0 || len(s.Properties) > 0 {
		return false
	}
	if unmappable(s) != "" {
		return false
	}
	if alts := append(append([]*schema.Schema(nil), s.AnyOf...), s.OneOf...); len(alts) > 0 {
		compound := false
		for _, a := range alts {
			if !p.freeForm(a, visiting, false) {
				return false
			}
			if t := inferTypes(a.Resolve()); len(t) == 1 && (t[0] == "object" || t[0] == "array") {
				compound = true
			}
		}
		return compound || !top
	}
	types := inferTypes(s)
	switch {
	case len(types) > 1:
		return !top
	case len(types) == 0:
		return true
	case types[0] == "object":
		return s.AdditionalProperties == nil || !isFalse(s.AdditionalProperties) && p.freeForm(s.AdditionalProperties, visiting, false)
	case types[0] == "array":
		return s.Items == nil || p.freeForm(s.Items, visiting, false)
	}
	return false
}

// object plans a struct.
func (p *planner) object(s *schema.Schema, hint string, into *Type) (*Type, error) {
	t := into
	if t == nil {
		t = &Type{Name: p.newName(hint), Pointer: s.Pointer, Doc: s.Description}
		p.addInline(t)
	}
	t.Kind = Struct
	t.Extra = s.AdditionalProperties == nil || !isFalse(s.AdditionalProperties)
	props := s.Properties
	for _, r := range s.Required {
		if s.Property(r) == nil { // required but not declared: any value
			props = append(props, &schema.Property{Name: r, Schema: &schema.Schema{Pointer: s.Pointer + "/required"}})
		}
	}
	goNames := map[string]bool{}
	for i, prop := range props {
		f := &Field{JSON: prop.Name, Required: s.IsRequired(prop.Name), Index: i}
		ps := prop.Schema
		f.Doc = ps.Description
		resolved := ps.Resolve()
		if fl, err := p.doc.Flatten(resolved); err == nil {
			resolved = fl
		} else {
			return nil, err
		}
		name := exported(prop.Name)
		for reserved[name] || goNames[name] {
			name += "_"
		}
		if resolved.HasConst && isScalarLit(resolved.Const) {
			f.Const = resolved.Const
			f.ConstGo = string(resolved.Const)
			kind := map[string]ValueKind{"string": String, "integer": Int, "number": Float, "boolean": Bool}[jsonType(resolved.Const)]
			f.Value = &Value{Kind: kind}
			if f.Required {
				f.Repr = NoField
			} else {
				f.Go, f.Repr = name, Optional
				goNames[name] = true
			}
			t.Fields = append(t.Fields, f)
			continue
		}
		f.Go = name
		goNames[name] = true
		// The params of a JSON-RPC message are a struct even when they
		// declare only scalars beside open members (an extension's
		// {"taskId": string} merged with JSONRPCRequest's open params):
		// the method table reads their members.
		p.params = prop.Name == "params" && s.Property("method") != nil && s.Property("jsonrpc") != nil
		var v *Value
		var err error
		if prop.Name == metaMember {
			v, err = p.metaValue(ps, t.Name+typeName(prop.Name))
		} else {
			v, err = p.value(ps, t.Name+typeName(prop.Name))
		}
		if err != nil {
			return nil, err
		}
		f.Value = v
		f.Repr = reprOf(v, f.Required)
		t.Fields = append(t.Fields, f)
	}
	if len(t.Fields) > 64*4 {
		return nil, p.errorf(s, "more than %d members cannot be mapped", 64*4)
	}
	return t, nil
}

func isScalarLit(lit []byte) bool {
	switch jsonType(lit) {
	case "string", "integer", "number", "boolean":
		return true
	}
	return false
}

// reprOf picks how a member keeps presence.
func reprOf(v *Value, required bool) Repr {
	if required {
		return Plain
	}
	u := Underlying(v)
	switch u.Kind {
	case Raw, List, Dict, Null:
		return Plain
	case Named:
		switch u.Type.Kind {
		case Struct:
			return Pointer
		case Union, Map, Slice, Verbatim:
			return Plain
		}
	case ID:
		return Plain
	}
	return Optional
}

// Underlying follows aliases.
func Underlying(v *Value) *Value {
	for i := 0; v.Kind == Named && v.Type.Kind == Alias && i < 64; i++ {
		v = v.Type.Elem
	}
	return v
}

// enum plans a string enumeration. Inline enums with the same member name
// and values share one type (cacheScope appears in six results).
func (p *planner) enum(s *schema.Schema, hint string, into *Type) (*Type, error) {
	var values []string
	for _, e := range s.Enum {
		var v string
		if err := json.Unmarshal(e, &v); err != nil {
			return nil, p.errorf(s, "enum value %s is not a string", e)
		}
		values = append(values, v)
	}
	if into != nil {
		into.Kind, into.Values = Enum, values
		return into, nil
	}
	key := strings.Join(values, "\x00")
	if d := p.defEnums[key]; d != nil {
		// The values of a definition: its type (TaskStatus, inlined again
		// as Task.status).
		if err := p.ensure(p.defByPtr[d.Pointer]); err != nil {
			return nil, err
		}
		return d, nil
	}
	prop := lastSegment(s.Pointer)
	cacheKey := prop + "\x01" + key
	if p.owner != nil && p.owner.Reused != nil {
		// Inline types of a reused definition are not generated: they
		// are not shared with the package's own definitions.
		cacheKey = "\x02" + cacheKey
	}
	if t := p.enums[cacheKey]; t != nil {
		return t, nil
	}
	name := hint
	if prop != "" && !p.names[typeName(prop)] && p.sharedEnum(prop, key) {
		name = typeName(prop)
	}
	t := &Type{Name: p.newName(name), Kind: Enum, Values: values, Pointer: s.Pointer, Doc: s.Description}
	p.enums[cacheKey] = t
	p.addInline(t)
	return t, nil
}

// sharedEnum reports whether more than one member named prop declares
// the same inline enumeration.
func (p *planner) sharedEnum(prop, key string) bool {
	n := 0
	var walk func(s *schema.Schema)
	walk = func(s *schema.Schema) {
		for _, pr := range s.Properties {
			enum := pr.Schema.Enum
			if vals, ok := constStrings(pr.Schema); ok {
				enum = vals
			}
			if pr.Name == prop && pr.Schema.Target == nil && len(enum) > 0 {
				var vs []string
				for _, e := range enum {
					var v string
					_ = json.Unmarshal(e, &v)
					vs = append(vs, v)
				}
				if strings.Join(vs, "\x00") == key {
					n++
				}
			}
			walk(pr.Schema)
		}
	}
	for _, d := range p.doc.Defs {
		walk(d.Schema)
	}
	return n > 1
}

func lastSegment(ptr string) string {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return ""
	}
	seg := ptr[i+1:]
	if seg == "" || seg[0] >= '0' && seg[0] <= '9' {
		return ""
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
}

// breakCycles turns into pointers the struct members that would make a
// type contain itself by value.
func breakCycles(types []*Type) {
	state := map[*Type]int{} // 1 visiting, 2 done
	var visit func(t *Type)
	visit = func(t *Type) {
		state[t] = 1
		for _, f := range t.Fields {
			if f.Repr != Plain || f.Value == nil {
				continue
			}
			u := Underlying(f.Value)
			if u.Kind != Named || u.Type.Kind != Struct {
				continue
			}
			switch state[u.Type] {
			case 1:
				f.Repr = Pointer
			case 0:
				visit(u.Type)
			}
		}
		state[t] = 2
	}
	for _, t := range types {
		if t.Kind == Struct && state[t] == 0 {
			visit(t)
		}
	}
}

// openScalarObject reports whether s is an open object (additionalProperties
// true or {}) that declares only scalar members, like Tool.inputSchema:
// such an object is kept verbatim and its declared members are checked on
// the raw bytes.
func openScalarObject(s *schema.Schema) ([]RawMember, bool) {
	if s.AdditionalProperties == nil || !s.AdditionalProperties.IsTrue() || len(s.Properties) == 0 {
		return nil, false
	}
	var out []RawMember
	for _, pr := range s.Properties {
		ps := pr.Schema.Resolve()
		if ps.Target != nil || len(ps.AnyOf)+len(ps.OneOf)+len(ps.AllOf) > 0 || len(ps.Enum) > 0 || !checksOf(ps).Empty() {
			return nil, false
		}
		t := inferTypes(ps)
		if len(t) != 1 {
			return nil, false
		}
		kind := map[string]ValueKind{"string": String, "integer": Int, "number": Float, "boolean": Bool}[t[0]]
		if kind == 0 {
			return nil, false
		}
		m := RawMember{Name: pr.Name, Required: s.IsRequired(pr.Name), Kind: kind}
		if ps.HasConst {
			m.Const = ps.Const
		}
		out = append(out, m)
	}
	return out, true
}
