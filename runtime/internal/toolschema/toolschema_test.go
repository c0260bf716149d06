package toolschema

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestTOOL5_FlatSchemaAgreesWithValidator: the flat checker never accepts
// arguments the full JSON Schema validator rejects, and accepts the plain
// valid ones (it may defer any case to the validator).
func TestTOOL5_FlatSchemaAgreesWithValidator(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"number","description":"x"},"s":{"type":"string"},"f":{"type":"boolean"}},"required":["a","s"]}`,
		`{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{}}`,
	}
	args := []string{
		`{}`, `{"a":1,"s":"x"}`, `{"a":1.0,"s":"x"}`, `{"a":1.5,"s":"x"}`, `{"a":"1","s":"x"}`,
		`{"a":1,"s":"x","b":2.5,"f":true}`, `{"a":1,"s":"x","f":"true"}`, `{"a":1,"s":null}`,
		`{"a":1,"s":"x","extra":[1,{"y":2}]}`, `{"a":1e2,"s":"x"}`, `{"a":-0,"s":"x"}`,
	}
	for _, sc := range schemas {
		flat := newFlat(wire.Raw(sc))
		if flat == nil {
			t.Fatalf("%s is not recognised as flat", sc)
		}
		s, err := Compile("mcp://tool/t/inputSchema", wire.Raw(sc))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range args {
			v, err := Parse(wire.Raw(a))
			if err != nil {
				t.Fatal(err)
			}
			valid := s.Validate(v) == nil
			if flat.accepts(wire.Raw(a)) && !valid {
				t.Errorf("schema %s: flat check accepts %s, which the validator rejects", sc, a)
			}
			if valid && a == `{"a":1,"s":"x"}` && !flat.accepts(wire.Raw(a)) {
				t.Errorf("schema %s: flat check defers the plain valid %s", sc, a)
			}
		}
	}
	for _, sc := range []string{
		`{"type":"object","properties":{"a":{"type":"integer","minimum":0}}}`,
		`{"type":"object","properties":{"a":{"type":"array"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		`{"type":"object","required":["missing"]}`,
		`{"type":"object","oneOf":[{"required":["a"]}]}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
	} {
		if newFlat(wire.Raw(sc)) != nil {
			t.Errorf("%s taken for flat", sc)
		}
	}
}
