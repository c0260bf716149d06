package jsonrpc

import (
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// IsBatch reports whether data is a JSON array: a batch of messages,
// which only revision 2025-03-26 allows (its peers MUST accept them).
func IsBatch(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '[':
			return true
		}
		return false
	}
	return false
}

// SplitBatch returns the elements of a batch, each to be decoded on its
// own with Decode; the array's syntax is checked. An empty batch is no
// error here (JSON-RPC answers it with one -32600).
func SplitBatch(data []byte) ([]wire.Raw, error) {
	d := wireimpl.GetDecoder(data)
	defer wireimpl.PutDecoder(d)
	var elems []wire.Raw
	err := d.Arr(func(int) error {
		r, err := d.RawSyntax()
		elems = append(elems, r)
		return err
	})
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeParseError, Message: "Parse error: " + err.Error()}
	}
	return elems, nil
}
