package plan

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/schema"
)

// union plans a sum type for anyOf/oneOf or a type list.
//
// Decoding picks the member in this order:
//  1. the JSON kind of the value (object, array, string, number, boolean, null);
//  2. among object members, a member whose string value every member fixes
//     with const or enum ("type", "method", "mode"); where that member is
//     optional in one variant, its absence selects that variant (ElicitRequestFormParams);
//  3. the result-type rule, when the revision's facts state one: results
//     whose members cannot be told apart by structure carry resultType,
//     whose values name a result ("input_required" → InputRequiredResult)
//     and "complete" (or absence, for results from earlier revisions) the
//     others (schema.ts narrows resultType in this way; schema.json does
//     not encode it, digest §1.8 item 3);
//  4. the best structural fit among what is left: every required member
//     present, then the fewest members the variant does not declare;
//  5. ties are settled by decoding each tied member in order and taking the
//     first that decodes and validates;
//  6. when the chosen member fails to decode or validate, the other members
//     left by 1-3 that the object may also be (none of their required
//     members missing) are tried in order: anyOf holds when any member
//     holds, so a value is rejected only when no member accepts it
//     (wireimpl.Choose). A JSON-RPC notification is never an object with
//     an id (forbidNotificationID).
func (p *planner) union(s *schema.Schema, hint string, into *Type) (*Type, error) {
	t := into
	if t == nil {
		t = &Type{Name: p.newName(hint), Pointer: s.Pointer, Doc: s.Description}
		p.addInline(t)
	}
	t.Kind = Union
	members := s.AnyOf
	if len(members) == 0 {
		members = s.OneOf
	}
	if len(members) == 0 { // a type list
		for _, ty := range inferTypes(s) {
			m := &schema.Schema{Pointer: s.Pointer + "/type", Types: []string{ty}}
			if ty != "object" && ty != "array" {
				m.Minimum, m.Maximum, m.ExclusiveMinimum, m.ExclusiveMaximum, m.MultipleOf = s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum, s.MultipleOf
				m.MinLength, m.MaxLength, m.Format, m.Pattern = s.MinLength, s.MaxLength, s.Format, s.Pattern
			}
			members = append(members, m)
		}
	}
	// An inline member that is only a type list contributes one member per
	// type (anyOf [array, type [string, number, boolean]] has four).
	var flat []*schema.Schema
	for _, m := range members {
		if m.Target == nil && len(m.Types) > 1 && len(m.AnyOf)+len(m.OneOf)+len(m.Properties) == 0 && m.Items == nil {
			for _, ty := range m.Types {
				c := *m
				c.Types = []string{ty}
				flat = append(flat, &c)
			}
			continue
		}
		flat = append(flat, m)
	}
	members = flat
	members, err := p.distribute(s, members)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for i, m := range members {
		v, err := p.value(m, t.Name+"Variant"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		variant := &Variant{Value: v, Schema: m}
		u := Underlying(v)
		switch u.Kind {
		case String:
			variant.Kind, variant.Go = wire.KindString, "String"
		case Int:
			variant.Kind, variant.Go = wire.KindNumber, "Integer"
		case Float:
			variant.Kind, variant.Go = wire.KindNumber, "Number"
		case Bool:
			variant.Kind, variant.Go = wire.KindBool, "Boolean"
		case Null:
			variant.Kind, variant.Go = wire.KindNull, "Null"
		case List:
			variant.Kind, variant.Go = wire.KindArray, "Array"
		case Dict:
			variant.Kind, variant.Go = wire.KindObject, "Object"
		case Raw:
			variant.Kind, variant.Go = u.RawKind, "JSON"
			if u.RawKind == wire.KindObject {
				variant.Go = "Object"
			} else if u.RawKind == wire.KindArray {
				variant.Go = "Array"
			}
		case Named:
			variant.Go = v.Type.Name
			switch u.Type.Kind {
			case Struct, Map:
				variant.Kind = wire.KindObject
			case Union:
				variant.Kind = wire.KindInvalid // several kinds: see ByKind
			case Enum:
				variant.Kind = wire.KindString
			case Slice:
				variant.Kind = wire.KindArray
			case Scalar:
				variant.Kind = map[ValueKind]wire.Kind{String: wire.KindString, Int: wire.KindNumber, Float: wire.KindNumber, Bool: wire.KindBool}[u.Type.Elem.Kind]
			}
		}
		if v.Kind != Named && u.Kind == Named {
			variant.Go = u.Type.Name
		}
		base := variant.Go
		for n := 2; used[variant.Go] || unionMethods[variant.Go]; n++ {
			variant.Go = base + strconv.Itoa(n)
		}
		used[variant.Go] = true
		p.describeObject(variant)
		t.Variants = append(t.Variants, variant)
	}
	forbidNotificationID(t.Variants)
	d := &Dispatch{ByKind: map[wire.Kind][]int{}}
	for i, v := range t.Variants {
		for _, k := range variantKinds(v) {
			d.ByKind[k] = append(d.ByKind[k], i)
		}
	}
	// Free-form members accept any kind: try them last.
	for k, idx := range d.ByKind {
		slices.SortStableFunc(idx, func(a, b int) int {
			return boolInt(t.Variants[a].Kind == wire.KindInvalid && Underlying(t.Variants[a].Value).Kind == Raw) -
				boolInt(t.Variants[b].Kind == wire.KindInvalid && Underlying(t.Variants[b].Value).Kind == Raw)
		})
		d.ByKind[k] = idx
	}
	if objs := d.ByKind[wire.KindObject]; len(objs) > 1 {
		d.Object = p.objectDispatch(t.Variants, objs)
	}
	t.Dispatch = d
	return t, nil
}

// unionMethods are the methods of a generated union: no member field may
// take their names.
var unionMethods = map[string]bool{
	"DecodeJSON": true, "EncodeJSON": true, "MarshalJSON": true, "UnmarshalJSON": true,
	"Validate": true, "IsZero": true,
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// variantKinds lists the JSON kinds a variant accepts.
func variantKinds(v *Variant) []wire.Kind {
	u := Underlying(v.Value)
	if u.Kind == Raw && u.RawKind == wire.KindInvalid {
		return []wire.Kind{wire.KindObject, wire.KindArray, wire.KindString, wire.KindNumber, wire.KindBool, wire.KindNull}
	}
	if u.Kind == Named && u.Type.Kind == Union {
		var ks []wire.Kind
		for _, k := range []wire.Kind{wire.KindObject, wire.KindArray, wire.KindString, wire.KindNumber, wire.KindBool, wire.KindNull} {
			if len(u.Type.Dispatch.ByKind[k]) > 0 {
				ks = append(ks, k)
			}
		}
		return ks
	}
	return []wire.Kind{v.Kind}
}

// describeObject records the members an object variant declares, requires
// and fixes to constants. A nested union contributes what all its object
// members share.
func (p *planner) describeObject(v *Variant) {
	u := Underlying(v.Value)
	if u.Kind != Named {
		return
	}
	switch u.Type.Kind {
	case Struct:
		v.Consts = map[string][]string{}
		for _, f := range u.Type.Fields {
			v.Declared = append(v.Declared, f.JSON)
			if f.Required {
				v.Required = append(v.Required, f.JSON)
			}
			if f.Const != nil && jsonType(f.Const) == "string" {
				var s string
				_ = json.Unmarshal(f.Const, &s)
				v.Consts[f.JSON] = []string{s}
			} else if f.Value != nil {
				if e := Underlying(f.Value); e.Kind == Named && e.Type.Kind == Enum {
					v.Consts[f.JSON] = e.Type.Values
				}
			}
		}
		// A const member that is optional leaves "absent" as a choice too:
		// record which consts are required.
	case Union:
		v.Consts = map[string][]string{}
		first := true
		for _, w := range u.Type.Variants {
			if w.Kind != wire.KindObject {
				continue
			}
			for _, k := range w.Declared {
				if !slices.Contains(v.Declared, k) {
					v.Declared = append(v.Declared, k)
				}
			}
			if first {
				v.Required = slices.Clone(w.Required)
			} else {
				v.Required = slices.DeleteFunc(v.Required, func(r string) bool { return !slices.Contains(w.Required, r) })
			}
			for k, vals := range w.Consts {
				for _, x := range vals {
					if !slices.Contains(v.Consts[k], x) {
						v.Consts[k] = append(v.Consts[k], x)
					}
				}
			}
			first = false
		}
		// Keep only consts every object member fixes.
		for k := range v.Consts {
			for _, w := range u.Type.Variants {
				if w.Kind == wire.KindObject && w.Consts[k] == nil {
					delete(v.Consts, k)
					break
				}
			}
		}
	}
}

// forbidNotificationID applies JSON-RPC 2.0's definition of a
// notification, "a Request object without an id member" (MSG-5), which
// schema.json does not encode (JSONRPCNotification admits any further
// member): in a union holding both a JSON-RPC request and a JSON-RPC
// notification (jsonrpc "2.0" and method; the request declares id, the
// notification does not), an object with an id is never the
// notification. Without it, a request whose id is invalid would be taken
// for a notification that carries an id.
func forbidNotificationID(vs []*Variant) {
	message := func(v *Variant) bool {
		return slices.Equal(v.Consts["jsonrpc"], []string{"2.0"}) && slices.Contains(v.Declared, "method")
	}
	request := slices.ContainsFunc(vs, func(v *Variant) bool { return message(v) && slices.Contains(v.Declared, "id") })
	for _, v := range vs {
		if request && message(v) && !slices.Contains(v.Declared, "id") {
			v.Forbidden = append(v.Forbidden, "id")
		}
	}
}

// objectDispatch plans the choice among several object variants.
func (p *planner) objectDispatch(vs []*Variant, objs []int) *ObjectDispatch {
	od := &ObjectDispatch{}
	for _, i := range objs {
		for _, k := range append(slices.Clone(vs[i].Declared), vs[i].Forbidden...) {
			if !slices.Contains(od.Keys, k) {
				od.Keys = append(od.Keys, k)
			}
		}
	}
	// Candidate discriminators: members every object variant fixes.
	bestGroups := 1
	for _, key := range od.Keys {
		values := map[string][]int{}
		var order []string
		var absent []int
		ok := true
		for _, i := range objs {
			vals, fixed := vs[i].Consts[key]
			if !fixed {
				ok = false
				break
			}
			for _, x := range vals {
				if _, seen := values[x]; !seen {
					order = append(order, x)
				}
				values[x] = append(values[x], i)
			}
			if !slices.Contains(vs[i].Required, key) {
				absent = append(absent, i)
			}
		}
		if !ok || len(values) <= bestGroups && od.Key != "" || len(values) < 2 {
			continue
		}
		bestGroups = len(values)
		od.Key, od.Values, od.Order, od.Absent = key, values, order, absent
	}
	if od.Key != "" {
		return od
	}
	// The result-type rule (facts: resultType).
	if p.facts == nil || p.facts.ResultType == nil {
		return od
	}
	rt := p.facts.ResultType
	byValue := map[string]int{} // value → variant it names
	rest := []int{}
	for _, i := range objs {
		if !slices.Contains(vs[i].Declared, rt.Member) {
			return od
		}
		named := false
		for _, v := range sortedKeys(rt.Values) {
			if vs[i].Go == rt.Values[v] {
				byValue[v], named = i, true
			}
		}
		if !named {
			rest = append(rest, i)
		}
	}
	if len(byValue) > 0 {
		od.Key, od.ResultType = rt.Member, true
		od.Values = map[string][]int{rt.Complete: rest}
		for _, v := range sortedKeys(byValue) {
			od.Values[v] = []int{byValue[v]}
			od.Order = append(od.Order, v)
		}
		od.Order = append(od.Order, rt.Complete)
		od.Absent = rest
	}
	return od
}
