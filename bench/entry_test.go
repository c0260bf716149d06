package bench

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
)

// BenchmarkEntryPoints compares the two ways of calling mcpgen's generated
// codecs on the 100-tool tools/list result: the package-level fast path
// (mcp.Unmarshal, mcp.Marshal) and encoding/json (json.Unmarshal into the
// generated type, json.Marshal of it), which calls the same UnmarshalJSON
// and MarshalJSON but scans the input first (and copies it), and scans and
// copies the output after. Decoding includes Validate on both paths.
func BenchmarkEntryPoints(b *testing.B) {
	data := load(b, payloads[0])
	for _, path := range []struct {
		name      string
		unmarshal func([]byte, *mcp.ListToolsResult) error
		marshal   func(*mcp.ListToolsResult) ([]byte, error)
	}{
		{"mcp", func(d []byte, v *mcp.ListToolsResult) error { return mcp.Unmarshal(d, v) }, func(v *mcp.ListToolsResult) ([]byte, error) { return mcp.Marshal(v) }},
		{"encoding-json", func(d []byte, v *mcp.ListToolsResult) error { return json.Unmarshal(d, v) }, func(v *mcp.ListToolsResult) ([]byte, error) { return json.Marshal(v) }},
	} {
		b.Run("decodeValidate/toolsList/path="+path.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var v mcp.ListToolsResult
				if err := path.unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
				if err := v.Validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("encode/toolsList/path="+path.name, func(b *testing.B) {
			var v mcp.ListToolsResult
			if err := mcp.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := path.marshal(&v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestEntryPointsAgree: both paths give the same value and the same bytes.
func TestEntryPointsAgree(t *testing.T) {
	data := load(t, payloads[0])
	var a, b mcp.ListToolsResult
	if err := mcp.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	x, err := mcp.Marshal(&a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(&b)
	if err != nil {
		t.Fatal(err)
	}
	// json.Marshal also escapes <, > and & in strings (\u003c): the same
	// value in other bytes.
	var c mcp.ListToolsResult
	if err := mcp.Unmarshal(y, &c); err != nil {
		t.Fatal(err)
	}
	z, err := mcp.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, z) {
		t.Fatalf("the paths disagree:\n%.200s\n%.200s", x, y)
	}
}
