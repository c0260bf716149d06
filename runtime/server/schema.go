package server

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Deriving JSON Schemas from Go types, once per registration (never per
// call). The schema describes what encoding/json does with the type: for
// an input (SchemaFor) the JSON it decodes, for an output
// (OutputSchemaFor) the JSON it produces.

// A Schemer describes its own JSON. SchemaFor and OutputSchemaFor use the
// document JSONSchema returns for the type instead of deriving one; it
// must be a self-contained JSON Schema (no $ref to "#", which would mean
// the document it is embedded in). Types with their own MarshalJSON or
// UnmarshalJSON that do not implement Schemer are described as any value
// ({}), which is always true of them.
type Schemer interface {
	JSONSchema() wire.Raw
}

// SchemaFor derives the JSON Schema of the arguments a tool of type T
// accepts (its inputSchema): T is a struct, or a map with string keys. A
// struct has one property per exported field, named by its json tag,
// required unless the tag says omitempty or omitzero or the field is a
// pointer; a `description:"..."` tag adds a description. Fields of
// embedded structs are promoted as encoding/json does; time.Time is a
// date-time string, []byte a base64 string, a type with UnmarshalText a
// string, a type with its own UnmarshalJSON (generated types) any value for
// its decoder to check, unless it is a Schemer; an interface field (any)
// is any value, written {} (never true, which some clients reject). A
// recursive type is described once under $defs and referred to with $ref
// ("#" for the root type).
func SchemaFor[T any]() (wire.Raw, error) {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if k := t.Kind(); k != reflect.Struct && k != reflect.Map {
		return nil, fmt.Errorf("server: arguments type %s is not a struct or a map", t)
	}
	g := newSchemaGen(t, false)
	s, err := g.describe(t, true, t.String())
	if err != nil {
		return nil, err
	}
	if s["type"] == nil && s["$ref"] == nil {
		s["type"] = "object" // a type that decodes itself (TOOL-5)
	}
	return g.document(s)
}

// OutputSchemaFor derives the JSON Schema of the JSON encoding/json
// produces for a value of type T (a tool's outputSchema). It differs from
// SchemaFor where encoding and decoding differ: every field is required
// unless its tag says omitempty or omitzero (a false, 0 or "" without
// those is always written, and described as required), and a pointer,
// slice or map that may be nil without them may also be null; a type with
// its own MarshalJSON (or MarshalText) is described as any value (or a
// string) unless it is a Schemer. T may be any type with a JSON form;
// a struct (an object) is what every client and the 2025-11-25 revision
// accept.
func OutputSchemaFor[T any]() (wire.Raw, error) {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	g := newSchemaGen(t, true)
	s, err := g.describe(t, true, t.String())
	if err != nil {
		return nil, err
	}
	return g.document(s)
}

var (
	timeType            = reflect.TypeFor[time.Time]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	schemerType         = reflect.TypeFor[Schemer]()
)

// maxSchemaDepth bounds the nesting of a derived schema (recursion aside,
// which $ref handles).
const maxSchemaDepth = 64

type schemaGen struct {
	output bool         // describe encoding (else decoding)
	root   reflect.Type // described inline; recursion to it is "#"
	active map[reflect.Type]bool
	recur  map[reflect.Type]bool // struct types met while being described
	names  map[reflect.Type]string
	taken  map[string]bool
	defs   map[string]any
	depth  int
}

func newSchemaGen(root reflect.Type, output bool) *schemaGen {
	return &schemaGen{output: output, root: root, active: map[reflect.Type]bool{},
		recur: map[reflect.Type]bool{}, names: map[reflect.Type]string{}, taken: map[string]bool{}, defs: map[string]any{}}
}

// document encodes the root schema with the $defs collected.
func (g *schemaGen) document(s map[string]any) (wire.Raw, error) {
	if len(g.defs) > 0 {
		s["$defs"] = g.defs
	}
	return wire.RawOf(s)
}

// implements reports whether t has the method set of iface as encoding/json
// sees it: through a pointer when the value is addressable (fields, slice
// elements and pointees are; map values and a value in an interface are
// not).
func implements(t, iface reflect.Type, addressable bool) bool {
	return t.Implements(iface) || addressable && t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface)
}

// describe returns the schema of t. at names the place, for errors.
func (g *schemaGen) describe(t reflect.Type, addressable bool, at string) (map[string]any, error) {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > maxSchemaDepth {
		return nil, fmt.Errorf("server: %s: type %s nests too deeply for a schema", at, t)
	}
	if t.Kind() == reflect.Pointer {
		// encoding/json encodes a pointer as its pointee (nil as null) and
		// decodes into the pointee: the pointee, addressable, says how.
		return g.describe(t.Elem(), true, at)
	}
	// A marshaler with a pointer receiver is not used on a value that is
	// not addressable (a map value): encoding/json then writes the plain
	// form, which no Schemer of the type describes.
	hidden := g.output && !addressable &&
		(implements(t, jsonMarshalerType, true) && !implements(t, jsonMarshalerType, false) ||
			implements(t, textMarshalerType, true) && !implements(t, textMarshalerType, false))
	if t.Kind() != reflect.Interface && !hidden {
		if implements(t, schemerType, addressable || !g.output) {
			var sc Schemer
			if t.Implements(schemerType) {
				sc = reflect.New(t).Elem().Interface().(Schemer)
			} else {
				sc = reflect.New(t).Interface().(Schemer)
			}
			var m map[string]any
			if err := json.Unmarshal(sc.JSONSchema(), &m); err != nil {
				return nil, fmt.Errorf("server: %s: JSONSchema of %s is not a JSON Schema object: %v", at, t, err)
			}
			return m, nil
		}
		if t == timeType {
			return map[string]any{"type": "string", "format": "date-time"}, nil
		}
		// Types that encode or decode themselves: their JSON form is theirs.
		if g.output {
			switch {
			case implements(t, jsonMarshalerType, addressable):
				return map[string]any{}, nil
			case implements(t, textMarshalerType, addressable):
				return map[string]any{"type": "string"}, nil
			}
		} else {
			switch pt := reflect.PointerTo(t); {
			case pt.Implements(jsonUnmarshalerType):
				return map[string]any{}, nil // any value; its decoder checks it
			case pt.Implements(textUnmarshalerType):
				return map[string]any{"type": "string"}, nil
			}
		}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return map[string]any{"type": "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}, nil
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !implements(t.Elem(), jsonMarshalerType, true) && !implements(t.Elem(), textMarshalerType, true) {
			return map[string]any{"type": "string", "contentEncoding": "base64"}, nil
		}
		items, err := g.describe(t.Elem(), true, at+"[]")
		if err != nil {
			return nil, err
		}
		s := map[string]any{"type": "array", "items": g.nullable(t.Elem(), items)}
		if t.Kind() == reflect.Array {
			s["minItems"], s["maxItems"] = t.Len(), t.Len()
		}
		return s, nil
	case reflect.Map:
		switch k := t.Key(); {
		case k.Kind() == reflect.String,
			k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr,
			g.output && implements(k, textMarshalerType, false),
			!g.output && reflect.PointerTo(k).Implements(textUnmarshalerType):
		default:
			return nil, fmt.Errorf("server: %s: map key type %s has no JSON form", at, k)
		}
		vals, err := g.describe(t.Elem(), false, at+"[key]")
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "object", "additionalProperties": g.nullable(t.Elem(), vals)}, nil
	case reflect.Interface:
		return map[string]any{}, nil // any value (never the schema true)
	case reflect.Struct:
		return g.describeStruct(t, at)
	}
	return nil, fmt.Errorf("server: %s: type %s has no JSON form", at, t)
}

// describeStruct describes a struct: inline, or, for a type met inside
// itself, under $defs with a $ref in its place.
func (g *schemaGen) describeStruct(t reflect.Type, at string) (map[string]any, error) {
	if g.active[t] {
		g.recur[t] = true
		return g.ref(t), nil
	}
	if _, ok := g.defs[g.names[t]]; ok && g.names[t] != "" {
		return g.ref(t), nil
	}
	g.active[t] = true
	props := map[string]any{}
	var required []string
	if err := g.fields(t, at, props, map[string]int{}, &required, true, 0, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	delete(g.active, t)
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	if g.recur[t] && t != g.root {
		g.defs[g.defName(t)] = s
		return g.ref(t), nil
	}
	return s, nil
}

// ref is the reference to struct type t's schema.
func (g *schemaGen) ref(t reflect.Type) map[string]any {
	if t == g.root {
		return map[string]any{"$ref": "#"}
	}
	return map[string]any{"$ref": "#/$defs/" + g.defName(t)}
}

// defName names t under $defs: its Go name, made unique.
func (g *schemaGen) defName(t reflect.Type) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	base := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			return r
		}
		return '_'
	}, t.Name())
	if base == "" {
		base = "T"
	}
	n := base
	for i := 2; g.taken[n]; i++ {
		n = base + strconv.Itoa(i)
	}
	g.taken[n], g.names[t] = true, n
	return n
}

// nullable lets an output schema s of a type that encodes nil as null
// also accept null.
func (g *schemaGen) nullable(t reflect.Type, s map[string]any) map[string]any {
	if !g.output {
		return s
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
	default:
		return s
	}
	if len(s) == 0 {
		return s // any value already
	}
	if typ, ok := s["type"].(string); ok && s["$ref"] == nil {
		out := make(map[string]any, len(s))
		for k, v := range s {
			out[k] = v
		}
		out["type"] = []any{typ, "null"}
		return out
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

// fields adds the members encoding/json reads or writes for struct t: its
// exported fields and, as encoding/json promotes them, the fields of
// embedded structs without a json name (optional when embedded through a
// pointer, which may stay nil). A name at a shallower depth wins, and an
// embedded type is visited once (embedding through pointers may cycle), as
// in encoding/json.
func (g *schemaGen) fields(t reflect.Type, at string, props map[string]any, depthOf map[string]int, required *[]string, mayRequire bool, depth int, visited map[reflect.Type]bool) error {
	visited[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := cutComma(tag)
		if f.Anonymous && name == "" {
			ft, ptr := f.Type, f.Type.Kind() == reflect.Pointer
			if ptr {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if !visited[ft] {
					if err := g.fields(ft, at, props, depthOf, required, mayRequire && !ptr, depth+1, visited); err != nil {
						return err
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if d, seen := depthOf[name]; seen && d <= depth {
			continue
		}
		omit := containsOpt(opts, "omitempty") || containsOpt(opts, "omitzero")
		var ps map[string]any
		if containsOpt(opts, "string") && quotable(f.Type) {
			ps = map[string]any{"type": "string"} // the ,string option
		} else {
			var err error
			if ps, err = g.describe(f.Type, true, at+"."+name); err != nil {
				return err
			}
			if !omit {
				ps = g.nullable(f.Type, ps)
			}
		}
		if d := f.Tag.Get("description"); d != "" {
			ps = withMember(ps, "description", d) // beside a $ref too (2020-12)
		}
		if _, seen := depthOf[name]; seen {
			*required = removeString(*required, name)
		}
		props[name], depthOf[name] = ps, depth
		if mayRequire && !omit && (g.output || f.Type.Kind() != reflect.Pointer) {
			*required = append(*required, name)
		}
	}
	return nil
}

// quotable reports a type the ,string option applies to.
func quotable(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// withMember returns a copy of s with key set (s may be shared).
func withMember(s map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(s)+1)
	for k, x := range s {
		out[k] = x
	}
	out[key] = v
	return out
}

func removeString(list []string, s string) []string {
	for i, x := range list {
		if x == s {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

func cutComma(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func containsOpt(opts, o string) bool {
	for opts != "" {
		var cur string
		cur, opts, _ = cutComma(opts)
		if cur == o {
			return true
		}
	}
	return false
}
