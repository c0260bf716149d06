package plan

import "github.com/mcpgen/mcpgen/schema"

// The _meta member every MCP object may carry is the same kind of Go value
// wherever it appears: a struct (with the reserved keys it declares as
// fields and every other key in Extra, values verbatim), held by pointer
// when optional like every optional struct. Without this rule a _meta
// schema that declares no key ({"type": "object"}: MetaObject, and the
// inline _meta of earlier revisions) would be planned as free-form JSON,
// a wire.Raw, beside the structs of the _meta schemas that declare keys
// (ResultMetaObject): Tool.Meta a value, CallToolResult.Meta a pointer.

// metaMember is the member name MCP reserves for metadata.
const metaMember = "_meta"

// findMetaDefs returns the definitions that are the schema of a _meta
// member somewhere in the document.
func findMetaDefs(doc *schema.Document) map[*schema.Schema]bool {
	out := map[*schema.Schema]bool{}
	seen := map[*schema.Schema]bool{}
	var walk func(s *schema.Schema)
	walk = func(s *schema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for _, pr := range s.Properties {
			if pr.Name == metaMember && pr.Schema.Target != nil && !refHasSiblings(pr.Schema) {
				out[pr.Schema.Resolve()] = true
			}
			walk(pr.Schema)
		}
		for _, c := range append(append(append([]*schema.Schema{s.Items, s.AdditionalProperties, s.Target}, s.AnyOf...), s.OneOf...), s.AllOf...) {
			walk(c)
		}
	}
	for _, d := range doc.Defs {
		walk(d.Schema)
	}
	return out
}

// metaObject reports whether s, the schema of a definition or of a _meta
// member, is an object schema the _meta rule plans as a struct: an object
// (by its type) that declares no members and leaves the others open.
func metaObject(s *schema.Schema) bool {
	if len(s.AnyOf)+len(s.OneOf)+len(s.AllOf) > 0 || s.HasConst || len(s.Enum) > 0 || len(s.Properties) > 0 {
		return false
	}
	if t := inferTypes(s); len(t) != 1 || t[0] != "object" {
		return false
	}
	return s.AdditionalProperties == nil || s.AdditionalProperties.IsTrue()
}

// metaValue plans the schema of a _meta member: an inline schema that
// declares no key becomes one struct shared by every such member (Meta),
// anything else is planned as usual (a definition found by findMetaDefs is
// a struct already).
func (p *planner) metaValue(s *schema.Schema, hint string) (*Value, error) {
	if s.Target == nil {
		fl, err := p.doc.Flatten(s)
		if err != nil {
			return nil, err
		}
		if metaObject(fl) && checksOf(fl).Empty() {
			if p.sharedMeta == nil {
				t := &Type{Name: p.newName("Meta"), Kind: Struct, Extra: true, Pointer: s.Pointer,
					Doc: "The _meta member of the definitions whose _meta declares no key: metadata keys and their values, every one in Extra."}
				p.sharedMeta = t
				p.addInline(t)
			}
			return &Value{Kind: Named, Type: p.sharedMeta}, nil
		}
	}
	return p.value(s, hint)
}
