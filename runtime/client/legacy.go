package client

import (
	"context"
	"slices"
	"time"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// legacyVersion is the newest initialize-based revision.
const legacyVersion = "2025-11-25"

// legacyProbeMethod is the method of the probe legacyError sends.
const legacyProbeMethod = "initialize"

// legacyError describes a server that failed the modern probe. It asks the
// server with an initialize request which version it speaks, so the error
// can name it. This is the seam where dual-era support will continue the
// 2025-11-25 handshake instead of giving up.
func (c *Client) legacyError(ctx context.Context, cause error) error {
	ve := &VersionError{Ours: c.opts.Versions, Legacy: true, cause: cause}
	timeout := 5 * time.Second
	if ProbeTimeout < timeout {
		timeout = ProbeTimeout // a server that does not answer at all
	}
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
	req := &outbound{id: id, method: legacyProbeMethod, body: slices.Clone(e.Bytes())}
	jx.PutEncoder(e)
	resp, err := c.t.do(ctx, req, func(*jsonrpc.Message) {})
	if err != nil || resp.Kind != jsonrpc.KindResult {
		return ve
	}
	d := wireimpl.NewDecoder(resp.Result)
	if v, ok, err := d.PeekMember("protocolVersion"); err == nil && ok {
		ve.Theirs = []string{v}
	}
	return ve
}
