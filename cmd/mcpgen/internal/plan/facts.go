package plan

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Facts are what a revision's specification prose states and its
// schema.json does not: which params member a method mirrors into
// Mcp-Name, which capability gates it, the order of log levels, the values
// of resultType. One declarative file per revision holds them
// (facts/<revision>.json, documented in docs/facts.md); the planner
// checks every name in it against the schema, so a file and a schema that
// disagree fail generation instead of producing wrong tables.
type Facts struct {
	File string // where the facts came from, for errors

	Revision string `json:"revision"`
	// Stateless: the revision has no initialize handshake; each request
	// carries its version and capabilities.
	Stateless struct {
		Value bool `json:"value"`
	} `json:"stateless"`
	// Compatible: older revisions whose peers these bindings also serve
	// (their messages are a subset of this revision's).
	Compatible *struct {
		Versions []string `json:"versions"`
	} `json:"compatible"`
	// Batches: the versions among Revision and Compatible whose peers may
	// send JSON-RPC batches.
	Batches *struct {
		Versions []string `json:"versions"`
	} `json:"batches"`
	ResultType *struct {
		Member   string            `json:"member"`
		Complete string            `json:"complete"`
		Values   map[string]string `json:"values"` // value → the result definition it names
		// Type is the string definition naming the values (ResultType):
		// the members named Member are typed with it, the constants are
		// of it and it rejects "" (no result type is empty). Optional.
		Type string `json:"type"`
	} `json:"resultType"`
	LogLevels *struct {
		Type  string   `json:"type"`
		Order []string `json:"order"`
	} `json:"logLevels"`
	ReservedMetaKeys *struct {
		Keys []string `json:"keys"`
	} `json:"reservedMetaKeys"`
	// ErrorCodes the schema does not define as error definitions (legacy
	// codes stated in prose), by name.
	ErrorCodes map[string]int64       `json:"errorCodes"`
	Methods    map[string]MethodFacts `json:"methods"`
	// Extension: the schema is an extension's (extension.go).
	Extension *ExtensionFacts `json:"extension"`
}

// MethodFacts are the facts of one method.
type MethodFacts struct {
	// Direction: "clientToServer" or "serverToClient", for a schema
	// without the ClientRequest, ServerNotification, ... unions that say
	// it (an extension's).
	Direction        string `json:"direction"`
	MCPName          string `json:"mcpName"`
	ServerCapability string `json:"serverCapability"`
	ClientCapability string `json:"clientCapability"`
	ListenFilter     string `json:"listenFilter"`
}

// revisionPattern is the form of a revision name.
var revisionPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

//go:embed facts/*.json
var factFiles embed.FS

// LoadFacts returns the facts mcpgen carries for revision, or nil when it
// has none (the schema then generates without them: no per-method facts,
// unions of results told apart by structure alone).
func LoadFacts(revision string) (*Facts, error) {
	name := "facts/" + revision + ".json"
	data, err := factFiles.ReadFile(name)
	if err != nil {
		if _, ok := err.(*fs.PathError); ok {
			return nil, nil
		}
		return nil, err
	}
	return ParseFacts("cmd/mcpgen/internal/plan/"+name, data)
}

// ParseFacts reads a facts file. Members whose name starts with "$" are
// comments. Unknown members are errors, so a misspelt fact is not ignored.
func ParseFacts(file string, data []byte) (*Facts, error) {
	clean, err := stripComments(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	dec := json.NewDecoder(bytes.NewReader(clean))
	dec.DisallowUnknownFields()
	f := &Facts{File: file}
	if err := dec.Decode(f); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return f, nil
}

// stripComments drops every "$..." member at any depth.
func stripComments(data []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if strings.HasPrefix(k, "$") {
					delete(x, k)
					continue
				}
				x[k] = walk(e)
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		}
		return v
	}
	return json.Marshal(walk(v))
}

func (p *planner) factErr(key, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", p.facts.File, key, fmt.Sprintf(format, args...))
}

// applyFacts attaches the facts to the planned methods and types, checking
// each against the schema.
func (p *planner) applyFacts() error {
	f := p.facts
	if f == nil {
		return nil
	}
	if f.Revision != "" && p.pkg.Revision != "" && f.Revision != p.pkg.Revision {
		return p.factErr("revision", "facts of %s used for revision %s", f.Revision, p.pkg.Revision)
	}
	p.pkg.Stateless = f.Stateless.Value
	if c := f.Compatible; c != nil {
		for _, v := range c.Versions {
			if !revisionPattern.MatchString(v) || v >= p.pkg.Revision && p.pkg.Revision != "" {
				return p.factErr("compatible.versions", "%q is not an older revision (YYYY-MM-DD before %s)", v, p.pkg.Revision)
			}
		}
		p.pkg.Compatible = c.Versions
	}
	if b := f.Batches; b != nil {
		for _, v := range b.Versions {
			if v != p.pkg.Revision && !slices.Contains(p.pkg.Compatible, v) {
				return p.factErr("batches.versions", "%q is neither the revision nor one of compatible.versions", v)
			}
		}
		p.pkg.Batches = b.Versions
	}
	byName := map[string]*Method{}
	for _, m := range p.pkg.Methods {
		if byName[m.Name] == nil || m.Kind == wireimpl.Request {
			byName[m.Name] = m
		}
	}
	for _, name := range sortedKeys(f.Methods) {
		mf := f.Methods[name]
		key := "methods." + name
		m := byName[name]
		if m == nil {
			return p.factErr(key, "the schema defines no method %q", name)
		}
		if mf.MCPName != "" {
			fl := fieldOf(m.Params, mf.MCPName)
			if fl == nil || !fl.Required || fl.Value == nil || Underlying(fl.Value).Kind != String {
				return p.factErr(key+".mcpName", "%q is not a required string member of the params of %s", mf.MCPName, name)
			}
			m.NameMember, m.NameField = mf.MCPName, fl.Go
		}
		if mf.ServerCapability != "" {
			if !p.capabilityExists("ServerCapabilities", mf.ServerCapability) {
				return p.factErr(key+".serverCapability", "ServerCapabilities has no member %q", mf.ServerCapability)
			}
			m.ServerCapability = mf.ServerCapability
		}
		if mf.ClientCapability != "" {
			if !p.capabilityExists("ClientCapabilities", mf.ClientCapability) {
				return p.factErr(key+".clientCapability", "ClientCapabilities has no member %q", mf.ClientCapability)
			}
			m.ClientCapability = mf.ClientCapability
		}
		if mf.ListenFilter != "" {
			filter := "SubscriptionFilter"
			if f.Extension != nil && f.Extension.SubscriptionFilter != "" {
				filter = f.Extension.SubscriptionFilter
			}
			if fieldOf(p.defTypes[filter], mf.ListenFilter) == nil {
				return p.factErr(key+".listenFilter", "%s has no member %q", filter, mf.ListenFilter)
			}
			m.ListenFilter = mf.ListenFilter
		}
		if d := mf.Direction; d != "" && directions[d] == 0 {
			return p.factErr(key+".direction", "%q is neither clientToServer nor serverToClient", d)
		} else if d != "" && directions[d] != m.Direction {
			return p.factErr(key+".direction", "%q is not the direction the schema gives %s (%s)", d, name, m.Direction)
		}
	}
	if ll := f.LogLevels; ll != nil {
		t := p.defTypes[ll.Type]
		if t == nil || t.Kind != Enum {
			return p.factErr("logLevels.type", "%q is not an enum definition", ll.Type)
		}
		a, b := slices.Clone(ll.Order), slices.Clone(t.Values)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return p.factErr("logLevels.order", "%v are not the values of %s %v", ll.Order, ll.Type, t.Values)
		}
		p.pkg.LogLevels = &LogLevels{Type: t, Order: ll.Order}
	}
	if rt := f.ResultType; rt != nil {
		for _, v := range sortedKeys(rt.Values) {
			if p.defTypes[rt.Values[v]] == nil {
				return p.factErr("resultType.values."+v, "the schema defines no %q", rt.Values[v])
			}
		}
		if rt.Type != "" {
			if err := p.typeResultType(rt.Type, rt.Member); err != nil {
				return err
			}
		}
	}
	return p.applyExtension(byName)
}

// typeResultType makes the string definition name (ResultType) the Go type
// of every string member named member (resultType): schema.json writes each
// of them inline as {"type": "string"}, schema.ts as the ResultType alias.
// The definition rejects "": a result type is a name, RT-2, and a client
// treats one it does not know as invalid, RT-3, so an empty one never
// stands for a result (deviation "non-empty resultType").
func (p *planner) typeResultType(name, member string) error {
	t := p.defTypes[name]
	if t == nil || t.Kind != Scalar || t.Elem.Kind != String || !t.Elem.Checks.Empty() {
		return p.factErr("resultType.type", "%q is not a definition of a plain string", name)
	}
	one := 1
	t.Elem = &Value{Kind: String, Checks: Checks{MinLength: &one}}
	p.pkg.ResultTypeType = t
	for _, ty := range p.pkg.Types {
		for _, f := range ty.Fields {
			if f.JSON == member && f.Const == nil && f.Value != nil && f.Value.Kind == String && f.Value.Checks.Empty() {
				f.Value = &Value{Kind: Named, Type: t}
			}
		}
	}
	return nil
}

// nameFactConsts names the constants the facts add, after the schema's
// own constants have their names.
func (p *planner) nameFactConsts() {
	f := p.facts
	if f == nil {
		return
	}
	if rt := f.ResultType; rt != nil {
		for _, v := range append([]string{rt.Complete}, sortedKeys(rt.Values)...) {
			p.pkg.ResultTypes = append(p.pkg.ResultTypes, &ResultTypeConst{Const: p.newName("ResultType" + constWords(v)), Value: v})
		}
	}
	if rk := f.ReservedMetaKeys; rk != nil {
		for _, k := range rk.Keys {
			p.pkg.MetaKeys = append(p.pkg.MetaKeys, &MetaKey{Const: p.newName("MetaKey" + constWords(k)), Key: k})
		}
	}
	for _, name := range sortedKeys(f.ErrorCodes) {
		p.pkg.ErrorCodes = append(p.pkg.ErrorCodes, &ErrorCode{Name: name, Const: p.newName("Code" + name), Code: f.ErrorCodes[name], Doc: "Defined by the specification's prose, not by an error definition of the schema."})
	}
}

// capabilityExists checks a capability name ("tools", "resources.subscribe")
// against the members of the capabilities definition.
func (p *planner) capabilityExists(def, path string) bool {
	t := p.defTypes[def]
	for _, seg := range strings.Split(path, ".") {
		fl := fieldOf(t, seg)
		if fl == nil {
			return false
		}
		t = nil
		if u := Underlying(fl.Value); u.Kind == Named && u.Type.Kind == Struct {
			t = u.Type
		}
	}
	return true
}

func fieldOf(t *Type, member string) *Field {
	if t == nil {
		return nil
	}
	for _, f := range t.Fields {
		if f.JSON == member {
			return f
		}
	}
	return nil
}

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// constWords turns a value or a key into the words of a Go constant:
// input_required → InputRequired, io.modelcontextprotocol/protocolVersion
// → ProtocolVersion (the part after the prefix), traceparent → Traceparent.
func constWords(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return exported(s)
}
