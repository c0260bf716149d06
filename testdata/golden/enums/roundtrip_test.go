package enums

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.

import (
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Enum values decode into the named string type, re-encode unchanged and
// validate; a value outside the set decodes (it is a string) but fails
// Validate at its path.
func TestEnumValues(t *testing.T) {
	in := `{"role":"assistant","level":"warning","cacheScope":"private"}`
	var m Message
	if err := wireimpl.Decode([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if m.Role != RoleAssistant || m.Level.Value != MessageLevelWarning || m.CacheScope != CacheScopePrivate {
		t.Fatalf("decoded %+v", m)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	out, _ := wireimpl.Marshal(&m)
	if string(out) != in {
		t.Fatalf("re-encoded %s", out)
	}

	for _, tc := range []struct{ in, want string }{
		{`{"role":"system","cacheScope":"public"}`, `role: "system" is not one of "user", "assistant"`},
		{`{"role":"user","level":"verbose","cacheScope":"public"}`, `level: "verbose" is not one of "debug", "info", "warning", "emergency"`},
		{`{"role":"user","cacheScope":"shared"}`, `cacheScope: "shared" is not one of "public", "private"`},
		{`{"role":"User","cacheScope":"public"}`, `role: "User" is not one of "user", "assistant"`},
	} {
		var m Message
		if err := wireimpl.Decode([]byte(tc.in), &m); err != nil {
			t.Fatal(err)
		}
		var ve *wire.ValidationError
		if err := m.Validate(); !errors.As(err, &ve) || len(ve.Violations) != 1 || ve.Violations[0].String() != tc.want {
			t.Errorf("%s: Validate() = %v, want %s", tc.in, err, tc.want)
		}
	}
	// A wrong JSON kind is a decoding error.
	var bad Message
	var de *wire.DecodeError
	if err := wireimpl.Decode([]byte(`{"role":1,"cacheScope":"public"}`), &bad); !errors.As(err, &de) || de.JSONPath() != "role" {
		t.Fatalf("role: 1 gave %v", err)
	}
}

// The inline cacheScope enumeration, declared identically in two
// definitions, is one shared Go type.
func TestSharedInlineEnum(t *testing.T) {
	var l Listing
	l.CacheScope = CacheScopePublic
	var m Message
	m.CacheScope = l.CacheScope // compiles only if both fields have the same type
	if m.CacheScope.Validate() != nil || CacheScope("shared").Validate() == nil {
		t.Fatal("CacheScope validation")
	}
}
