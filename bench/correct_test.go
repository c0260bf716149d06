package bench

import (
	"encoding/json"
	"testing"
)

// TestPayloadsAgree checks that every implementation decodes each payload to
// the same facts (tool count and names, schemas of the first and last tool,
// request name/arguments/_meta, result text) as a plain encoding/json decode
// into any, and that what each one encodes decodes to the same facts again.
// It keeps the benchmark inputs and harness known-good.
func TestPayloadsAgree(t *testing.T) {
	for _, p := range payloads {
		data := load(t, p)
		want := expect(t, p, data)
		for _, m := range impls(p.name) {
			t.Run(p.name+"/"+m.name, func(t *testing.T) {
				v := decodeChecked(t, p, m, data, want)
				if m.validate != nil {
					if err := m.validate(v); err != nil {
						t.Fatalf("validate: %v", err)
					}
				}
				encodeChecked(t, p, m, v, want)
			})
		}
	}
}

// TestMcpgenRoundTrip checks that ours re-encodes every payload to the same
// JSON value it decoded (the generated code preserves members verbatim).
func TestMcpgenRoundTrip(t *testing.T) {
	for _, p := range payloads {
		data := load(t, p)
		m := impls(p.name)[0]
		v, err := m.decode(data)
		if err != nil {
			t.Fatal(err)
		}
		out, err := m.encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := canonical(out), canonical(data); g != w {
			t.Errorf("%s: round trip changed the value:\n got %s\nwant %s", p.name, g, w)
		}
	}
}

// TestValidateRejects makes sure the validator measured in the benchmarks
// does real work: a payload with a required member removed is rejected.
func TestValidateRejects(t *testing.T) {
	for _, p := range payloads {
		data := load(t, p)
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		switch p.name {
		case "toolsList":
			delete(v["tools"].([]any)[57].(map[string]any), "inputSchema")
		case "callRequest":
			delete(v["params"].(map[string]any), "name")
		case "callResult":
			delete(v, "resultType")
		}
		bad, _ := json.Marshal(v)
		m := impls(p.name)[0]
		dv, err := m.decode(bad)
		if err != nil {
			t.Fatalf("%s: decode: %v", p.name, err)
		}
		if err := m.validate(dv); err == nil {
			t.Errorf("%s: invalid payload accepted", p.name)
		} else {
			t.Logf("%s: %v", p.name, err)
		}
	}
}
