package client

import (
	"slices"

	"github.com/go-faster/jx"
	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// Converting values between the two revisions. Everything goes through
// the generated tables: the per-method descriptors say which definition a
// method's params and result are in each revision, the Shapes tables say
// what each definition declares, and wireimpl.Reshape drops what only the
// source revision declares (resultType, ttlMs, inputResponses going to a
// 2025-11-25 server; task, execution coming from one), keeping everything
// else verbatim. Legacy values are decoded and validated with the
// 2025-11-25 bindings before they are converted, so a malformed legacy
// message is an error, not a half-converted value.

var (
	modernRev = mcp.Revision
	legacyRev = mcp20251125.Revision
)

// toLegacy converts v, a 2026-07-28 value of definition modernDef, into
// definition legacyDef of 2025-11-25, decoded into into and validated
// there (what 2025-11-25 cannot hold is an error).
func toLegacy(v wireimpl.EncodeJSONer, modernDef string, into wireimpl.Codec, legacyDef string) error {
	_, err := toLegacyRaw(v, modernDef, into, legacyDef)
	return err
}

// checked is JSON a generated type decoded and validated: it is sent as
// it is.
type checked wire.Raw

func (c checked) EncodeJSON(e *jx.Encoder) { e.Raw(c) }

// toLegacyRaw is toLegacy that also returns the converted JSON.
func toLegacyRaw(v wireimpl.EncodeJSONer, modernDef string, into wireimpl.Codec, legacyDef string) (checked, error) {
	e := jx.GetEncoder()
	v.EncodeJSON(e)
	raw, err := wireimpl.Reshape(e.Bytes(), mcp.Shapes[modernDef], mcp20251125.Shapes[legacyDef], nil)
	jx.PutEncoder(e)
	if err != nil {
		return nil, err
	}
	if err := wireimpl.DecodeOwned(raw, into); err != nil {
		return nil, err
	}
	if err := into.Validate(); err != nil {
		return nil, err
	}
	return checked(raw), nil
}

// fromLegacy checks raw, the JSON of a 2025-11-25 value of definition
// legacyDef, by decoding and validating it into check, and converts it to
// definition modernDef of 2026-07-28, decoded into into. The conversion
// starts from raw, so members neither revision declares (and the verbatim
// members, such as tool schemas) reach into byte for byte.
func fromLegacy(raw []byte, check wireimpl.Codec, legacyDef string, into wireimpl.Codec, modernDef string) error {
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	// raw is the caller's to keep (a decoded message's): check may share it.
	if err := wireimpl.DecodeOwned(raw, check); err != nil {
		return err
	}
	if err := check.Validate(); err != nil {
		return err
	}
	out, err := wireimpl.Reshape(raw, mcp20251125.Shapes[legacyDef], mcp.Shapes[modernDef], nil)
	if err != nil {
		return err
	}
	return wireimpl.DecodeOwned(out, into)
}

// resultDef names the 2026-07-28 definition a legacy result converts to:
// the one of the method's result types with the legacy result's name
// (CallToolResult, not InputRequiredResult: legacy servers ask for input
// with requests of their own).
func resultDef(md, ld *wireimpl.Method) string {
	legacy := ld.ResultTypes[0]
	if slices.Contains(md.ResultTypes, legacy) {
		return legacy
	}
	for _, t := range md.ResultTypes {
		if t != "InputRequiredResult" {
			return t
		}
	}
	return legacy
}
