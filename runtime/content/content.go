// Package content builds the content blocks of tool results and prompt
// messages (mcp.ContentBlock of gen/mcp, revision 2026-07-28) from Go
// values: text, images and audio from bytes (base64 is done here), links
// to resources and embedded resources. Bytes reads the bytes back.
//
//	res := &mcp.CallToolResult{Content: []mcp.ContentBlock{
//		content.Text("Here is the chart:"),
//		content.Image(png, "image/png"),
//	}}
//
// Each function returns a block holding exactly one member, which
// validates when its arguments do (a uri must be an RFC 3986 URI). Optional
// members (annotations, _meta, a link's title or size) are set on the
// member afterwards: b := content.Link(uri, name); b.ResourceLink.Title =
// wire.Some("Report").
//
// The server package's TextResult, ErrorResult and UserMessage build whole
// tool results and prompt messages; this package builds the blocks they
// are made of, and is used by clients too.
package content

import (
	"encoding/base64"
	"fmt"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Text is a text block.
func Text(text string) mcp.ContentBlock {
	return mcp.ContentBlock{TextContent: &mcp.TextContent{Text: text}}
}

// Image is an image block holding data, base64-encoded, of the MIME type
// mimeType ("image/png").
func Image(data []byte, mimeType string) mcp.ContentBlock {
	return mcp.ContentBlock{ImageContent: &mcp.ImageContent{Data: base64.StdEncoding.EncodeToString(data), MIMEType: mimeType}}
}

// Audio is an audio block holding data, base64-encoded, of the MIME type
// mimeType ("audio/wav").
func Audio(data []byte, mimeType string) mcp.ContentBlock {
	return mcp.ContentBlock{AudioContent: &mcp.AudioContent{Data: base64.StdEncoding.EncodeToString(data), MIMEType: mimeType}}
}

// Link is a link to the resource at uri, which the client may read with
// resources/read; name identifies it (a title may be set afterwards).
func Link(uri, name string) mcp.ContentBlock {
	return mcp.ContentBlock{ResourceLink: &mcp.ResourceLink{URI: uri, Name: name}}
}

// TextResource is an embedded resource: the text of the resource at uri,
// of the MIME type mimeType ("" leaves the type out).
func TextResource(uri, mimeType, text string) mcp.ContentBlock {
	c := &mcp.TextResourceContents{URI: uri, Text: text}
	if mimeType != "" {
		c.MIMEType = wire.Some(mimeType)
	}
	return mcp.ContentBlock{EmbeddedResource: &mcp.EmbeddedResource{Resource: mcp.EmbeddedResourceResource{TextResourceContents: c}}}
}

// BlobResource is an embedded resource: the bytes of the resource at uri,
// base64-encoded, of the MIME type mimeType ("" leaves the type out).
func BlobResource(uri, mimeType string, data []byte) mcp.ContentBlock {
	c := &mcp.BlobResourceContents{URI: uri, Blob: base64.StdEncoding.EncodeToString(data)}
	if mimeType != "" {
		c.MIMEType = wire.Some(mimeType)
	}
	return mcp.ContentBlock{EmbeddedResource: &mcp.EmbeddedResource{Resource: mcp.EmbeddedResourceResource{BlobResourceContents: c}}}
}

// Bytes returns the bytes an image, audio or embedded blob block holds,
// decoded from base64, and their MIME type ("" when a blob has none). A
// text block or embedded text resource gives its text as bytes; a link
// has no bytes (an error: read the resource).
func Bytes(b mcp.ContentBlock) (data []byte, mimeType string, err error) {
	if err := b.Encodable(); err != nil { // no member, or several
		return nil, "", err
	}
	switch {
	case b.TextContent != nil:
		return []byte(b.TextContent.Text), "", nil
	case b.ImageContent != nil:
		data, err = base64.StdEncoding.DecodeString(b.ImageContent.Data)
		return data, b.ImageContent.MIMEType, err
	case b.AudioContent != nil:
		data, err = base64.StdEncoding.DecodeString(b.AudioContent.Data)
		return data, b.AudioContent.MIMEType, err
	case b.EmbeddedResource != nil && b.EmbeddedResource.Resource.BlobResourceContents != nil:
		c := b.EmbeddedResource.Resource.BlobResourceContents
		data, err = base64.StdEncoding.DecodeString(c.Blob)
		return data, c.MIMEType.Value, err
	case b.EmbeddedResource != nil && b.EmbeddedResource.Resource.TextResourceContents != nil:
		c := b.EmbeddedResource.Resource.TextResourceContents
		return []byte(c.Text), c.MIMEType.Value, nil
	case b.ResourceLink != nil:
		return nil, "", fmt.Errorf("content: a resource link holds no bytes; read %s", b.ResourceLink.URI)
	}
	return nil, "", fmt.Errorf("content: an embedded resource holding no contents")
}
