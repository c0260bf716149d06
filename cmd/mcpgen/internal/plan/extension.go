package plan

import (
	"regexp"

	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// ExtensionFacts are the facts of an extension's schema (an MCP
// extension, identified under capabilities.extensions): what its
// specification states about how it joins the core protocol. See
// docs/facts.md.
type ExtensionFacts struct {
	// ID is the extension identifier, the key under
	// capabilities.extensions ("io.modelcontextprotocol/tasks").
	ID string `json:"id"`
	// Capability is the definition of the capability's value.
	Capability string `json:"capability"`
	// Augments maps a core method to the result definition of this
	// schema it may answer with instead of its own result ("tools/call":
	// "CreateTaskResult").
	Augments map[string]string `json:"augments"`
	// Removed lists methods the extension reserves without defining them
	// (earlier designs had them): servers answer them -32601.
	Removed []string `json:"removedMethods"`
	// SubscriptionFilter is the definition of the members the extension
	// adds to the core SubscriptionFilter (subscriptions/listen).
	SubscriptionFilter string `json:"subscriptionFilter"`
}

// Extension is what the planner makes of ExtensionFacts.
type Extension struct {
	ID         string
	Capability *Type
	Augments   map[string]*Type
	Removed    []string
}

// directions are the values of MethodFacts.Direction.
var directions = map[string]wireimpl.Direction{"clientToServer": wireimpl.ClientToServer, "serverToClient": wireimpl.ServerToClient}

// extensionID is the grammar of an extension identifier: a _meta-style
// prefix (reverse-DNS labels, then a slash) and a name (digest EXT-2).
var extensionID = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?)*/[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// factDirections adds to member (message definition → direction) the
// directions the facts state, for the methods the schema's unions leave
// out.
func (p *planner) factDirections(member map[string]wireimpl.Direction) {
	if p.facts == nil {
		return
	}
	for _, d := range p.doc.Defs {
		t := p.defTypes[d.Name]
		if t.Kind != Struct || t.Reused != nil || member[t.Name] != 0 {
			continue
		}
		if mf, ok := p.facts.Methods[methodConst(t)]; ok {
			member[t.Name] = directions[mf.Direction]
		}
	}
}

// applyExtension checks the extension facts against the schema and
// attaches them to the package.
func (p *planner) applyExtension(byName map[string]*Method) error {
	ef := p.facts.Extension
	if ef == nil {
		return nil
	}
	if !extensionID.MatchString(ef.ID) {
		return p.factErr("extension.id", "%q is not an extension identifier (prefix/name)", ef.ID)
	}
	x := &Extension{ID: ef.ID, Augments: map[string]*Type{}}
	if ef.Capability != "" {
		if x.Capability = p.defTypes[ef.Capability]; x.Capability == nil {
			return p.factErr("extension.capability", "the schema defines no %q", ef.Capability)
		}
	}
	if ef.SubscriptionFilter != "" && p.defTypes[ef.SubscriptionFilter] == nil {
		return p.factErr("extension.subscriptionFilter", "the schema defines no %q", ef.SubscriptionFilter)
	}
	for _, m := range sortedKeys(ef.Augments) {
		t := p.defTypes[ef.Augments[m]]
		if t == nil {
			return p.factErr("extension.augments."+m, "the schema defines no %q", ef.Augments[m])
		}
		if byName[m] != nil {
			return p.factErr("extension.augments."+m, "%s is a method of this schema, not of the core", m)
		}
		x.Augments[m] = t
	}
	for _, m := range ef.Removed {
		if byName[m] != nil {
			return p.factErr("extension.removedMethods", "the schema defines %q", m)
		}
		x.Removed = append(x.Removed, m)
	}
	p.pkg.Extension = x
	return nil
}
