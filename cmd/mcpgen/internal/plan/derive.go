package plan

import (
	"encoding/json"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Facts the schema itself carries, derived from its structure.

// deriveMethodFacts marks, per request method: whether its result may be
// an input-required result (a union with the member the facts name for
// resultType "input_required"), whether it pages (its params declare cursor
// and its result nextCursor, as PaginatedRequestParams and PaginatedResult
// do) and whether its result carries caching hints (every member
// CacheableResult declares besides the common result members).
func (p *planner) deriveMethodFacts() {
	var irr *Type
	if p.facts != nil && p.facts.ResultType != nil {
		for _, name := range p.facts.ResultType.Values {
			irr = p.defTypes[name]
		}
	}
	// The caching hints are what CacheableResult declares beyond Result.
	var hints []string
	if c := p.defTypes["CacheableResult"]; c != nil && c.Kind == Struct {
		for _, f := range c.Fields {
			if fieldOf(p.defTypes["Result"], f.JSON) == nil {
				hints = append(hints, f.JSON)
			}
		}
	}
	p.pkg.CacheHints = hints
	for _, m := range p.pkg.Methods {
		if m.Kind != wireimpl.Request || m.Result == nil {
			continue
		}
		final := m.Result
		if m.Result.Kind == Union {
			final = nil
			for _, t := range m.ResultTypes {
				if t == irr && irr != nil {
					m.InputRequired = true
				} else if final == nil {
					final = t
				}
			}
		}
		m.Paginated = fieldOf(m.Params, "cursor") != nil && fieldOf(final, "nextCursor") != nil
		if len(hints) > 0 && final != nil {
			m.Cacheable = true
			for _, h := range hints {
				if fieldOf(final, h) == nil {
					m.Cacheable = false
				}
			}
		}
	}
}

// planMetaKeys collects the reserved _meta keys the schema declares: the
// members of every definition named ...MetaObject.
func (p *planner) planMetaKeys() {
	seen := map[string]bool{}
	for _, t := range p.pkg.Types {
		if !t.Def || t.Reused != nil || t.Kind != Struct || !strings.HasSuffix(t.Name, "MetaObject") {
			continue
		}
		for _, f := range t.Fields {
			if seen[f.JSON] {
				continue
			}
			seen[f.JSON] = true
			p.pkg.MetaKeys = append(p.pkg.MetaKeys, &MetaKey{Const: p.newName("MetaKey" + constWords(f.JSON)), Key: f.JSON, Def: t.Name})
		}
	}
}

// planConstStrings names the string constants definitions fix for a
// member (TextContent "type": "text" → TextContentType), except the
// JSON-RPC version and method names, which have constants already.
func (p *planner) planConstStrings() {
	for _, t := range p.pkg.Types {
		if !t.Def || t.Reused != nil || t.Kind != Struct {
			continue
		}
		for _, f := range t.Fields {
			if f.Const == nil || f.JSON == "jsonrpc" || f.JSON == "method" || f.Value == nil || f.Value.Kind != String {
				continue
			}
			var v string
			if json.Unmarshal(f.Const, &v) != nil {
				continue
			}
			p.pkg.ConstStrings = append(p.pkg.ConstStrings, &ConstString{Const: p.newName(t.Name + exported(f.JSON)), Value: v, Def: t.Name, Member: f.JSON})
		}
	}
}
