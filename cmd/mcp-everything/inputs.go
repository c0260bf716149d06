package main

import (
	"encoding/json"
	"strings"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// contentString returns an accepted form field as text.
func contentString(r *mcp.ElicitResult, field string) string {
	v, ok := r.Content[field]
	switch {
	case !ok:
		return ""
	case v.String.Set:
		return v.String.Value
	}
	raw, _ := wireimpl.Marshal(&v)
	return string(raw)
}

func sampling(prompt string) mcp.CreateMessageRequestParams {
	return mcp.CreateMessageRequestParams{
		MaxTokens: 100,
		Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser,
			Content: mcp.SamplingMessageContent{TextContent: &mcp.TextContent{Text: prompt}}}},
	}
}

// samplingText joins the text blocks of a sampling answer.
func samplingText(r *mcp.CreateMessageResult) string {
	c := r.Content
	if c.TextContent != nil {
		return c.TextContent.Text
	}
	var parts []string
	for _, b := range c.Array {
		if b.TextContent != nil {
			parts = append(parts, b.TextContent.Text)
		}
	}
	return strings.Join(parts, " ")
}

func rootURIs(r *mcp.ListRootsResult) string {
	var uris []string
	for _, root := range r.Roots {
		uris = append(uris, root.URI)
	}
	return strings.Join(uris, ",")
}

// decodeArgs decodes tool arguments (already checked against the schema).
func decodeArgs(args wire.Raw, v any) error {
	if args == nil {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		return &wire.Error{Code: wire.CodeInvalidParams, Message: "Invalid arguments: " + err.Error()}
	}
	return nil
}
