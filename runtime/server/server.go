package server

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Instructions is returned by server/discover.
	Instructions string

	// Versions lists the protocol revisions served, newest first. Default:
	// every revision this runtime knows: 2026-07-28, served statelessly,
	// and 2025-11-25, 2025-06-18 and 2025-03-26, served to clients that
	// begin with initialize (a session per client). Leave the older ones
	// out to serve the stateless revision only; initialize is then
	// answered with the versions served (COMPAT-10).
	Versions []string

	// PageSize is the number of items per page of a list result. Default 100.
	PageSize int

	// CacheTTL and CacheScope are the caching hints (ttlMs, cacheScope) of
	// list, read and discover results. Defaults: 0 (stale at once) and
	// "public". A server whose lists or resources depend on the caller's
	// identity must use "private" (CACHE-5, CACHE-10).
	CacheTTL   time.Duration
	CacheScope mcp.CacheScope

	// StateKey is the 32-byte AES-256-GCM key sealing multi round-trip
	// requestState. Servers behind a load balancer must share one key.
	// Default: a random key made by New, valid for this process only.
	StateKey []byte
	// StateTTL bounds how long a requestState stays valid. Default 10 minutes.
	StateTTL time.Duration
	// SingleUseState makes every requestState usable once: a retry that
	// presents an already consumed state is rejected (MRTR-18). It keeps
	// the consumed states of this process in memory until they expire.
	SingleUseState bool

	// Logging declares the deprecated logging capability, so handlers may
	// send notifications/message to requests that opt in with logLevel.
	Logging bool

	// OmitServerInfo leaves io.modelcontextprotocol/serverInfo out of result
	// _meta (RT-6 allows it when configured).
	OmitServerInfo bool

	// Logger receives the server's own diagnostics. Default: discard. With
	// stdio, point it at os.Stderr, never at stdout (STDIO-2).
	Logger *slog.Logger

	// MaxMessageBytes bounds one stdio message; longer lines are answered
	// with -32600 and skipped. Default jsonrpc.MaxMessageBytes (16 MiB).
	// Streamable HTTP bodies have their own bound (HTTPOptions.MaxBodyBytes).
	MaxMessageBytes int

	// Middleware wraps every request's handling, outermost first: each sees
	// the method, its decoded and validated params, and the result or
	// error (see jsonrpc.Middleware).
	Middleware []jsonrpc.Middleware

	// Tasks, when set, serves the tasks extension (io.modelcontextprotocol/tasks,
	// docs/tasks.md): it is declared under capabilities.extensions, tools
	// registered with RunAsTask may answer with tasks, and tasks/get,
	// tasks/update and tasks/cancel are served. Nil: no tasks.
	Tasks *TaskOptions
}

// Server is an MCP server. Its methods are safe for concurrent use;
// registering or removing a tool, prompt or resource while serving sends
// the matching list-changed notification to listeners.
type Server struct {
	info mcp.Implementation
	opts Options
	log  *slog.Logger

	mu        sync.RWMutex
	tools     registry[*tool]
	prompts   registry[*prompt]
	resources registry[*resource]
	templates registry[*template]
	completer CompletionHandler

	hub    *hub
	sealer *sealer
	tasks  *taskManager // Options.Tasks; nil without

	rev *wireimpl.Revision // the stateless revision: mcp.Revision

	statelessVersions []string        // Options.Versions served without a handshake
	sessionVersions   []string        // Options.Versions negotiated by initialize, newest first
	chain             jsonrpc.Handler // Options.Middleware around the dispatch; nil without any
	caps              atomic.Pointer[mcp.ServerCapabilities]
	pages             pageCache // list pages while the lists are unchanged
}

// New returns a server that identifies itself with info.
func New(info mcp.Implementation, opts *Options) *Server {
	s := &Server{info: info}
	if opts != nil {
		s.opts = *opts
	}
	if len(s.opts.Versions) == 0 {
		s.opts.Versions = allVersions()
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 100
	}
	if s.opts.CacheScope == "" {
		s.opts.CacheScope = mcp.CacheScopePublic
	}
	if s.opts.StateTTL <= 0 {
		s.opts.StateTTL = 10 * time.Minute
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	key := s.opts.StateKey
	if len(key) != 32 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			panic("server: no randomness for the state key: " + err.Error())
		}
		if len(s.opts.StateKey) != 0 {
			s.log.Warn("Options.StateKey must be 32 bytes; using a random key")
		}
	}
	var unknown []string
	s.statelessVersions, s.sessionVersions, unknown = splitVersions(s.opts.Versions)
	if len(unknown) > 0 {
		s.log.Warn("Options.Versions names revisions this runtime does not serve; they are ignored", "versions", unknown)
	}
	s.sealer = newSealer(key, s.opts.StateTTL, s.opts.SingleUseState)
	s.hub = newHub()
	s.rev = mcp.Revision
	if s.opts.Tasks != nil {
		s.tasks = newTaskManager(s, *s.opts.Tasks)
	}
	if len(s.opts.Middleware) > 0 {
		h := jsonrpc.Handler(func(ctx context.Context, method string, params wire.Value) (wire.Value, error) {
			p, ok := params.(wireimpl.Codec)
			if !ok {
				return nil, fmt.Errorf("server: middleware changed the params of %s to %T, not a generated type", method, params)
			}
			return s.dispatchRequest(ctx, method, p)
		})
		for i := len(s.opts.Middleware) - 1; i >= 0; i-- {
			h = s.opts.Middleware[i](h)
		}
		s.chain = h
	}
	return s
}

// supports reports whether version is served.
func (s *Server) supports(version string) bool {
	return slices.Contains(s.statelessVersions, version)
}

// advertised is what the server declares now (GATE-2). It is computed
// once per change of what is registered (see changed).
func (s *Server) advertised() *mcp.ServerCapabilities {
	if c := s.caps.Load(); c != nil {
		return c
	}
	c := s.capabilities()
	s.caps.Store(&c)
	return &c
}

// changed records a change of what is registered: capabilities are
// computed again, listeners are told (kind of change c, for uri).
func (s *Server) changed(c change, uri string) {
	s.caps.Store(nil)
	if c != changeResource {
		s.pages.invalidate()
	}
	s.hub.publish(c, uri)
}

// capabilities describes what is registered now: a feature is advertised
// as soon as one item of it exists.
func (s *Server) capabilities() mcp.ServerCapabilities {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var c mcp.ServerCapabilities
	if s.tools.len() > 0 {
		c.Tools = &mcp.ServerCapabilitiesTools{ListChanged: someTrue}
	}
	if s.prompts.len() > 0 {
		c.Prompts = &mcp.ServerCapabilitiesPrompts{ListChanged: someTrue}
	}
	if s.resources.len() > 0 || s.templates.len() > 0 {
		c.Resources = &mcp.ServerCapabilitiesResources{ListChanged: someTrue, Subscribe: someTrue}
	}
	if s.completer != nil {
		c.Completions = mcp.JSONObject("{}")
	}
	if s.opts.Logging {
		c.Logging = mcp.JSONObject("{}")
	}
	if s.tasks != nil {
		c.Extensions = extensionCapability // TASK-1
	}
	return c
}

var someTrue = wire.Some(true)

// resultMeta is the _meta of every result: serverInfo (RT-6), unless
// Options.OmitServerInfo.
func (s *Server) resultMeta() *mcp.ResultMetaObject {
	if s.opts.OmitServerInfo {
		return nil
	}
	return &mcp.ResultMetaObject{ServerInfo: &s.info}
}

func (s *Server) maxMessage() int {
	if s.opts.MaxMessageBytes > 0 {
		return s.opts.MaxMessageBytes
	}
	return jsonrpc.MaxMessageBytes
}

func (s *Server) ttl() int64 { return s.opts.CacheTTL.Milliseconds() }
