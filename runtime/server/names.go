package server

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Registration checks the names of tools, prompts and resource templates
// against the rules of the revision, so that a mistake is an error where
// it is made and not a failure in someone else's client.

// A NameError reports a tool, prompt or resource template registered
// under a name its rule does not allow. Rule is the ID of the rule in
// docs/rules.md.
type NameError struct {
	Kind   string // "tool", "prompt", "resource template"
	Name   string
	Rule   string // e.g. "TOOL-4"
	Reason string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("server: %s name %s breaks %s: %s", e.Kind, quoteName(e.Name), e.Rule, e.Reason)
}

// A DuplicateError reports a registration under a name that is taken;
// the Replace option replaces the item instead.
type DuplicateError struct {
	Kind string // "tool", "prompt", "resource", "resource template"
	Name string // the tool or prompt name, resource URI or uriTemplate
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("server: %s %s is registered already; pass server.Replace() to replace it", e.Kind, quoteName(e.Name))
}

// quoteName quotes a name for a message, shortened when it is long.
func quoteName(name string) string {
	if len(name) > 80 {
		cut := 72
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		return fmt.Sprintf("%q… (%d bytes)", name[:cut], len(name))
	}
	return fmt.Sprintf("%q", name)
}

// toolNameRule is TOOL-4 in a sentence.
const toolNameRule = "a tool name is 1 to 128 characters of A-Z, a-z, 0-9, underscore, hyphen and dot"

// checkToolName checks a tool name against TOOL-4; lax (AllowAnyName)
// keeps only what any name needs.
func checkToolName(name string, lax bool) error {
	if lax {
		return checkPlainName("tool", "TOOL-4", name)
	}
	if name == "" || len(name) > 128 {
		return &NameError{Kind: "tool", Name: name, Rule: "TOOL-4", Reason: fmt.Sprintf("%s; this one has %d (server.AllowAnyName() accepts other names)", toolNameRule, utf8.RuneCountInString(name))}
	}
	for i, r := range name {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '_', r == '-', r == '.':
			continue
		}
		return &NameError{Kind: "tool", Name: name, Rule: "TOOL-4", Reason: fmt.Sprintf("%s; %q at byte %d is not (server.AllowAnyName() accepts other names)", toolNameRule, r, i)}
	}
	return nil
}

// checkPlainName checks what every name needs, whatever its rule: it is
// not empty, and it is UTF-8 without control characters.
func checkPlainName(kind, rule, name string) error {
	bad := func(reason string) error { return &NameError{Kind: kind, Name: name, Rule: rule, Reason: reason} }
	switch {
	case name == "":
		return bad("a " + kind + " needs a name")
	case !utf8.ValidString(name):
		return bad("it is not valid UTF-8")
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return bad("it holds a control character")
	}
	return nil
}
