package constunion

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// The "type" const picks the member, wherever it appears in the object;
// the value re-encodes to the same bytes.
func TestDiscriminatedRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		text bool
	}{
		{`{"type":"text","text":"hi"}`, true},
		{`{"text":"hi","type":"text"}`, true},
		{`{"data":"aGk=","mimeType":"image/png","type":"image"}`, false},
	} {
		var c Content
		if err := wireimpl.Decode([]byte(tc.in), &c); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if (c.TextContent != nil) != tc.text || (c.ImageContent != nil) == tc.text {
			t.Fatalf("%s: wrong member %+v", tc.in, c)
		}
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		out, _ := wireimpl.Marshal(&c)
		var a, b any
		_ = json.Unmarshal([]byte(tc.in), &a)
		_ = json.Unmarshal(out, &b)
		if !equalJSON(a, b) {
			t.Fatalf("%s re-encoded as %s", tc.in, out)
		}
	}
	// encoding/json goes through the generated codecs too.
	var c Content
	if err := json.Unmarshal([]byte(`{"type":"image","data":"aGk=","mimeType":"image/png"}`), &c); err != nil || c.ImageContent == nil || c.ImageContent.MIMEType != "image/png" {
		t.Fatalf("json.Unmarshal: %v %+v", err, c)
	}
	out, err := json.Marshal(c)
	if err != nil || string(out) != `{"type":"image","data":"aGk=","mimeType":"image/png"}` {
		t.Fatalf("json.Marshal: %s %v", out, err)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// An unknown or missing discriminator, or one of the wrong kind, is a
// decoding error at the discriminator; a known one with a bad member is an
// error at that member.
func TestDiscriminatorErrors(t *testing.T) {
	for _, tc := range []struct{ in, path, msg string }{
		{`{"type":"video","text":"x"}`, "type", `unknown type "video"`},
		{`{"text":"x"}`, "type", "required member is missing"},
		{`{"type":5}`, "type", "expected string, got number"},
		{`{"type":"Text","text":"x"}`, "type", `unknown type "Text"`},
		{`{"type":"text","text":5}`, "text", "expected string, got number"},
		{`[]`, "", "array matches no member of Content"},
	} {
		var c Content
		err := wireimpl.Decode([]byte(tc.in), &c)
		var de *wire.DecodeError
		if !errors.As(err, &de) || de.JSONPath() != tc.path || !strings.Contains(de.Msg, tc.msg) {
			t.Errorf("%s: got %v, want %q at %q", tc.in, err, tc.msg, tc.path)
		}
	}
	// A variant with a required member missing decodes and fails Validate.
	var c Content
	if err := wireimpl.Decode([]byte(`{"type":"image","data":"aGk="}`), &c); err != nil {
		t.Fatal(err)
	}
	var ve *wire.ValidationError
	if err := c.Validate(); !errors.As(err, &ve) || ve.Violations[0].String() != "mimeType: required member is missing" {
		t.Fatalf("got %v", err)
	}
	if err := wireimpl.Decode([]byte(`{"type":"image","data":"not base64!","mimeType":"a/b"}`), &c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); !errors.As(err, &ve) || ve.Violations[0].String() != "data: is not a valid byte" {
		t.Fatalf("got %v", err)
	}
}

// The discriminator is optional in FormParams: its absence selects that
// member (as ElicitRequestFormParams' mode does).
func TestOptionalDiscriminator(t *testing.T) {
	var p Params
	if err := wireimpl.Decode([]byte(`{"message":"m"}`), &p); err != nil || p.FormParams == nil {
		t.Fatalf("no mode: %v %+v", err, p)
	}
	if p.FormParams.Mode.Set {
		t.Fatal("absent mode became present")
	}
	if err := wireimpl.Decode([]byte(`{"mode":"form","message":"m"}`), &p); err != nil || p.FormParams == nil || p.FormParams.Mode.Value != "form" {
		t.Fatalf("mode form: %v %+v", err, p)
	}
	if err := wireimpl.Decode([]byte(`{"mode":"url","message":"m","url":"https://example.com"}`), &p); err != nil || p.URLParams == nil {
		t.Fatalf("mode url: %v %+v", err, p)
	}
	// URLParams without url: decodes as URLParams, Validate names the member.
	if err := wireimpl.Decode([]byte(`{"mode":"url","message":"m"}`), &p); err != nil || p.URLParams == nil {
		t.Fatalf("mode url without url: %v %+v", err, p)
	}
	var ve *wire.ValidationError
	if err := p.Validate(); !errors.As(err, &ve) || ve.Violations[0].String() != "url: required member is missing" {
		t.Fatalf("got %v", err)
	}
	// An optional const member is still checked, by Validate.
	var f FormParams
	if err := wireimpl.Decode([]byte(`{"mode":"other","message":"m"}`), &f); err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); !errors.As(err, &ve) || ve.Violations[0].String() != `mode: must be "form"` {
		t.Fatalf("got %v", err)
	}
}

// A union built in Go encodes its one member. An empty union, or one with
// two members set, fails Validate, Encodable and MarshalJSON with an error
// naming the type; EncodeJSON, which cannot fail, writes null or the first.
func TestUnionInGo(t *testing.T) {
	c := Content{TextContent: &TextContent{Text: "hi"}}
	out, err := wireimpl.Marshal(&c)
	if string(out) != `{"type":"text","text":"hi"}` || err != nil || c.Encodable() != nil {
		t.Fatalf("got %s, %v", out, err)
	}
	var empty Content
	both := Content{TextContent: &TextContent{Text: "a"}, ImageContent: &ImageContent{Data: "aGk=", MIMEType: "a/b"}}
	for _, tc := range []struct {
		name string
		v    Content
		want string
		enc  string
	}{
		{"empty", empty, "constunion.Content must hold exactly one of TextContent, ImageContent; it holds none", "null"},
		{"both", both, "constunion.Content must hold exactly one of TextContent, ImageContent; it holds 2", `{"type":"text","text":"a"}`},
	} {
		var ee *wire.EncodeError
		if out, err := tc.v.MarshalJSON(); out != nil || !errors.As(err, &ee) || err.Error() != "cannot encode: "+tc.want {
			t.Errorf("%s: MarshalJSON = %s, %v", tc.name, out, err)
		}
		if out, err := json.Marshal([]Content{tc.v}); out != nil || !errors.As(err, &ee) || ee.Violations[0].String() != tc.want {
			t.Errorf("%s: json.Marshal = %s, %v", tc.name, out, err)
		}
		if err := tc.v.Encodable(); !errors.As(err, &ee) {
			t.Errorf("%s: Encodable = %v", tc.name, err)
		}
		var ve *wire.ValidationError
		if err := tc.v.Validate(); !errors.As(err, &ve) || ve.Violations[0].Message != tc.want {
			t.Errorf("%s: Validate = %v", tc.name, err)
		}
		var e jx.Encoder
		tc.v.EncodeJSON(&e)
		if string(e.Bytes()) != tc.enc {
			t.Errorf("%s: EncodeJSON wrote %s", tc.name, e.Bytes())
		}
	}
	// Inside a struct: a required union must hold a member, and the path
	// names where it is.
	var doc Document
	if err := doc.Encodable(); err == nil || err.Error() != "cannot encode: content: constunion.Content must hold exactly one of TextContent, ImageContent; it holds none" {
		t.Errorf("Document{}: %v", err)
	}
}
