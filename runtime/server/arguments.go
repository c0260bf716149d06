package server

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime/internal/toolschema"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// arguments are a tools/call's arguments: verbatim, and parsed into a
// generic JSON tree at most once, when something needs their values —
// schema validation beyond the flat fast path, Mcp-Param-* headers, the
// binding of a requestState. A call with a flat schema and neither of the
// others parses them only into the handler's own type.
type arguments struct {
	raw    wire.Raw
	tree   any
	err    error
	parsed bool
}

// object is the arguments verbatim, {} when absent.
func (a *arguments) object() wire.Raw {
	if a.raw == nil {
		return wire.Raw("{}")
	}
	return a.raw
}

// value is the arguments as a generic tree (numbers as json.Number).
func (a *arguments) value() (any, error) {
	if !a.parsed {
		a.parsed = true
		a.tree, a.err = toolschema.Parse(a.object())
	}
	return a.tree, a.err
}

// digest digests the arguments for binding a requestState to them
// (MRTR-17), so that answers given for one set of arguments cannot be
// replayed with another. Key order and spacing do not count; absent, null
// and {} are the same.
func (a *arguments) digest() string {
	var canon []byte
	v, err := a.value()
	switch {
	case err != nil:
		canon = a.raw
	case v == nil:
		canon = []byte("{}")
	default:
		canon, _ = json.Marshal(v) // map keys sorted, numbers as sent
	}
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
