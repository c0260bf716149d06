package recursion

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// A tree that refers to itself through an array, an optional member and a
// map decodes, validates at nested paths and re-encodes unchanged.
func TestTreeRoundTrip(t *testing.T) {
	in := `{"name":"root","children":[{"name":"a","children":[]},{"name":"b","next":{"name":"c","byName":{"d":{"name":"d"}}}}],"next":{"name":"n"}}`
	var n Node
	if err := wireimpl.Decode([]byte(in), &n); err != nil {
		t.Fatal(err)
	}
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	if n.Children[1].Next.ByName["d"].Name != "d" || n.Next.Name != "n" || n.Children[0].Children == nil {
		t.Fatalf("decoded %+v", n)
	}
	if out, _ := wireimpl.Marshal(&n); string(out) != in {
		t.Fatalf("re-encoded %s", out)
	}
	bad := `{"name":"root","children":[{"name":"a"},{"next":{"byName":{"k":{}}}}]}`
	if err := wireimpl.Decode([]byte(bad), &n); err != nil {
		t.Fatal(err)
	}
	var ve *wire.ValidationError
	if err := n.Validate(); !errors.As(err, &ve) {
		t.Fatalf("got %v", err)
	}
	var got []string
	for _, v := range ve.Violations {
		got = append(got, v.String())
	}
	want := "children[1].name: required member is missing|children[1].next.name: required member is missing|children[1].next.byName.k.name: required member is missing"
	if strings.Join(got, "|") != want {
		t.Fatalf("got %q", got)
	}
}

// Recursion is bounded by wireimpl.MaxDepth while decoding.
func TestDeepTree(t *testing.T) {
	deep := func(levels int) string {
		// Each "next" level is one object.
		return strings.Repeat(`{"name":"x","next":`, levels-1) + `{"name":"x"}` + strings.Repeat("}", levels-1)
	}
	var n Node
	if err := wireimpl.Decode([]byte(deep(wireimpl.MaxDepth)), &n); err != nil {
		t.Fatalf("%d levels: %v", wireimpl.MaxDepth, err)
	}
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	err := wireimpl.Decode([]byte(deep(wireimpl.MaxDepth+1)), &n)
	if err == nil || !strings.Contains(err.Error(), "nesting deeper than") {
		t.Fatalf("%d levels: %v", wireimpl.MaxDepth+1, err)
	}
}

// A required self-reference is a pointer; a chain that ends decodes, and
// Validate names where the required member is missing.
func TestRequiredSelfReference(t *testing.T) {
	var l Link
	if err := wireimpl.Decode([]byte(`{"value":1,"self":{"value":2,"self":{"value":3}}}`), &l); err != nil {
		t.Fatal(err)
	}
	if l.Self == nil || l.Self.Self == nil || l.Self.Self.Value != 3 || l.Self.Self.Self != nil {
		t.Fatalf("decoded %+v", l)
	}
	if err := l.Validate(); err == nil || err.Error() != "invalid value: self.self.self: required member is missing" {
		t.Fatalf("got %v", err)
	}
	if out, _ := wireimpl.Marshal(&l); string(out) != `{"value":1,"self":{"value":2,"self":{"value":3}}}` {
		t.Fatalf("re-encoded %s", out)
	}
}

// A union that refers to itself through a struct: expressions nest.
func TestRecursiveUnion(t *testing.T) {
	in := `{"op":"add","args":[1,{"op":"neg","args":[2.5]},{"op":"add","args":[],"left":3}]}`
	var e Expr
	if err := wireimpl.Decode([]byte(in), &e); err != nil {
		t.Fatal(err)
	}
	if e.Op == nil || len(e.Op.Args) != 3 || e.Op.Args[1].Op.Args[0].Number.Value != 2.5 || e.Op.Args[2].Op.Left.Number.Value != 3 {
		t.Fatalf("decoded %+v", e)
	}
	if err := e.Validate(); err != nil {
		t.Fatal(err)
	}
	if out, _ := wireimpl.Marshal(&e); string(out) != in {
		t.Fatalf("re-encoded %s", out)
	}
	if err := wireimpl.Decode([]byte(`{"op":"mul","args":[{"op":"neg"}]}`), &e); err != nil {
		t.Fatal(err)
	}
	if err := e.Validate(); err == nil || err.Error() != `invalid value: op: "mul" is not one of "add", "neg"; args[0].args: required member is missing` {
		t.Fatalf("got %v", err)
	}
	var de *wire.DecodeError
	if err := wireimpl.Decode([]byte(`{"op":"add","args":[true]}`), &e); !errors.As(err, &de) || de.JSONPath() != "args[0]" {
		t.Fatalf("got %v", err)
	}
}
