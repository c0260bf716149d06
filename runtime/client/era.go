package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Telling a 2026-07-28-era server from a legacy (initialize-based) one
// (digest §4.4, BC-4), and switching to a legacy session.

// legacyVersion is the newest initialize-based revision.
const legacyVersion = mcp20251125.ProtocolVersion

// knownLegacyVersions are the initialize-based revisions the legacy
// session speaks (through the 2025-11-25 bindings: the older ones are
// subsets on the wire, LVER-6), newest first.
var knownLegacyVersions = []string{legacyVersion, "2025-06-18", "2025-03-26"}

// defaultVersions is Options.Versions by default: dual-era.
func defaultVersions() []string {
	return append([]string{mcp.ProtocolVersion}, knownLegacyVersions...)
}

// isLegacyVersion reports an initialize-based revision: one older than the
// first stateless revision (revisions are dates, compared as strings).
func isLegacyVersion(v string) bool { return v < mcp.ProtocolVersion }

// modernVersions are the 2026-07-28-era versions of Options.Versions,
// preferred first (never empty: the modern session needs one to name).
func (c *Client) modernVersions() []string {
	var out []string
	for _, v := range c.opts.Versions {
		if !isLegacyVersion(v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		out = []string{mcp.ProtocolVersion}
	}
	return out
}

// legacyVersions are the legacy versions of Options.Versions, preferred
// first.
func (c *Client) legacyVersions() []string {
	var out []string
	for _, v := range c.opts.Versions {
		if isLegacyVersion(v) {
			out = append(out, v)
		}
	}
	return out
}

// hasModern reports whether Options.Versions names a modern version.
func (c *Client) hasModern() bool {
	return slices.ContainsFunc(c.opts.Versions, func(v string) bool { return !isLegacyVersion(v) })
}

// legacySign is what a modern request met that only a legacy server
// answers (COMPAT-4, COMPAT-7): the cause, for the error when the client
// cannot fall back.
type legacySign struct{ cause error }

func (e *legacySign) Error() string {
	return "client: the server looks like a legacy one: " + e.cause.Error()
}
func (e *legacySign) Unwrap() error { return e.cause }

// detect chooses the session for the server behind c.t (BC-4).
func (c *Client) detect(ctx context.Context) error {
	switch {
	case !c.hasModern():
		return c.startLegacy(ctx, nil) // a legacy-only client: initialize at once
	case c.http && len(c.legacyVersions()) == 0:
		return nil // modern-only over HTTP: nothing is sent until the first call (DISC-4)
	}
	sign, err := c.probe(ctx)
	if err != nil || sign == nil {
		return err
	}
	if len(c.legacyVersions()) == 0 {
		return c.legacyError(ctx, sign.cause)
	}
	return c.startLegacy(ctx, nil)
}

// probe sends server/discover (COMPAT-1, COMPAT-7) and classifies the
// answer: nil, nil for a modern server; a legacySign for a legacy one; an
// error for a server that cannot be told (it refused us: 401/403, 5xx; it
// went away; the HTTP request failed).
func (c *Client) probe(ctx context.Context) (*legacySign, error) {
	pctx, cancel := context.WithTimeout(ctx, c.opts.ProbeTimeout)
	defer cancel()
	o := buildOptions([]CallOption{WithTimeout(c.opts.ProbeTimeout)}) // not Options.Timeout: a slow start is no legacy sign
	o.probing = true
	d, err := c.discover(pctx, o)
	var (
		rpc  *wire.Error
		ve   *VersionError
		sign *legacySign
		he   *HTTPError
		re   *ResultError
	)
	switch {
	case err == nil && len(d.SupportedVersions) > 0:
		return nil, nil // COMPAT-2
	case err == nil:
		// A result, but no DiscoverResult (e.g. {} from a legacy server
		// that answers every method): no modern evidence.
		return &legacySign{cause: errors.New("the server/discover result lists no supportedVersions")}, nil
	case errors.As(err, &sign):
		return sign, nil // HTTP: a 400 whose body is no modern error (COMPAT-7)
	case errors.As(err, &ve):
		// -32022 naming no modern version of ours: a legacy one we share
		// means the initialize flow (VER-5).
		for _, v := range ve.Theirs {
			if isLegacyVersion(v) && slices.Contains(c.opts.Versions, v) {
				return &legacySign{cause: err}, nil
			}
		}
		return nil, err
	case errors.As(err, &rpc) && isModernError(rpc):
		return nil, nil // modern, but this request was refused: calls will say why (COMPAT-3)
	case errors.As(err, &rpc):
		return &legacySign{cause: err}, nil // COMPAT-4, COMPAT-5: no particular code
	case errors.As(err, &re):
		return &legacySign{cause: err}, nil // something that is not a DiscoverResult
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &he):
		if he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden || he.Status >= 500 {
			return nil, err
		}
		return &legacySign{cause: err}, nil // 404, 405, ...: no modern answer
	case !c.http && errors.Is(err, context.DeadlineExceeded):
		return &legacySign{cause: fmt.Errorf("no answer to server/discover within %v (Options.ProbeTimeout)", c.opts.ProbeTimeout)}, nil // COMPAT-4
	}
	return nil, err
}

// isModernError: the error codes only 2026-07-28-era servers send (§3.3).
func isModernError(e *wire.Error) bool {
	switch e.Code {
	case mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return true
	}
	return false
}

// eraOf looks at an HTTP answer for signs of a legacy server (COMPAT-7):
// a 400 whose body is not a recognised modern error. (A modern server
// answers a malformed _meta with 400 and -32602, which is no such sign.)
func (c *Client) eraOf(ctx context.Context, call *Call, resp *jsonrpc.Message) error {
	if call.Status != http.StatusBadRequest || resp.Kind != jsonrpc.KindError {
		return nil
	}
	if isModernError(resp.Error) || resp.Error.Code == wire.CodeInvalidParams {
		return nil
	}
	return &legacySign{cause: resp.Error}
}

// legacyFromHTTP turns a non-JSON-RPC 400 into a legacy sign.
func (c *Client) legacyFromHTTP(ctx context.Context, err error) error {
	var he *HTTPError
	if c.http && errors.As(err, &he) && he.Status == http.StatusBadRequest {
		return &legacySign{cause: err}
	}
	return err
}

// startLegacy opens a legacy session on the connection (LLIFE-1) and makes
// it the client's session. from, when not nil, is the session that met
// the legacy server: the switch happens once.
func (c *Client) startLegacy(ctx context.Context, from session) error {
	c.eraMu.Lock()
	defer c.eraMu.Unlock()
	if from != nil && c.session() != from {
		return nil // another call switched already
	}
	s := newLegacySession(c)
	if err := s.open(ctx); err != nil {
		s.stop()
		return err
	}
	c.setSession(s)
	c.cache.clear() // nothing a modern answer left is the legacy server's
	return nil
}

// legacyError describes a legacy server to a modern-only client. It asks
// the server with an initialize request which version it speaks, so the
// error can name it.
func (c *Client) legacyError(ctx context.Context, cause error) error {
	ve := &VersionError{Ours: c.opts.Versions, Legacy: true, cause: cause}
	timeout := min(5*time.Second, c.opts.ProbeTimeout) // a server that does not answer at all
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := wire.StringID("mcpgen-era-probe")
	e := jx.GetEncoder()
	jsonrpc.WriteRequest(e, id, mcp20251125.MethodInitialize, func(e *jx.Encoder) {
		e.ObjStart()
		e.FieldStart("protocolVersion")
		e.Str(legacyVersion)
		e.FieldStart("capabilities")
		e.ObjEmpty()
		e.FieldStart("clientInfo")
		c.info.EncodeJSON(e)
		e.ObjEnd()
	})
	call := &Call{ID: id, Method: mcp20251125.MethodInitialize, Body: slices.Clone(e.Bytes()), OnMessage: func(*jsonrpc.Message) {}}
	jx.PutEncoder(e)
	resp, err := c.t.Call(ctx, call)
	if err != nil || resp.Kind != jsonrpc.KindResult {
		return ve
	}
	d := wireimpl.NewDecoder(resp.Result)
	if v, ok, err := d.PeekMember("protocolVersion"); err == nil && ok {
		ve.Theirs = []string{v}
	}
	return ve
}
