package spectest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// TestConvertLosesNothing converts every spec example of a definition both
// revisions have from 2026-07-28 to 2025-11-25 and back (wireimpl.Reshape
// over the generated Shapes tables). What survives must decode and
// validate in each revision; the 2025-11-25 form must come back from
// 2026-07-28 unchanged; and the only members lost on the way must be
// members 2026-07-28 declares and 2025-11-25 does not (resultType, ttlMs,
// cacheScope, _meta["io.modelcontextprotocol/serverInfo"], ...): nothing
// both revisions can express is lost or changed.
func TestConvertLosesNothing(t *testing.T) {
	dir := filepath.Join(schemaDir(t), "2026-07-28", "examples")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	converted, lostTotal := 0, 0
	for _, file := range files {
		typ := filepath.Base(filepath.Dir(file))
		legacyShape, inLegacy := mcp20251125.Shapes[typ]
		modernShape := mcp.Shapes[typ]
		legacyValue, ok := mcp20251125.NewDefinition(typ)
		if !inLegacy || !ok {
			continue // a definition only 2026-07-28 has
		}
		rel := typ + "/" + filepath.Base(file)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			v, _ := mcp.NewDefinition(typ)
			if err := wireimpl.Decode(data, v); err != nil {
				t.Fatal(err)
			}
			modern, err := v.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			legacy, err := wireimpl.Reshape(modern, modernShape, legacyShape, nil)
			if err != nil {
				t.Fatalf("to 2025-11-25: %v", err)
			}
			// A value 2025-11-25 cannot hold (an array as structuredContent,
			// an outputSchema whose root is not an object) is not expressible
			// in both revisions: nothing to check.
			if err := wireimpl.Decode(legacy, legacyValue); err != nil {
				t.Skipf("not expressible in 2025-11-25: %v", err)
			}
			if err := legacyValue.Validate(); err != nil {
				t.Skipf("not expressible in 2025-11-25: %v", err)
			}
			back, err := wireimpl.Reshape(legacy, legacyShape, modernShape, nil)
			if err != nil {
				t.Fatalf("back to 2026-07-28: %v", err)
			}
			// The other way round, a 2025-11-25 value loses nothing at all:
			// to 2026-07-28 and back it is the same JSON.
			again, err := wireimpl.Reshape(back, modernShape, legacyShape, nil)
			if err != nil {
				t.Fatalf("to 2025-11-25 again: %v", err)
			}
			var legacyOrig, legacyAgain any
			if json.Unmarshal(legacy, &legacyOrig) != nil || json.Unmarshal(again, &legacyAgain) != nil {
				t.Fatal("a conversion produced invalid JSON")
			}
			if lost := diffJSON("", legacyOrig, legacyAgain); len(lost) > 0 {
				t.Errorf("2025-11-25 → 2026-07-28 → 2025-11-25 changed %q", lost)
			}
			var orig, got any
			if err := json.Unmarshal(modern, &orig); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(back, &got); err != nil {
				t.Fatal(err)
			}
			lost := diffJSON("", orig, got)
			for _, path := range lost {
				shown := strings.ReplaceAll(path, sep, "/")
				if declares(legacyShape, path) {
					t.Errorf("%s: lost in conversion, though 2025-11-25 declares it", shown)
				}
				if !declares(modernShape, path) {
					t.Errorf("%s: lost or changed in conversion, though 2026-07-28 does not declare it (undeclared members pass)", shown)
				}
			}
			converted++
			lostTotal += len(lost)
		})
	}
	if converted < 40 {
		t.Fatalf("only %d examples converted: the test is not looking at enough", converted)
	}
	t.Logf("%d examples converted both ways, %d modern-only members dropped", converted, lostTotal)
}

// sep separates the members of a path (member names may hold "/").
const sep = "\x00"

// diffJSON lists the paths of members of want that got lacks; other
// differences (changed values, added members) are reported as paths with
// a "!" prefix, which declares never matches.
func diffJSON(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{"!" + path}
		}
		var out []string
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, present := g[k]
			if !present {
				out = append(out, path+sep+k)
				continue
			}
			out = append(out, diffJSON(path+sep+k, w[k], gv)...)
		}
		for k := range g {
			if _, had := w[k]; !had {
				out = append(out, "!"+path+sep+k)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{"!" + path}
		}
		var out []string
		for i := range w {
			out = append(out, diffJSON(path+sep+"*", w[i], g[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{"!" + path}
	}
	return nil
}

// declares reports whether the member at path (/a/*/b: * for any element
// or map value) is declared by shape.
func declares(s *wireimpl.Shape, path string) bool {
	if strings.HasPrefix(path, "!") {
		return false
	}
	segs := strings.Split(strings.TrimPrefix(path, sep), sep)
	for i, seg := range segs {
		s = flatShape(s)
		if s == nil {
			return false
		}
		if seg == "*" {
			s = s.Elem
			continue
		}
		next, ok := s.Members[seg]
		if !ok {
			if s.Elem != nil { // a map's value
				s = s.Elem
				continue
			}
			return false
		}
		if i == len(segs)-1 {
			return true
		}
		s = next
	}
	return false
}

// flatShape merges a union's variants the way Reshape does.
func flatShape(s *wireimpl.Shape) *wireimpl.Shape {
	if s == nil || len(s.Variants) == 0 {
		return s
	}
	m := &wireimpl.Shape{Members: map[string]*wireimpl.Shape{}}
	for _, v := range s.Variants {
		if v = flatShape(v); v == nil {
			continue
		}
		for k, ms := range v.Members {
			if _, ok := m.Members[k]; !ok || m.Members[k] == nil {
				m.Members[k] = ms
			}
		}
		if v.Elem != nil && m.Elem == nil {
			m.Elem = v.Elem
		}
	}
	return m
}
