package server

import (
	"slices"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// One server serves two eras (BC-2): requests that carry the stateless
// revision's _meta are served as they arrive; a client that begins with
// initialize gets a session of the initialize-based revision, whose
// requests are converted to the stateless revision's values for the same
// handlers and whose answers are converted back. Each era is a generated
// package: its method table, its shapes for the conversion, its codes.

// era is one generated revision the runtime serves.
type era struct {
	rev    *wireimpl.Revision
	shapes map[string]*wireimpl.Shape
}

var (
	// modern is the stateless revision; handlers see its values.
	modern = &era{rev: mcp.Revision, shapes: mcp.Shapes}
	// legacy is the initialize-based revision; its bindings also serve the
	// older revisions its facts list as compatible.
	legacy = &era{rev: mcp20251125.Revision, shapes: mcp20251125.Shapes}
)

// eras lists the eras newest first.
var eras = []*era{modern, legacy}

// versions lists every protocol version an era serves, newest first.
func (e *era) versions() []string {
	return append([]string{e.rev.Version}, e.rev.Compatible...)
}

// eraOf returns the era serving version, or nil.
func eraOf(version string) *era {
	for _, e := range eras {
		if slices.Contains(e.versions(), version) {
			return e
		}
	}
	return nil
}

// allVersions is the default of Options.Versions: every version of every
// era, newest first.
func allVersions() []string {
	var vs []string
	for _, e := range eras {
		vs = append(vs, e.versions()...)
	}
	return vs
}

// splitVersions sorts the configured versions by era: those served
// statelessly, and those negotiated by initialize (newest first). It
// reports versions no era serves.
func splitVersions(vs []string) (stateless, handshake, unknown []string) {
	for _, v := range vs {
		switch e := eraOf(v); {
		case e == nil:
			unknown = append(unknown, v)
		case e.rev.Stateless:
			stateless = append(stateless, v)
		default:
			handshake = append(handshake, v)
		}
	}
	slices.SortFunc(handshake, func(a, b string) int { return -compareVersions(a, b) })
	return stateless, handshake, unknown
}

// compareVersions orders revision dates (YYYY-MM-DD compare as strings).
func compareVersions(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// negotiate picks the version of a new session (LVER-2): the requested
// one when served, else the newest served; never a stateless version
// (LVER-4). ok is false when the server serves no initialize-based
// version at all.
func (s *Server) negotiate(requested string) (version string, ok bool) {
	if len(s.sessionVersions) == 0 {
		return "", false
	}
	if slices.Contains(s.sessionVersions, requested) {
		return requested, true
	}
	return s.sessionVersions[0], true
}
