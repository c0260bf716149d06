package plan

import (
	"encoding/json"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// planMethods builds the method table from the definitions that fix a
// "method" constant. Direction comes from the revision's unions
// (ClientRequest, ServerRequest, ClientNotification, ServerNotification,
// InputRequest); the result type from <Stem>ResultResponse.result when the
// revision has it (2026-07-28 on), else <Stem>Result, else EmptyResult.
func (p *planner) planMethods() error {
	member := map[string]wireimpl.Direction{}
	input := map[string]bool{}
	for union, dir := range map[string]wireimpl.Direction{
		"ClientRequest": wireimpl.ClientToServer, "ClientNotification": wireimpl.ClientToServer,
		"ServerRequest": wireimpl.ServerToClient, "ServerNotification": wireimpl.ServerToClient,
		"InputRequest": wireimpl.ServerToClient,
	} {
		t := p.defTypes[union]
		if t == nil {
			continue
		}
		if t.Kind == Struct { // a one-member union, flattened (2026-07-28 ClientNotification)
			if m := methodConst(t); m != "" {
				for _, d := range p.doc.Defs {
					if o := p.defTypes[d.Name]; o != t && o.Kind == Struct && methodConst(o) == m {
						member[o.Name] |= dir
					}
				}
			}
			continue
		}
		if t.Kind != Union {
			continue
		}
		for _, v := range t.Variants {
			if u := Underlying(v.Value); u.Kind == Named {
				member[u.Type.Name] |= dir
				if union == "InputRequest" {
					input[u.Type.Name] = true
				}
			}
		}
	}
	p.factDirections(member)
	for _, d := range p.doc.Defs {
		t := p.defTypes[d.Name]
		if t.Kind != Struct || t.Reused != nil { // a reused message is its package's method
			continue
		}
		var mf *Field
		for _, f := range t.Fields {
			if f.JSON == "method" && f.Const != nil && f.Required {
				mf = f
			}
		}
		dir := member[t.Name]
		if mf == nil || dir == 0 {
			continue
		}
		var name string
		if err := json.Unmarshal(mf.Const, &name); err != nil {
			continue
		}
		m := &Method{Name: name, Message: t, Direction: dir}
		switch {
		case input[t.Name]:
			m.Kind, m.Go = wireimpl.InputRequest, strings.TrimSuffix(t.Name, "Request")
		case strings.HasSuffix(t.Name, "Notification"):
			m.Kind, m.Go = wireimpl.Notification, strings.TrimSuffix(t.Name, "Notification")
		default:
			m.Kind, m.Go = wireimpl.Request, strings.TrimSuffix(t.Name, "Request")
		}
		for _, f := range t.Fields {
			if f.JSON == "params" && f.Value != nil {
				if u := Underlying(f.Value); u.Kind == Named {
					m.Params = u.Type
				} else if f.Value.Kind == Named {
					m.Params = f.Value.Type
				}
				m.ParamsRequired = f.Required
			}
		}
		if m.Kind != wireimpl.Notification {
			m.Result = p.resultOf(m.Go)
			if m.Result != nil {
				m.ResultTypes = []*Type{m.Result}
				if m.Result.Kind == Union {
					m.ResultTypes = nil
					for _, v := range m.Result.Variants {
						if u := Underlying(v.Value); u.Kind == Named {
							m.ResultTypes = append(m.ResultTypes, u.Type)
						}
					}
				}
			}
		}
		p.pkg.Methods = append(p.pkg.Methods, m)
	}
	return nil
}

func (p *planner) resultOf(stem string) *Type {
	if rr := p.defTypes[stem+"ResultResponse"]; rr != nil && rr.Kind == Struct {
		for _, f := range rr.Fields {
			if f.JSON == "result" && f.Value != nil && f.Value.Kind == Named {
				return f.Value.Type
			}
		}
	}
	for _, n := range []string{stem + "Result", "EmptyResult", "Result"} {
		if t := p.defTypes[n]; t != nil {
			return t
		}
	}
	return nil
}

// methodConst returns the value a struct fixes for its required "method"
// member, or "".
func methodConst(t *Type) string {
	for _, f := range t.Fields {
		if f.JSON == "method" && f.Const != nil && f.Required {
			var name string
			if json.Unmarshal(f.Const, &name) == nil {
				return name
			}
		}
	}
	return ""
}
