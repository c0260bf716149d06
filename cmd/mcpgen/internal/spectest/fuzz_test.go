package spectest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Run with, for example:
//
//	go test -run '^$' -fuzz FuzzDecodeMessage -fuzztime 2m ./cmd/mcpgen/internal/spectest/
//	go test -run '^$' -fuzz FuzzDecodeClientRequest -fuzztime 2m ./cmd/mcpgen/internal/spectest/
//
// Crashers land in testdata/fuzz/<Target>/ and stay as regression tests.

// addSeeds adds every spec example (when MCPGEN_SCHEMA_DIR is set) and
// every message of the invalid corpus.
func addSeeds(f *testing.F) {
	if dir := os.Getenv("MCPGEN_SCHEMA_DIR"); dir != "" {
		files, err := filepath.Glob(filepath.Join(schemaDir(f), "2026-07-28", "examples", "*", "*.json"))
		if err != nil {
			f.Fatal(err)
		}
		if len(files) == 0 {
			f.Fatal("no spec examples")
		}
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, c := range loadInvalidCases(f) {
		data, err := os.ReadFile(filepath.Join(invalidDir(f), c.File))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// roundTrip checks the properties every decoded value must have: Validate
// does not panic; encoding gives valid UTF-8 JSON that decodes again to an
// equal value (go-cmp, unexported presence bits included), whose encoding
// is byte-identical (encoding is deterministic and a fixed point).
func roundTrip[T any, P interface {
	*T
	wireimpl.Codec
}](t *testing.T, data []byte) {
	var v T
	p := P(&v)
	if err := wireimpl.Decode(data, p); err != nil {
		if _, ok := err.(*wire.DecodeError); !ok {
			t.Fatalf("decode error of type %T, want *wire.DecodeError: %v", err, err)
		}
		return
	}
	_ = p.Validate()
	out, err := wireimpl.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(out) || !json.Valid(out) {
		t.Fatalf("encoding is not valid UTF-8 JSON:\ninput  %q\noutput %q", data, out)
	}
	var again T
	q := P(&again)
	if err := wireimpl.Decode(out, q); err != nil {
		t.Fatalf("re-encoded value does not decode: %v\ninput  %q\noutput %q", err, data, out)
	}
	if diff := cmp.Diff(&v, &again, exporter); diff != "" {
		t.Fatalf("round trip changed the value (-first +second):\n%s\ninput  %q\noutput %q", diff, data, out)
	}
	out2, err := wireimpl.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, out2) {
		t.Fatalf("encoding is not a fixed point:\nfirst  %q\nsecond %q", out, out2)
	}
}

// FuzzDecodeMessage decodes arbitrary bytes as a JSONRPCMessage: it must
// never panic, and whatever decodes must round-trip.
func FuzzDecodeMessage(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip[mcp.JSONRPCMessage](t, data)
	})
}

// FuzzDecodeClientRequest decodes arbitrary bytes as a ClientRequest (the
// union of every client→server request): no panic, Validate included, and
// whatever decodes must round-trip.
func FuzzDecodeClientRequest(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip[mcp.ClientRequest](t, data)
	})
}
