package mcpheader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Param is one tool argument mirrored into a Mcp-Param-{Header} header.
type Param struct {
	Header string   // the x-mcp-header value (header is ParamPrefix + Header)
	Path   []string // property names from the inputSchema root
	Type   string   // "string", "integer" or "boolean"
}

var tokenRE = regexp.MustCompile("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$")

// ToolParams reads the x-mcp-header annotations of a tool's inputSchema and
// checks them (XMH-1..5): a valid header token, unique case-insensitively,
// only on string, integer or boolean properties, reachable from the root
// through "properties" alone. Any violation makes the whole tool invalid;
// the error says why.
func ToolParams(inputSchema []byte) ([]Param, error) {
	if len(inputSchema) == 0 {
		return nil, nil
	}
	if !bytes.Contains(inputSchema, []byte("x-mcp-header")) {
		return nil, nil // fast path: no annotation anywhere
	}
	var root any
	dec := json.NewDecoder(bytes.NewReader(inputSchema))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("inputSchema is not JSON: %w", err)
	}
	var params []Param
	seen := map[string]bool{}
	var walk func(node any, path []string, reachable bool) error
	walk = func(node any, path []string, reachable bool) error {
		switch n := node.(type) {
		case map[string]any:
			if h, ok := n["x-mcp-header"]; ok {
				where := "/" + strings.Join(path, "/")
				if !reachable || len(path) == 0 {
					return fmt.Errorf("x-mcp-header at %s is not reachable through properties alone (XMH-5)", where)
				}
				name, ok := h.(string)
				if !ok || !tokenRE.MatchString(name) {
					return fmt.Errorf("x-mcp-header %v at %s is not a valid header name (XMH-1)", h, where)
				}
				if seen[strings.ToLower(name)] {
					return fmt.Errorf("x-mcp-header %q is used twice (XMH-2)", name)
				}
				seen[strings.ToLower(name)] = true
				t, _ := n["type"].(string)
				if t != "string" && t != "integer" && t != "boolean" {
					return fmt.Errorf("x-mcp-header %q is on a property of type %v; only string, integer and boolean are allowed (XMH-3)", name, n["type"])
				}
				params = append(params, Param{Header: name, Path: append([]string(nil), path...), Type: t})
			}
			for _, k := range slices.Sorted(maps.Keys(n)) { // deterministic params and errors
				v := n[k]
				if k == "x-mcp-header" {
					continue
				}
				if k == "properties" {
					if props, ok := v.(map[string]any); ok {
						for _, name := range slices.Sorted(maps.Keys(props)) {
							if err := walk(props[name], append(path, name), reachable); err != nil {
								return err
							}
						}
						continue
					}
				}
				// Any other keyword leads somewhere headers may not be declared.
				if err := walk(v, path, false); err != nil {
					return err
				}
			}
		case []any:
			for _, v := range n {
				if err := walk(v, path, false); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root, nil, true); err != nil {
		return nil, err
	}
	return params, nil
}

// maxSafeInt is 2^53-1 (XMH-4).
const maxSafeInt = 1<<53 - 1

// Value returns the header value for p in a tool call's arguments:
// present is false when the argument is absent or null (XMH-7).
func (p Param) Value(arguments []byte) (value string, present bool, err error) {
	if len(arguments) == 0 {
		return "", false, nil
	}
	var node any
	dec := json.NewDecoder(bytes.NewReader(arguments))
	dec.UseNumber()
	if err := dec.Decode(&node); err != nil {
		return "", false, err
	}
	return p.ValueIn(node)
}

// ValueIn is Value for arguments already parsed into a generic JSON tree
// (objects as map[string]any, numbers as json.Number or float64).
func (p Param) ValueIn(node any) (value string, present bool, err error) {
	for _, k := range p.Path {
		m, ok := node.(map[string]any)
		if !ok {
			return "", false, nil
		}
		if node, ok = m[k]; !ok {
			return "", false, nil
		}
	}
	return Format(node)
}

// Format converts an argument value to its header string (ENC-1) before
// encoding: strings as is, integers in decimal, booleans lower-case.
func Format(v any) (string, bool, error) {
	switch x := v.(type) {
	case nil:
		return "", false, nil
	case string:
		return x, true, nil
	case bool:
		return strconv.FormatBool(x), true, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInt {
			return "", true, fmt.Errorf("value %s is not an integer within ±(2^53-1) (XMH-4)", x)
		}
		return strconv.FormatInt(int64(f), 10), true, nil
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > maxSafeInt {
			return "", true, fmt.Errorf("value %v is not an integer within ±(2^53-1) (XMH-4)", x)
		}
		return strconv.FormatInt(int64(x), 10), true, nil
	}
	return "", true, fmt.Errorf("value of type %T cannot be sent in a header", v)
}

// Equal compares a decoded header value with the body's value; integers
// compare numerically ("42" equals "42.0", HDR-3).
func (p Param) Equal(header, body string) bool {
	if header == body {
		return true
	}
	if p.Type == "integer" {
		a, err1 := strconv.ParseFloat(header, 64)
		b, err2 := strconv.ParseFloat(body, 64)
		return err1 == nil && err2 == nil && a == b
	}
	return false
}
