package plan

import (
	"slices"

	"github.com/mcpgen/mcpgen/schema"
)

// applyQuirks corrects known artefacts of schema.json, where it is
// narrower than schema.ts (the normative source). Each correction matches
// a precise shape and does nothing on revisions without it.
func applyQuirks(doc *schema.Document) {
	// Digest §1.8 item 2 / Appendix A5: ElicitResult.content values are
	// "string | number | boolean | string[]" in schema.ts, but schema.json
	// narrows number to integer; a form field of type "number" may return
	// 22.5. We side with schema.ts: integer becomes number.
	if d := doc.Def("ElicitResult"); d != nil {
		if c := d.Schema.Property("content"); c != nil && c.AdditionalProperties != nil {
			for _, m := range append([]*schema.Schema{c.AdditionalProperties}, c.AdditionalProperties.AnyOf...) {
				if i := slices.Index(m.Types, "integer"); i >= 0 && !slices.Contains(m.Types, "number") {
					m.Types[i] = "number"
				}
			}
		}
	}
	// JSONValue (Appendix A5) admits no fractions and no null in schema.json;
	// it is free-form JSON and kept verbatim, so every JSON value passes.
}
