package server

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/gen/mcp"
)

// PromptRequest is a prompts/get request.
type PromptRequest struct {
	Request
	// Name is the prompt's name.
	Name string
	// Arguments are the prompt's arguments; every argument the prompt
	// declares as required is present (PRM-4).
	Arguments map[string]string
}

// PromptHandler renders one prompt.
type PromptHandler func(ctx context.Context, req *PromptRequest) (*mcp.GetPromptResult, error)

type prompt struct {
	def     mcp.Prompt
	handler PromptHandler
	scopes  []string // RequireScopes
}

// AddPrompt registers a prompt. Its name must follow PRM-8 (not empty, no
// control characters) and must not be registered
// already, unless Replace is given.
func (s *Server) AddPrompt(def mcp.Prompt, h PromptHandler, opts ...ItemOption) error {
	o := applyItemOptions(opts)
	if err := checkPlainName("prompt", "PRM-8", def.Name); err != nil {
		return err
	}
	if h == nil {
		return fmt.Errorf("server: prompt %q has no handler", def.Name)
	}
	if err := def.Validate(); err != nil {
		return fmt.Errorf("server: prompt %q: %w", def.Name, err)
	}
	s.mu.Lock()
	added := s.prompts.add(def.Name, &prompt{def: def, handler: h, scopes: o.scopes}, o.replace)
	s.mu.Unlock()
	if !added {
		return &DuplicateError{Kind: "prompt", Name: def.Name}
	}
	s.changed(changePrompts, "")
	return nil
}

// RemovePrompt unregisters a prompt and reports whether it existed.
func (s *Server) RemovePrompt(name string) bool {
	s.mu.Lock()
	ok := s.prompts.remove(name)
	s.mu.Unlock()
	if ok {
		s.changed(changePrompts, "")
	}
	return ok
}

// UserMessage is a prompt message from the user holding text.
func UserMessage(text string) mcp.PromptMessage {
	return mcp.PromptMessage{Role: mcp.RoleUser, Content: mcp.ContentBlock{TextContent: &mcp.TextContent{Text: text}}}
}
