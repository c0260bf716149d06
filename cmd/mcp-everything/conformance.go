package main

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/server"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// The surface the official conformance suite (server scenarios of
// revision 2026-07-28) exercises. Registration order matters: tools/list
// must start with test_simple_text, resources/list with a readable resource.

const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

var emptySchema = wire.Raw(`{"type":"object","properties":{}}`)

func (f *fixture) tool(name, description string, h server.ToolHandler) {
	must(f.s.AddTool(mcp.Tool{Name: name, Description: wire.Some(description), InputSchema: emptySchema}, h))
}

func result(blocks ...mcp.ContentBlock) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: blocks}
}

func image() mcp.ContentBlock {
	return mcp.ContentBlock{ImageContent: &mcp.ImageContent{Data: pngBase64, MIMEType: "image/png"}}
}

func embedded(uri, mime, body string) mcp.ContentBlock {
	return mcp.ContentBlock{EmbeddedResource: &mcp.EmbeddedResource{Resource: mcp.EmbeddedResourceResource{
		TextResourceContents: &mcp.TextResourceContents{URI: uri, MIMEType: wire.Some(mime), Text: body}}}}
}

func (f *fixture) conformanceTools() {
	s := f.s
	f.tool("test_simple_text", "Returns a simple text response", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return server.TextResult("This is a simple text response for testing."), nil
	})
	f.tool("test_image_content", "Returns an image", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return result(image()), nil
	})
	f.tool("test_audio_content", "Returns audio", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return result(mcp.ContentBlock{AudioContent: &mcp.AudioContent{Data: wavBase64, MIMEType: "audio/wav"}}), nil
	})
	f.tool("test_embedded_resource", "Returns an embedded resource", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return result(embedded("test://embedded-resource", "text/plain", "This is an embedded resource content.")), nil
	})
	f.tool("test_multiple_content_types", "Returns text, an image and a resource", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return result(text("Multiple content types test:"), image(),
			embedded("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`)), nil
	})
	f.tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		for i, p := range []float64{0, 50, 100} {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			req.Progress(p, 100, fmt.Sprintf("%g%% done", p))
		}
		return server.TextResult("Progress complete"), nil
	})
	f.tool("test_error_handling", "Always fails as a tool (isError)", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return server.ErrorResult("This tool intentionally returns an error for testing"), nil
	})
	f.tool("test_missing_capability", "Needs the client's sampling capability", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		if req.ClientCapabilities().Sampling == nil {
			return nil, &wire.Error{Code: mcp.CodeMissingRequiredClientCapability, Message: "This tool needs the client's sampling capability",
				Data: wire.Raw(`{"requiredCapabilities":{"sampling":{}}}`)}
		}
		return server.TextResult("Success"), nil
	})
	f.tool("test_streaming_elicitation", "Returns at once: servers never send requests on a stream (MSG-3)", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return server.TextResult("No request was sent on the response stream."), nil
	})
	f.tool("test_logging_tool", "Logs only when the request opts in with logLevel", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		req.Log(mcp.LoggingLevelInfo, "test_logging_tool", "log message for testing")
		return server.TextResult("Logging tool completed"), nil
	})
	f.tool("test_trigger_tool_change", "Notifies tools/list_changed listeners", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		s.NotifyToolListChanged()
		return server.TextResult("tools/list_changed sent"), nil
	})
	f.tool("test_trigger_prompt_change", "Notifies prompts/list_changed listeners", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		s.NotifyPromptListChanged()
		return server.TextResult("prompts/list_changed sent"), nil
	})
	f.mrtrTools()
	must(s.AddTool(mcp.Tool{Name: "json_schema_2020_12_tool", Description: wire.Some("Has a JSON Schema 2020-12 input schema using $defs, $anchor, allOf/anyOf and if/then/else"),
		InputSchema: wire.Raw(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return server.TextResult("arguments accepted: " + string(req.Arguments)), nil
		}))
	must(s.AddTool(mcp.Tool{Name: "test_custom_header", Description: wire.Some("Mirrors its region argument into the Mcp-Param-Region header"),
		InputSchema: wire.Raw(`{"type":"object","properties":{"region":{"type":"string","description":"A region name","x-mcp-header":"Region"}},"required":["region"]}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Region string `json:"region"`
			}
			if err := decodeArgs(req.Arguments, &a); err != nil {
				return nil, err
			}
			return server.TextResult("region=" + a.Region), nil
		}))
}

// elicitForm builds a flat form (ELI-4) of required fields, each a
// "string" or "boolean".
func elicitForm(message string, fields map[string]string) mcp.ElicitRequestFormParams {
	p := mcp.ElicitRequestFormParams{Message: message, RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp.PrimitiveSchemaDefinition{}}}
	for _, name := range wireimpl.SortedKeys(fields) {
		var d mcp.PrimitiveSchemaDefinition
		if fields[name] == "boolean" {
			d.BooleanSchema = &mcp.BooleanSchema{}
		} else {
			d.StringSchema = &mcp.StringSchema{}
		}
		p.RequestedSchema.Properties[name] = d
		p.RequestedSchema.Required = append(p.RequestedSchema.Required, name)
	}
	return p
}

// mrtrTools are the multi round-trip tools (§6.1) the suite drives.
func (f *fixture) mrtrTools() {
	f.tool("test_input_required_result_elicitation", "Asks for the user's name (elicitation)", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Elicit("user_name", elicitForm("What is your name?", map[string]string{"name": "string"}))
		if err != nil {
			return nil, err
		}
		return server.TextResult("Hello, " + contentString(r, "name") + "!"), nil
	})
	f.tool("test_input_required_result_sampling", "Asks the client's model a question (sampling)", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Sample("capital_question", sampling("What is the capital of France?"))
		if err != nil {
			return nil, err
		}
		return server.TextResult("The model answered: " + samplingText(r)), nil
	})
	f.tool("test_input_required_result_list_roots", "Asks for the client's roots", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Roots("client_roots")
		if err != nil {
			return nil, err
		}
		return server.TextResult("roots: " + rootURIs(r)), nil
	})
	f.tool("test_input_required_result_request_state", "Asks for a confirmation and keeps state in requestState", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		if req.State() == nil {
			req.SetState([]byte("awaiting-confirmation"))
		}
		r, err := req.Elicit("confirm", elicitForm("Please confirm", map[string]string{"ok": "boolean"}))
		if err != nil {
			return nil, err
		}
		return server.TextResult("state-ok: " + string(req.State()) + ", action " + string(r.Action)), nil
	})
	f.tool("test_input_required_result_multiple_inputs", "Asks for an elicitation, a completion and the roots at once", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		who, errE := req.Elicit("user_name", elicitForm("What is your name?", map[string]string{"name": "string"}))
		llm, errS := req.Sample("capital_question", sampling("What is the capital of France?"))
		roots, errR := req.Roots("client_roots")
		for _, err := range []error{errE, errS, errR} {
			if err != nil {
				return nil, err
			}
		}
		return server.TextResult("name=" + contentString(who, "name") + "; llm=" + samplingText(llm) + "; roots=" + rootURIs(roots)), nil
	})
	f.tool("test_input_required_result_multi_round", "Asks two questions in two rounds", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		first, err := req.Elicit("step1", elicitForm("Step 1: what is your name?", map[string]string{"name": "string"}))
		if err != nil {
			return nil, err
		}
		second, err := req.Elicit("step2", elicitForm("Step 2: what is your favourite colour?", map[string]string{"color": "string"}))
		if err != nil {
			return nil, err
		}
		return server.TextResult("name=" + contentString(first, "name") + "; color=" + contentString(second, "color")), nil
	})
	f.tool("test_input_required_result_tampered_state", "Keeps integrity-protected requestState; a tampered one is refused", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		if req.State() == nil {
			req.SetState([]byte("protected"))
		}
		r, err := req.Elicit("confirm", elicitForm("Please confirm", map[string]string{"ok": "boolean"}))
		if err != nil {
			return nil, err
		}
		return server.TextResult("confirmed: " + string(r.Action)), nil
	})
	f.tool("test_input_required_result_capabilities", "Asks only for inputs the client declared it can give", func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		caps := req.ClientCapabilities()
		var errs []error
		if caps.Elicitation != nil {
			_, err := req.Elicit("user_name", elicitForm("What is your name?", map[string]string{"name": "string"}))
			errs = append(errs, err)
		}
		if caps.Sampling != nil {
			_, err := req.Sample("capital_question", sampling("What is the capital of France?"))
			errs = append(errs, err)
		}
		if caps.Roots != nil {
			_, err := req.Roots("client_roots")
			errs = append(errs, err)
		}
		if len(errs) == 0 {
			return server.TextResult("the client declared no capability to ask through"), nil
		}
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		return server.TextResult("all declared inputs answered"), nil
	})
}

func (f *fixture) conformancePrompts() {
	s := f.s
	must(s.AddPrompt(mcp.Prompt{Name: "test_simple_prompt", Description: wire.Some("A prompt without arguments")},
		func(ctx context.Context, req *server.PromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{server.UserMessage("This is a simple prompt for testing.")}}, nil
		}))
	must(s.AddPrompt(mcp.Prompt{Name: "test_prompt_with_arguments", Description: wire.Some("A prompt with two required arguments"),
		Arguments: []mcp.PromptArgument{{Name: "arg1", Description: wire.Some("First argument"), Required: wire.Some(true)}, {Name: "arg2", Description: wire.Some("Second argument"), Required: wire.Some(true)}}},
		func(ctx context.Context, req *server.PromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{server.UserMessage(
				fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", req.Arguments["arg1"], req.Arguments["arg2"]))}}, nil
		}))
	must(s.AddPrompt(mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: wire.Some("A prompt embedding a resource"),
		Arguments: []mcp.PromptArgument{{Name: "resourceUri", Description: wire.Some("URI of the resource to embed"), Required: wire.Some(true)}}},
		func(ctx context.Context, req *server.PromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: embedded(req.Arguments["resourceUri"], "text/plain", "Embedded resource content for testing.")},
				server.UserMessage("Please process the embedded resource above."),
			}}, nil
		}))
	must(s.AddPrompt(mcp.Prompt{Name: "test_prompt_with_image", Description: wire.Some("A prompt with an image")},
		func(ctx context.Context, req *server.PromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: image()},
				server.UserMessage("Please analyze the image above."),
			}}, nil
		}))
	must(s.AddPrompt(mcp.Prompt{Name: "test_input_required_result_prompt", Description: wire.Some("Asks for context before rendering (multi round-trip prompts/get)")},
		func(ctx context.Context, req *server.PromptRequest) (*mcp.GetPromptResult, error) {
			r, err := req.Elicit("user_context", elicitForm("What context should the prompt use?", map[string]string{"context": "string"}))
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{server.UserMessage("Use this context: " + contentString(r, "context"))}}, nil
		}))
}

func (f *fixture) conformanceResources() {
	s := f.s
	must(s.AddResource(mcp.Resource{URI: "test://static-text", Name: "static-text", Description: wire.Some("A static text resource"), MIMEType: wire.Some("text/plain")},
		func(ctx context.Context, req *server.ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
			return []mcp.ReadResourceResultContentsItem{server.TextContents(req.URI, "text/plain", "This is the content of the static text resource.")}, nil
		}))
	must(s.AddResource(mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: wire.Some("A static binary resource"), MIMEType: wire.Some("image/png")},
		func(ctx context.Context, req *server.ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
			c := &mcp.BlobResourceContents{URI: req.URI, MIMEType: wire.Some("image/png"), Blob: pngBase64}
			return []mcp.ReadResourceResultContentsItem{{BlobResourceContents: c}}, nil
		}))
	must(s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Description: wire.Some("Data for an id"), MIMEType: wire.Some("application/json")},
		func(ctx context.Context, req *server.ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error) {
			id := req.Vars["id"]
			raw, err := wire.RawOf(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			if err != nil {
				return nil, err
			}
			return []mcp.ReadResourceResultContentsItem{server.TextContents(req.URI, "application/json", string(raw))}, nil
		}))
}
