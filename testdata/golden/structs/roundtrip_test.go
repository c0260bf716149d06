package structs

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

func encode(t *testing.T, v wireimpl.EncodeJSONer) string {
	t.Helper()
	b, err := wireimpl.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func violations(t *testing.T, err error) []string {
	t.Helper()
	var ve *wire.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a *wire.ValidationError, got %v", err)
	}
	var out []string
	for _, v := range ve.Violations {
		out = append(out, v.String())
	}
	return out
}

// Required members are written even when zero (ttlMs: 0, items: []), and a
// decoded value re-encodes to the same bytes.
func TestRequiredZeroValuesRoundTrip(t *testing.T) {
	in := `{"kind":"page","ttlMs":0,"title":"t","items":[]}`
	var p Page
	if err := wireimpl.Decode([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := encode(t, &p); got != in {
		t.Fatalf("re-encoded %s, want %s", got, in)
	}
	// A Page built in Go writes every required member, the const included.
	if got, want := encode(t, &Page{Title: "x"}), `{"kind":"page","ttlMs":0,"title":"x","items":[]}`; got != want {
		t.Fatalf("zero Page encodes as %s, want %s", got, want)
	}
}

// Optional members keep presence: absent stays absent, "" / 0 / false / {}
// / [] stay present.
func TestOptionalPresence(t *testing.T) {
	in := `{"kind":"page","ttlMs":5,"title":"t","cursor":"","priority":0,"draft":false,"items":["a"],"tags":[],"capabilities":{},"link":"https://example.com/x"}`
	var p Page
	if err := wireimpl.Decode([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	if !p.Cursor.Set || p.Cursor.Value != "" || !p.Priority.Set || !p.Draft.Set {
		t.Fatalf("present zero scalars lost: %+v", p)
	}
	if p.Tags == nil || len(p.Tags) != 0 {
		t.Fatalf("tags: [] must decode to a non-nil empty slice, got %#v", p.Tags)
	}
	if p.Capabilities == nil || p.Capabilities.Tools != nil {
		t.Fatalf("capabilities: {} must be present and empty, got %#v", p.Capabilities)
	}
	if p.Author != nil || p.Version.Set {
		t.Fatal("absent members became present")
	}
	if got := encode(t, &p); got != in {
		t.Fatalf("re-encoded\n%s\nwant\n%s", got, in)
	}
	var q Page
	if err := wireimpl.Decode([]byte(`{"kind":"page","ttlMs":1,"title":"t","items":[]}`), &q); err != nil {
		t.Fatal(err)
	}
	if q.Cursor.Set || q.Tags != nil || q.Capabilities != nil || q.Priority.Set {
		t.Fatalf("absent members decoded as present: %+v", q)
	}
}

// Members the schema does not declare are kept verbatim, in order, and
// written after the declared ones; additionalProperties: false rejects them.
func TestUndeclaredMembers(t *testing.T) {
	in := `{"z":{"a" : [1,2]},"kind":"page","ttlMs":1,"title":"t","items":[],"a":null}`
	var p Page
	if err := wireimpl.Decode([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"page","ttlMs":1,"title":"t","items":[],"z":{"a" : [1,2]},"a":null}`
	if got := encode(t, &p); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	var person Person
	err := wireimpl.Decode([]byte(`{"name":"n","nickname":"x"}`), &person)
	if err == nil || !strings.Contains(err.Error(), `unknown member "nickname"`) {
		t.Fatalf("additionalProperties false: got %v", err)
	}
}

// A required const member is checked while decoding; an optional one by
// Validate.
func TestConstMembers(t *testing.T) {
	var p Page
	err := wireimpl.Decode([]byte(`{"kind":"book","ttlMs":1,"title":"t","items":[]}`), &p)
	var de *wire.DecodeError
	if !errors.As(err, &de) || de.JSONPath() != "kind" {
		t.Fatalf("kind: got %v, want a decode error at kind", err)
	}
	if err := wireimpl.Decode([]byte(`{"kind":"page","version":"v2","ttlMs":1,"title":"t","items":[]}`), &p); err != nil {
		t.Fatal(err)
	}
	if got := violations(t, p.Validate()); len(got) != 1 || got[0] != `version: must be "v1"` {
		t.Fatalf("got %q", got)
	}
}

// Validate reports every violation with its path; missing required members
// are reported, never invented on encoding.
func TestValidate(t *testing.T) {
	in := `{"ttlMs":-1,"title":"","priority":1.5,"items":["x"],"tags":["a","b","c","d"],"author":{"email":"nope"},"link":"not a uri"}`
	var p Page
	if err := wireimpl.Decode([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"kind: required member is missing",
		"ttlMs: must be >= 0",
		"title: must not be empty",
		"priority: must be <= 1",
		"tags: must have at most 3 items",
		"author.name: required member is missing",
		"author.email: must match ^[^@]+@[^@]+$",
		"link: is not a valid uri",
	}
	got := violations(t, p.Validate())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The missing kind stays missing when re-encoded.
	if got := encode(t, &p); strings.Contains(got, `"kind"`) {
		t.Fatalf("encoding invented the missing kind: %s", got)
	}
	// maxLength counts characters, not bytes.
	var q Page
	title := strings.Repeat("é", 80)
	if err := wireimpl.Decode([]byte(`{"kind":"page","ttlMs":0,"title":"`+title+`","items":[]}`), &q); err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(); err != nil {
		t.Fatalf("80 two-byte characters: %v", err)
	}
}

// Decoding is strict: duplicate keys, wrong kinds and case variants.
func TestStrictDecoding(t *testing.T) {
	for _, tc := range []struct{ in, path, msg string }{
		{`{"kind":"page","kind":"page","ttlMs":1,"title":"t","items":[]}`, "", `duplicate member "kind"`},
		{`{"kind":"page","ttlMs":"1","title":"t","items":[]}`, "ttlMs", "expected number, got string"},
		{`{"kind":"page","ttlMs":1.5,"title":"t","items":[]}`, "ttlMs", "integer"},
		{`{"kind":"page","ttlMs":1,"title":"t","items":[1]}`, "items[0]", "expected string, got number"},
		{`{"kind":"page","ttlMs":1,"title":"t","items":[],"author":{"name":"a","name":"b"}}`, "author", `duplicate member "name"`},
	} {
		var p Page
		err := wireimpl.Decode([]byte(tc.in), &p)
		var de *wire.DecodeError
		if !errors.As(err, &de) || de.JSONPath() != tc.path || !strings.Contains(de.Msg, tc.msg) {
			t.Errorf("%s: got %v, want %q at %q", tc.in, err, tc.msg, tc.path)
		}
	}
	// "Title" is not "title": the required member is missing and the
	// variant is kept as an undeclared member.
	var p Page
	if err := wireimpl.Decode([]byte(`{"kind":"page","ttlMs":1,"Title":"t","items":[]}`), &p); err != nil {
		t.Fatal(err)
	}
	if got := violations(t, p.Validate()); len(got) != 1 || got[0] != "title: required member is missing" {
		t.Fatalf("got %q", got)
	}
}
