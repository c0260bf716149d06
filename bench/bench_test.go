package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// load reads a payload without its trailing newline.
func load(tb testing.TB, p payload) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", p.file))
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSpace(data)
}

// expect returns the oracle's summary of a payload.
func expect(tb testing.TB, p payload, data []byte) summary {
	tb.Helper()
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		tb.Fatal(err)
	}
	return p.oracle(v)
}

// checkSummary reports every key impl m got wrong, and any required key it
// does not report at all.
func checkSummary(tb testing.TB, p payload, m impl, got, want summary) {
	tb.Helper()
	for _, k := range requiredKeys[p.name] {
		if _, ok := got[k]; !ok {
			tb.Errorf("%s/%s: %q not decoded", p.name, m.name, k)
		}
	}
	for k, g := range got {
		if w, ok := want[k]; !ok {
			tb.Errorf("%s/%s: unexpected summary key %q", p.name, m.name, k)
		} else if g != w {
			tb.Errorf("%s/%s: %s = %q, want %q", p.name, m.name, k, g, w)
		}
	}
	if tb.Failed() {
		tb.FailNow()
	}
}

// decodeChecked decodes data with m and checks the result against want.
func decodeChecked(tb testing.TB, p payload, m impl, data []byte, want summary) any {
	tb.Helper()
	v, err := m.decode(data)
	if err != nil {
		tb.Fatalf("%s/%s: decode: %v", p.name, m.name, err)
	}
	checkSummary(tb, p, m, m.summarize(v), want)
	return v
}

// encodeChecked encodes v with m and checks that decoding the output again
// with m gives the same summary.
func encodeChecked(tb testing.TB, p payload, m impl, v any, want summary) {
	tb.Helper()
	out, err := m.encode(v)
	if err != nil {
		tb.Fatalf("%s/%s: encode: %v", p.name, m.name, err)
	}
	if !json.Valid(out) {
		tb.Fatalf("%s/%s: encode produced invalid JSON: %.200s", p.name, m.name, out)
	}
	decodeChecked(tb, p, m, out, want)
}

func BenchmarkDecode(b *testing.B) {
	for _, p := range payloads {
		data := load(b, p)
		want := expect(b, p, data)
		for _, m := range impls(p.name) {
			b.Run(p.name+"/impl="+m.name, func(b *testing.B) {
				decodeChecked(b, p, m, data, want)
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				b.ResetTimer()
				for b.Loop() {
					if _, err := m.decode(data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	for _, p := range payloads {
		data := load(b, p)
		want := expect(b, p, data)
		for _, m := range impls(p.name) {
			if m.validate == nil {
				continue // peers have no schema validator
			}
			b.Run(p.name+"/impl="+m.name, func(b *testing.B) {
				v := decodeChecked(b, p, m, data, want)
				if err := m.validate(v); err != nil {
					b.Fatalf("valid payload rejected: %v", err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				b.ResetTimer()
				for b.Loop() {
					if err := m.validate(v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkDecodeValidate(b *testing.B) {
	for _, p := range payloads {
		data := load(b, p)
		want := expect(b, p, data)
		for _, m := range impls(p.name) {
			if m.validate == nil {
				continue
			}
			b.Run(p.name+"/impl="+m.name, func(b *testing.B) {
				v := decodeChecked(b, p, m, data, want)
				if err := m.validate(v); err != nil {
					b.Fatalf("valid payload rejected: %v", err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				b.ResetTimer()
				for b.Loop() {
					v, err := m.decode(data)
					if err != nil {
						b.Fatal(err)
					}
					if err := m.validate(v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, p := range payloads {
		data := load(b, p)
		want := expect(b, p, data)
		for _, m := range impls(p.name) {
			b.Run(p.name+"/impl="+m.name, func(b *testing.B) {
				v := decodeChecked(b, p, m, data, want)
				encodeChecked(b, p, m, v, want)
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				b.ResetTimer()
				for b.Loop() {
					if _, err := m.encode(v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
