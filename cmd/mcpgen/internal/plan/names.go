package plan

import (
	"strings"
	"unicode"
)

// initialisms are upper-cased as whole words in field names (Go style).
var initialisms = map[string]string{
	"id": "ID", "uri": "URI", "url": "URL", "json": "JSON", "http": "HTTP", "https": "HTTPS",
	"ttl": "TTL", "mime": "MIME", "api": "API", "html": "HTML", "jsonrpc": "JSONRPC",
}

// words splits a JSON member name into words at case changes and at
// characters that cannot appear in Go identifiers.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 &&
			(!unicode.IsUpper(cur[len(cur)-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// exported turns a JSON name into an exported Go identifier, upper-casing
// known initialisms: "mimeType" → "MIMEType", "toolUseId" → "ToolUseID".
// Member names in a namespace ("io.modelcontextprotocol/clientInfo") use
// the part after the last slash.
func exported(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	var b strings.Builder
	for _, w := range words(s) {
		if up, ok := initialisms[strings.ToLower(w)]; ok {
			b.WriteString(up)
			continue
		}
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	id := b.String()
	if id == "" {
		return "X"
	}
	if unicode.IsDigit(rune(id[0])) {
		id = "X" + id
	}
	return id
}

// typeName turns a JSON name into a type-name part without initialism
// rewriting, so inline type names read like the $defs they extend
// (CompleteResultCompletion, TitledSingleSelectEnumSchemaOneOfItem).
func typeName(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	if b.Len() == 0 {
		return "X"
	}
	return b.String()
}

// reserved are method and field names every generated struct uses.
var reserved = map[string]bool{
	"Extra": true, "Validate": true, "DecodeJSON": true, "EncodeJSON": true,
	"MarshalJSON": true, "UnmarshalJSON": true, "String": true,
	"Member": true, "IsZero": true, "Has": true, "Declares": true, "Severity": true,
	"CacheHints": true, "SetCacheHints": true, "RequestMeta": true, "ResultMeta": true, "NotificationMeta": true,
	"Encodable": true,
}

// generatedIdents are the package-level identifiers emit always
// declares; a definition may not take one of these names, and inline
// types and constants avoid them.
var generatedIdents = map[string]bool{
	"ProtocolVersion": true, "Methods": true, "LookupMethod": true, "NewDefinition": true,
	"ServerHandler": true, "ClientHandler": true, "UnimplementedServerHandler": true,
	"UnimplementedClientHandler": true, "DispatchServer": true, "DispatchClient": true,
	"methodTable": true, "Revision": true, "ExtensionID": true, "Marshal": true, "Unmarshal": true,
}

// goKeywords cannot be used as identifiers.
var goKeywords = map[string]bool{
	"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true,
	"defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true, "goto": true,
	"if": true, "import": true, "interface": true, "map": true, "package": true, "range": true,
	"return": true, "select": true, "struct": true, "switch": true, "type": true, "var": true,
}
