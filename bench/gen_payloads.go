//go:build ignore

// gen_payloads writes the benchmark inputs in testdata/. It is deterministic:
// running it twice gives identical bytes. Run it with `go generate` in this
// directory (see doc.go) or `go run gen_payloads.go`.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
)

// prop is one property of a tool's input schema. Field order is the JSON
// member order.
type prop struct {
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Enum        []string `json:"enum,omitempty"`
}

// inputSchema keeps properties in a fixed order by writing them itself.
type inputSchema struct {
	names    []string
	props    []prop
	required []string
}

func (s inputSchema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	for i, n := range s.names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		v, err := json.Marshal(s.props[i])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteString(`},"required":`)
	r, _ := json.Marshal(s.required)
	b.Write(r)
	b.WriteByte('}')
	return b.Bytes(), nil
}

type tool struct {
	Name        string      `json:"name"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	InputSchema inputSchema `json:"inputSchema"`
}

type listToolsResult struct {
	Tools      []tool `json:"tools"`
	TTLMs      int64  `json:"ttlMs"`
	CacheScope string `json:"cacheScope"`
	ResultType string `json:"resultType"`
}

var (
	verbs   = []string{"get", "list", "search", "create", "update", "delete", "describe", "summarize", "convert", "check"}
	objects = []string{"weather", "issue", "calendar_event", "file", "invoice", "contact", "ticket", "forecast", "repository", "order"}
	params  = []struct {
		name, typ, desc string
		enum            []string
	}{
		{"location", "string", "City name or latitude,longitude pair", nil},
		{"query", "string", "Free-text search query", nil},
		{"limit", "integer", "Maximum number of items to return", nil},
		{"units", "string", "Unit system for the returned values", []string{"metric", "imperial"}},
		{"includeArchived", "boolean", "Whether archived items are included", nil},
		{"id", "string", "Identifier of the item", nil},
		{"days", "integer", "Number of days to cover, starting today", nil},
	}
)

func toolsList() listToolsResult {
	r := listToolsResult{TTLMs: 60000, CacheScope: "public", ResultType: "complete"}
	for i := 0; i < 100; i++ {
		verb, obj := verbs[i%len(verbs)], objects[(i/len(verbs))%len(objects)]
		name := fmt.Sprintf("%s_%s", verb, obj)
		if i >= len(verbs)*len(objects) {
			name = fmt.Sprintf("%s_%d", name, i)
		}
		var s inputSchema
		n := 2 + i%2 // 2 or 3 properties
		for j := 0; j < n; j++ {
			p := params[(i+j*3)%len(params)]
			s.names = append(s.names, p.name)
			s.props = append(s.props, prop{Type: p.typ, Description: p.desc, Enum: p.enum})
		}
		s.required = []string{s.names[0]}
		if n == 3 {
			s.required = append(s.required, s.names[1])
		}
		r.Tools = append(r.Tools, tool{
			Name:  name,
			Title: fmt.Sprintf("%s %s", title(verb), title(obj)),
			Description: fmt.Sprintf("%s the %s matching the given parameters. Returns a JSON document; "+
				"errors are reported in the result with isError set (tool %d of 100).", title(verb), obj, i+1),
			InputSchema: s,
		})
	}
	return r
}

func title(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] == '_' {
			b[i] = ' '
		}
	}
	if len(b) > 0 && b[0] >= 'a' && b[0] <= 'z' {
		b[0] -= 'a' - 'A'
	}
	return string(b)
}

// The request and the result are small enough to write by hand; member
// order follows the task's description of the shapes.
const toolsCallRequest = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"_meta":{` +
	`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.4.2"},` +
	`"progressToken":"progress-42"},` +
	`"name":"get_weather","arguments":{"location":"Paris, France","units":"metric","days":3,"includeHourly":false}}}`

const toolsCallResult = `{"content":[{"type":"text","text":"Current weather in Paris, France: 18 °C, partly cloudy, ` +
	`wind 12 km/h from the south-west, humidity 64%. Forecast: Tuesday 20 °C sunny; Wednesday 17 °C light rain ` +
	`in the afternoon; Thursday 16 °C overcast with showers clearing by evening. Air quality is good (AQI 31). ` +
	`Sunrise 06:52, sunset 20:31."}],"isError":false,"resultType":"complete"}`

func main() {
	list, err := json.Marshal(toolsList())
	if err != nil {
		log.Fatal(err)
	}
	files := map[string][]byte{
		"tools_list_result.json":  list,
		"tools_call_request.json": []byte(toolsCallRequest),
		"tools_call_result.json":  []byte(toolsCallResult),
	}
	for name, data := range files {
		if !json.Valid(data) {
			log.Fatalf("%s: invalid JSON", name)
		}
		if err := os.WriteFile(filepath.Join("testdata", name), append(data, '\n'), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
