package server

import (
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// legacyMethodInitialize opens a session in initialize-based revisions.
const legacyMethodInitialize = "initialize"

// legacyInitialize reports an initialize request from a pre-2026 client:
// one without the per-request _meta of this revision. An initialize that
// carries modern markers is an unknown method like any other (-32601).
func legacyInitialize(m *jsonrpc.Message) bool {
	return m.Method == legacyMethodInitialize && !peekParams("", m.Params).hasVersion
}

// legacyInitialize answers the initialize request of a pre-2026 client.
// There is no handshake in this revision, so the answer names the versions
// served, in data and in the message a legacy client may only be able to
// show (COMPAT-10); -32022 also tells a dual-era client it reached a
// modern server (digest §3.3).
func (s *Server) legacyInitialize(params wire.Raw) *wire.Error {
	requested, _ := topString(params, "protocolVersion")
	err := s.unsupportedVersion(requested)
	err.Message += "; this server supports " + strings.Join(s.opts.Versions, ", ") + " and has no initialize handshake"
	return err
}

// topString reads the top-level string member key of params.
func topString(params wire.Raw, key string) (string, bool) {
	if params == nil {
		return "", false
	}
	d := wireimpl.GetDecoder(params)
	defer wireimpl.PutDecoder(d)
	v, found, err := d.PeekMember(key)
	return v, found && err == nil
}
