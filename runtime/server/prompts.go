package server

import (
	"context"
	"errors"
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

// AddPrompt registers (or replaces) a prompt.
func (s *Server) AddPrompt(def mcp.Prompt, h PromptHandler, opts ...ItemOption) error {
	if def.Name == "" {
		return errors.New("server: a prompt needs a name")
	}
	if h == nil {
		return fmt.Errorf("server: prompt %q has no handler", def.Name)
	}
	if err := def.Validate(); err != nil {
		return fmt.Errorf("server: prompt %q: %w", def.Name, err)
	}
	s.mu.Lock()
	s.prompts.put(def.Name, &prompt{def: def, handler: h, scopes: applyItemOptions(opts).scopes})
	s.mu.Unlock()
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
