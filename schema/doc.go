// Package schema loads a JSON Schema document (2020-12 or draft-07, as the
// MCP schema revisions use) into an ordered, resolved tree the generator's
// planner reads: definitions and properties keep their declaration order,
// every node knows its JSON pointer, $ref is resolved inside the document
// and allOf is merged into fresh nodes without touching shared definitions.
//
// Keyword values are read with github.com/atombender/go-jsonschema's
// pkg/schemas where that is sound. Its model loses declaration order
// (properties and $defs are Go maps), cannot tell an absent const from
// "const": null or an absent maxLength/maxItems from 0, matches keyword names
// case-insensitively (encoding/json) and shares maps when merging allOf; so
// this package reads order, presence, const and the length bounds from its
// own ordered parse of the document, takes a keyword from pkg/schemas only
// when the exact keyword is present, and merges allOf itself.
package schema
