package wireimpl

import (
	"errors"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Sub records, under p, the violations err lists: err is what Validate or
// Encodable returned for a value of another generated package (an
// extension package refers to the core package's types, mcpgen -reuse),
// whose own paths start at that value. Another kind of error is recorded
// at p. Sub is part of seam version 3.
func (c *Checker) Sub(p *Path, err error) {
	if err == nil {
		return
	}
	var violations []wire.Violation
	var ve *wire.ValidationError
	var ee *wire.EncodeError
	switch {
	case errors.As(err, &ve):
		violations = ve.Violations
	case errors.As(err, &ee):
		violations = ee.Violations
	default:
		c.Add(p, err.Error())
		return
	}
	prefix := p.String()
	for _, v := range violations {
		c.violations = append(c.violations, wire.Violation{Path: joinPath(prefix, v.Path), Message: v.Message})
	}
}

// joinPath appends the rendered path sub to the rendered path prefix.
func joinPath(prefix, sub string) string {
	switch {
	case sub == "":
		return prefix
	case prefix == "":
		return sub
	case strings.HasPrefix(sub, "["):
		return prefix + sub
	}
	return prefix + "." + sub
}
