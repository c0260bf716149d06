package content_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/content"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Every block validates, encodes to the JSON the spec shows, decodes back
// to the same block, and Bytes returns what it was built from.
func TestBlocks(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 0xff}
	for _, tc := range []struct {
		name  string
		b     mcp.ContentBlock
		json  string
		bytes []byte
		mime  string
	}{
		{"text", content.Text("hi"), `{"text":"hi","type":"text"}`, []byte("hi"), ""},
		{"image", content.Image(png, "image/png"), `{"data":"iVBORwABAv8=","mimeType":"image/png","type":"image"}`, png, "image/png"},
		{"audio", content.Audio([]byte("RIFF"), "audio/wav"), `{"data":"UklGRg==","mimeType":"audio/wav","type":"audio"}`, []byte("RIFF"), "audio/wav"},
		{"link", content.Link("file:///r/a.txt", "a.txt"), `{"name":"a.txt","type":"resource_link","uri":"file:///r/a.txt"}`, nil, ""},
		{"text resource", content.TextResource("file:///r/a.txt", "text/plain", "A"), `{"resource":{"mimeType":"text/plain","text":"A","uri":"file:///r/a.txt"},"type":"resource"}`, []byte("A"), "text/plain"},
		{"text resource without type", content.TextResource("file:///r/a.txt", "", "A"), `{"resource":{"text":"A","uri":"file:///r/a.txt"},"type":"resource"}`, []byte("A"), ""},
		{"blob resource", content.BlobResource("file:///r/a.png", "image/png", png), `{"resource":{"blob":"iVBORwABAv8=","mimeType":"image/png","uri":"file:///r/a.png"},"type":"resource"}`, png, "image/png"},
	} {
		if err := tc.b.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", tc.name, err)
		}
		out, err := mcp.Marshal(&tc.b)
		if err != nil || string(out) != tc.json {
			t.Errorf("%s: Marshal = %s, %v; want %s", tc.name, out, err, tc.json)
		}
		var back mcp.ContentBlock
		if err := mcp.Unmarshal(out, &back); err != nil || back.Validate() != nil {
			t.Errorf("%s: decoding %s: %v, %v", tc.name, out, err, back.Validate())
		}
		data, mime, err := content.Bytes(back)
		if tc.bytes == nil {
			if err == nil {
				t.Errorf("%s: Bytes of a link: no error", tc.name)
			}
			continue
		}
		if err != nil || !bytes.Equal(data, tc.bytes) || mime != tc.mime {
			t.Errorf("%s: Bytes = %q, %q, %v", tc.name, data, mime, err)
		}
	}
	if _, _, err := content.Bytes(mcp.ContentBlock{}); err == nil {
		t.Error("Bytes of an empty block: no error")
	}
	bad := content.Image([]byte("x"), "image/png")
	bad.ImageContent.Data = "not base64!"
	if bad.Validate() == nil {
		t.Error("an image whose data is not base64 validates")
	}
	if _, _, err := content.Bytes(bad); err == nil {
		t.Error("Bytes of bad base64: no error")
	}
}

func ExampleImage() {
	png := []byte{0x89, 'P', 'N', 'G'}
	res := &mcp.CallToolResult{ResultType: mcp.ResultTypeComplete, Content: []mcp.ContentBlock{
		content.Text("Here is the chart:"),
		content.Image(png, "image/png"),
	}}
	link := content.Link("https://example.com/report.pdf", "report.pdf")
	link.ResourceLink.MIMEType = wire.Some("application/pdf")
	res.Content = append(res.Content, link)
	out, err := mcp.Marshal(res)
	fmt.Println(string(out), err)
	// Output:
	// {"content":[{"text":"Here is the chart:","type":"text"},{"data":"iVBORw==","mimeType":"image/png","type":"image"},{"mimeType":"application/pdf","name":"report.pdf","type":"resource_link","uri":"https://example.com/report.pdf"}],"resultType":"complete"} <nil>
}
