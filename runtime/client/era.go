package client

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Telling a 2026-07-28-era server from a legacy (initialize-based) one
// (digest §4.4). This is the seam where dual-era support continues the
// legacy handshake instead of reporting the server.

// legacyVersion is the newest initialize-based revision.
const legacyVersion = "2025-11-25"

// legacyProbeMethod opens a session in initialize-based revisions.
const legacyProbeMethod = "initialize"

// probe tells a modern server from a legacy one over stdio (COMPAT-1..5).
func (c *Client) probe(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, c.opts.ProbeTimeout)
	defer cancel()
	_, err := c.Discover(pctx, WithTimeout(c.opts.ProbeTimeout)) // not Options.Timeout: a slow start is no legacy sign
	var rpc *wire.Error
	var ve *VersionError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		return err
	case errors.As(err, &rpc) && isModernError(rpc):
		return nil // modern, but this request was refused: calls will say why
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return c.legacyError(ctx, err)
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
	return c.legacyError(ctx, resp.Error)
}

// legacyFromHTTP turns a non-JSON-RPC 400 into the legacy report.
func (c *Client) legacyFromHTTP(ctx context.Context, err error) error {
	var he *HTTPError
	if c.http && errors.As(err, &he) && he.Status == http.StatusBadRequest {
		return c.legacyError(ctx, err)
	}
	return err
}

// legacyError describes a server that failed the modern probe. It asks the
// server with an initialize request which version it speaks, so the error
// can name it.
func (c *Client) legacyError(ctx context.Context, cause error) error {
	ve := &VersionError{Ours: c.opts.Versions, Legacy: true, cause: cause}
	timeout := min(5*time.Second, c.opts.ProbeTimeout) // a server that does not answer at all
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := wire.StringID("mcpgen-era-probe")
	e := jx.GetEncoder()
	jsonrpc.WriteRequest(e, id, legacyProbeMethod, func(e *jx.Encoder) {
		e.ObjStart()
		e.FieldStart("protocolVersion")
		e.Str(legacyVersion)
		e.FieldStart("capabilities")
		e.ObjEmpty()
		e.FieldStart("clientInfo")
		c.info.EncodeJSON(e)
		e.ObjEnd()
	})
	call := &Call{ID: id, Method: legacyProbeMethod, Body: slices.Clone(e.Bytes()), OnMessage: func(*jsonrpc.Message) {}}
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
