package reusecore

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.
// The package is also the one the golden case reuse refers to (-reuse).

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// The core package on its own: its types decode, validate and re-encode
// as any generated package's do.
func TestCoreRoundTrip(t *testing.T) {
	in := `{"item":{"name":"a","kind":"file","size":3}}`
	var c Core
	if err := wireimpl.Decode([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if out, _ := wireimpl.Marshal(&c); string(out) != in {
		t.Fatalf("re-encoded %s", out)
	}
	if err := wireimpl.Decode([]byte(`{"item":{"name":"","kind":"disk"}}`), &c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil {
		t.Fatal("an empty name and an unknown kind validate")
	}
}
