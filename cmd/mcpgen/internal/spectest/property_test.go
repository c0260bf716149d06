package spectest

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// TestValidMeansEncodable is the property of issue 12 item 2, over every
// definition of gen/mcp: a value that passes Validate encodes (Marshal)
// to JSON that decodes into the same type and validates again. And the
// other way round: Marshal fails only with a *wire.EncodeError, and only
// for a value Validate rejects too.
//
// The values are the zero value of every definition (mcp.NewDefinition)
// and values built the way Go code builds them: the spec examples and the
// harness's generated instances of every definition, decoded, then
// changed in Go one place at a time, at every place reflection reaches
// (every exported field, element and pointer target): set to its zero
// value; a union given a second member; a slice given a zero element; a
// wire.Opt flipped; a float64 made NaN or infinite; a wire.Raw given JSON
// of another kind.
//
// Not covered: a wire.Raw holding bytes that are not JSON (Validate checks
// the kind of a verbatim value set in Go, not its syntax; decoded values
// were checked while decoding), and strings that are not UTF-8 (the
// encoder writes U+FFFD for invalid bytes, so the property holds but the
// value changes).
func TestValidMeansEncodable(t *testing.T) {
	h := loadHarness(t)
	var checked, valid, refused int
	fail := func(def, what string, format string, args ...any) {
		t.Helper()
		t.Errorf("%s, %s: %s", def, what, fmt.Sprintf(format, args...))
	}
	check := func(def, what string, v wireCodec) {
		checked++
		verr := v.Validate()
		out, merr := mcp.Marshal(v)
		var ee *wire.EncodeError
		if merr != nil && !errors.As(merr, &ee) {
			fail(def, what, "Marshal failed without an EncodeError: %v", merr)
		}
		if encErr := v.Encodable(); (encErr == nil) != (merr == nil) {
			fail(def, what, "Encodable() = %v but Marshal error %v", encErr, merr)
		}
		if verr != nil {
			if merr != nil {
				refused++
			}
			return
		}
		valid++
		if merr != nil {
			fail(def, what, "Validate passes but Marshal fails: %v", merr)
			return
		}
		back, _ := mcp.NewDefinition(def)
		if err := mcp.Unmarshal(out, back); err != nil {
			fail(def, what, "Validate passes but the encoding does not decode: %v\n%s", err, out)
			return
		}
		if err := back.Validate(); err != nil {
			fail(def, what, "Validate passes but the decoded encoding does not validate: %v\n%s", err, out)
		}
	}
	for _, def := range h.doc.names {
		zero, ok := mcp.NewDefinition(def)
		if !ok {
			t.Fatalf("NewDefinition(%q) = false", def)
		}
		check(def, "zero value", zero.(wireCodec))

		seeds, _, _ := h.corpus(t, def)
		n := 0
		for _, s := range seeds {
			if s.kind == "minimal" {
				continue
			}
			decode := func() wireCodec {
				v, _ := mcp.NewDefinition(def)
				if err := mcp.Unmarshal(s.data, v); err != nil {
					return nil
				}
				return v.(wireCodec)
			}
			v := decode()
			if v == nil {
				continue // a seed the generated package rejects (a deviation)
			}
			if n++; n > 8 {
				break // eight seeds per definition reach every place of it
			}
			check(def, s.origin, v)
			sites := collectSites(reflect.ValueOf(v).Elem(), nil, "", 0)
			for i, site := range sites {
				for _, m := range mutationsFor(site.typ) {
					w := decode()
					at := siteAt(reflect.ValueOf(w).Elem(), sites[i].path)
					if !at.IsValid() || !m.apply(at) {
						continue
					}
					check(def, s.origin+": "+m.name+" at "+site.String(), w)
				}
			}
		}
	}
	t.Logf("%d values checked: %d pass Validate (each encodes, decodes and validates again), %d refused by Marshal (and by Validate)", checked, valid, refused)
	if valid < 1000 || refused < 100 {
		t.Errorf("too few values: %d valid, %d refused", valid, refused)
	}
}

// wireCodec is what every generated type implements.
type wireCodec interface {
	wireimpl.Codec
	Encodable() error
}

// site is a place inside a value that a mutation may change: the path of
// field indices, element indices and pointer dereferences from the root.
type site struct {
	path []pathStep
	typ  reflect.Type
	name string // for messages
}

type pathStep struct {
	field int // field index, or -1
	elem  int // element index, or -1
	deref bool
}

func (s site) String() string {
	if s.name == "" {
		return "the value"
	}
	return s.name
}

var membersType = reflect.TypeFor[wire.Members]()

// collectSites lists the places under v (addressable), v included; name
// is v's Go path (.Params.Content[0]).
func collectSites(v reflect.Value, path []pathStep, name string, depth int) []site {
	out := []site{{path: append([]pathStep(nil), path...), typ: v.Type(), name: name}}
	if depth > 12 {
		return out
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			out = append(out, collectSites(v.Elem(), append(path, pathStep{field: -1, elem: -1, deref: true}), name, depth+1)[1:]...)
		}
	case reflect.Struct:
		if isOpt(v.Type()) {
			return out
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Type == membersType {
				continue
			}
			out = append(out, collectSites(v.Field(i), append(path, pathStep{field: i, elem: -1}), name+"."+f.Name, depth+1)...)
		}
	case reflect.Slice:
		if isRaw(v.Type()) {
			return out
		}
		for i := 0; i < v.Len() && i < 3; i++ {
			out = append(out, collectSites(v.Index(i), append(path, pathStep{field: -1, elem: i}), fmt.Sprintf("%s[%d]", name, i), depth+1)...)
		}
	}
	return out
}

// isRaw reports whether t is wire.Raw or a named verbatim type (JSONObject).
func isRaw(t reflect.Type) bool { return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 }

// siteAt follows path from v.
func siteAt(v reflect.Value, path []pathStep) reflect.Value {
	for _, s := range path {
		switch {
		case s.deref:
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		case s.elem >= 0:
			if s.elem >= v.Len() {
				return reflect.Value{}
			}
			v = v.Index(s.elem)
		default:
			v = v.Field(s.field)
		}
	}
	return v
}

// isOpt reports whether t is a wire.Opt[T].
func isOpt(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == "github.com/mcpgen/mcpgen/runtime/wire" && strings.HasPrefix(t.Name(), "Opt[")
}

// isUnion reports whether t is a generated union: a struct with a Member
// method whose fields are its members.
func isUnion(t reflect.Type) bool {
	_, ok := reflect.PointerTo(t).MethodByName("Member")
	return ok && t.Kind() == reflect.Struct
}

type mutation struct {
	name  string
	apply func(v reflect.Value) bool // false: nothing changed
}

// mutationsFor lists the mutations of a place of type t.
func mutationsFor(t reflect.Type) []mutation {
	ms := []mutation{{"zero", func(v reflect.Value) bool {
		if v.IsZero() {
			return false
		}
		v.Set(reflect.Zero(v.Type()))
		return true
	}}}
	switch {
	case isRaw(t):
		for _, lit := range []string{`{}`, `[]`, `1`, `"s"`, `null`} {
			ms = append(ms, mutation{"raw " + lit, func(v reflect.Value) bool {
				v.Set(reflect.ValueOf(wire.Raw(lit)).Convert(v.Type()))
				return true
			}})
		}
	case isOpt(t):
		ms = append(ms, mutation{"flip Set", func(v reflect.Value) bool {
			set := v.FieldByName("Set")
			set.SetBool(!set.Bool())
			return true
		}})
	case isUnion(t):
		ms = append(ms, mutation{"another member", func(v reflect.Value) bool {
			for i := 0; i < v.NumField(); i++ {
				f := v.Field(i)
				switch {
				case f.Kind() == reflect.Pointer && f.IsNil():
					f.Set(reflect.New(f.Type().Elem()))
					return true
				case isOpt(f.Type()) && !f.FieldByName("Set").Bool():
					f.FieldByName("Set").SetBool(true)
					return true
				}
			}
			return false
		}})
	case t.Kind() == reflect.Float64:
		for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			ms = append(ms, mutation{fmt.Sprint(x), func(v reflect.Value) bool { v.SetFloat(x); return true }})
		}
	case t.Kind() == reflect.Slice:
		ms = append(ms, mutation{"append a zero element", func(v reflect.Value) bool {
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
			return true
		}})
	}
	return ms
}
