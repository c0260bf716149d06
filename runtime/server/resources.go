package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ResourceRequest is a resources/read request.
type ResourceRequest struct {
	Request
	// URI is the resource read.
	URI string
	// Vars holds the values of a resource template's variables for the URI
	// (nil for a fixed resource).
	Vars map[string]string
}

// ResourceHandler returns the contents of a resource (one or more items,
// RES-3). It must not return an empty list for a resource that does not
// exist: return ResourceNotFound instead (RES-5).
type ResourceHandler func(ctx context.Context, req *ResourceRequest) ([]mcp.ReadResourceResultContentsItem, error)

type resource struct {
	def     mcp.Resource
	handler ResourceHandler
	scopes  []string // RequireScopes
}

type template struct {
	def     mcp.ResourceTemplate
	handler ResourceHandler
	match   *regexp.Regexp
	vars    []string
	scopes  []string // RequireScopes
}

// AddResource registers a resource. It needs a URI and a name (RES-2);
// its URI must not be registered already, unless Replace is given.
func (s *Server) AddResource(def mcp.Resource, h ResourceHandler, opts ...ItemOption) error {
	o := applyItemOptions(opts)
	if def.URI == "" || def.Name == "" {
		return errors.New("server: a resource needs a uri and a name (RES-2)")
	}
	if h == nil {
		return fmt.Errorf("server: resource %q has no handler", def.URI)
	}
	if err := def.Validate(); err != nil {
		return fmt.Errorf("server: resource %q: %w", def.URI, err)
	}
	s.mu.Lock()
	added := s.resources.add(def.URI, &resource{def: def, handler: h, scopes: o.scopes}, o.replace)
	s.mu.Unlock()
	if !added {
		return &DuplicateError{Kind: "resource", Name: def.URI}
	}
	s.changed(changeResources, "")
	return nil
}

// RemoveResource unregisters a resource and reports whether it existed.
func (s *Server) RemoveResource(uri string) bool {
	s.mu.Lock()
	ok := s.resources.remove(uri)
	s.mu.Unlock()
	if ok {
		s.changed(changeResources, "")
	}
	return ok
}

// AddResourceTemplate registers a resource template. Its uriTemplate may
// use simple RFC 6570 expressions ({name}, which match one path segment,
// and {+name}, which match the rest of the URI); a read of a URI that
// matches is served by h with the variables in ResourceRequest.Vars.
// Its name must follow RES-10 (not empty, no control characters), and its
// uriTemplate must not be registered already, unless Replace is given.
func (s *Server) AddResourceTemplate(def mcp.ResourceTemplate, h ResourceHandler, opts ...ItemOption) error {
	o := applyItemOptions(opts)
	if err := checkPlainName("resource template", "RES-10", def.Name); err != nil {
		return err
	}
	if def.URITemplate == "" {
		return fmt.Errorf("server: resource template %q needs a uriTemplate (RES-4)", def.Name)
	}
	if h == nil {
		return fmt.Errorf("server: resource template %q has no handler", def.URITemplate)
	}
	if err := def.Validate(); err != nil {
		return fmt.Errorf("server: resource template %q: %w", def.URITemplate, err)
	}
	re, vars, err := compileTemplate(def.URITemplate)
	if err != nil {
		return err
	}
	s.mu.Lock()
	added := s.templates.add(def.URITemplate, &template{def: def, handler: h, match: re, vars: vars, scopes: o.scopes}, o.replace)
	s.mu.Unlock()
	if !added {
		return &DuplicateError{Kind: "resource template", Name: def.URITemplate}
	}
	s.changed(changeResources, "")
	return nil
}

var exprRE = regexp.MustCompile(`\{([+]?)([A-Za-z0-9_.]+)\}`)

func compileTemplate(t string) (*regexp.Regexp, []string, error) {
	var b strings.Builder
	var vars []string
	b.WriteString("^")
	last := 0
	for _, m := range exprRE.FindAllStringSubmatchIndex(t, -1) {
		b.WriteString(regexp.QuoteMeta(t[last:m[0]]))
		if t[m[2]:m[3]] == "+" {
			b.WriteString("(.+)")
		} else {
			b.WriteString("([^/?#]+)")
		}
		vars = append(vars, t[m[4]:m[5]])
		last = m[1]
	}
	rest := t[last:]
	if strings.ContainsAny(rest, "{}") {
		return nil, nil, fmt.Errorf("server: uriTemplate %q uses an expression this server cannot match", t)
	}
	b.WriteString(regexp.QuoteMeta(rest))
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return re, vars, err
}

// NotifyResourceUpdated tells listeners subscribed to uri (or to a URI it
// is a sub-resource of, SUB-9) that it changed.
func (s *Server) NotifyResourceUpdated(uri string) {
	s.hub.publish(changeResource, uri)
}

// findResource returns the handler serving uri: the resource registered
// under it, else the first template that matches, with its variables.
func (s *Server) findResource(uri string) (ResourceHandler, map[string]string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if res, ok := s.resources.get(uri); ok {
		return res.handler, nil
	}
	for _, name := range s.templates.names {
		t := s.templates.items[name]
		if m := t.match.FindStringSubmatch(uri); m != nil {
			vars := make(map[string]string, len(t.vars))
			for i, v := range t.vars {
				vars[v] = m[i+1]
			}
			return t.handler, vars
		}
	}
	return nil, nil
}

// TextContents is a text resource content item.
func TextContents(uri, mimeType, text string) mcp.ReadResourceResultContentsItem {
	c := &mcp.TextResourceContents{URI: uri, Text: text}
	if mimeType != "" {
		c.MIMEType = wire.Some(mimeType)
	}
	return mcp.ReadResourceResultContentsItem{TextResourceContents: c}
}

// BlobContents is a binary resource content item (base64 on the wire).
func BlobContents(uri, mimeType string, data []byte) mcp.ReadResourceResultContentsItem {
	c := &mcp.BlobResourceContents{URI: uri, Blob: base64.StdEncoding.EncodeToString(data)}
	if mimeType != "" {
		c.MIMEType = wire.Some(mimeType)
	}
	return mcp.ReadResourceResultContentsItem{BlobResourceContents: c}
}

// CompletionRequest is a completion/complete request.
type CompletionRequest struct {
	Request
	Params *mcp.CompleteRequestParams
}

// CompletionHandler suggests values for a prompt or resource-template
// argument. At most 100 values are returned (CMP-3).
type CompletionHandler func(ctx context.Context, req *CompletionRequest) (*mcp.CompleteResultCompletion, error)

// SetCompletion installs the completion handler and so declares the
// completions capability.
func (s *Server) SetCompletion(h CompletionHandler) {
	s.mu.Lock()
	s.completer = h
	s.mu.Unlock()
	s.caps.Store(nil)
}
