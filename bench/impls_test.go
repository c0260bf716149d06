package bench

// The three implementations under comparison, each driven the way the
// library itself drives its types on the wire (see README.md for the paths
// this mirrors and where the harness is more generous than the library).

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// A payload is one benchmark input.
type payload struct {
	name string // sub-benchmark name
	file string // under testdata/
	// oracle extracts the facts every implementation must agree on from
	// the payload, decoded independently with encoding/json into any.
	oracle func(v map[string]any) summary
}

// A summary is what a decoded value is checked against: key -> canonical
// text. An implementation reports only the keys its types can carry.
type summary map[string]string

// An impl decodes, validates and encodes one payload with one library.
type impl struct {
	name     string
	decode   func(data []byte) (any, error)
	validate func(v any) error // nil: the library has no validator
	encode   func(v any) ([]byte, error)
	// summarize extracts a summary from a decoded value.
	summarize func(v any) summary
}

var payloads = []payload{
	{name: "toolsList", file: "tools_list_result.json", oracle: oracleToolsList},
	{name: "callRequest", file: "tools_call_request.json", oracle: oracleCallRequest},
	{name: "callResult", file: "tools_call_result.json", oracle: oracleCallResult},
}

// requiredKeys must be in every implementation's summary, so that a decoder
// that drops everything cannot pass.
var requiredKeys = map[string][]string{
	"toolsList":   {"count", "names", "schema[0]", "schema[99]"},
	"callRequest": {"method", "name", "arguments", "progressToken"},
	"callResult":  {"contentCount", "text"},
}

// impls returns the implementations for a payload, in column order.
func impls(p string) []impl {
	switch p {
	case "toolsList":
		return []impl{
			{
				name:     "mcpgen",
				decode:   func(d []byte) (any, error) { v := new(mcp.ListToolsResult); return v, mcp.Unmarshal(d, v) },
				validate: func(v any) error { return v.(*mcp.ListToolsResult).Validate() },
				encode:   func(v any) ([]byte, error) { return mcp.Marshal(v.(*mcp.ListToolsResult)) },
				summarize: func(v any) summary {
					r := v.(*mcp.ListToolsResult)
					s := summary{"count": strconv.Itoa(len(r.Tools)), "ttlMs": strconv.FormatInt(r.TTLMs, 10),
						"cacheScope": string(r.CacheScope), "resultType": string(r.ResultType)}
					names := make([]string, len(r.Tools))
					for i, t := range r.Tools {
						names[i] = t.Name
						addTool(s, i, t.Title.Value, t.Description.Value, []byte(t.InputSchema))
					}
					s["names"] = strings.Join(names, ",")
					return s
				},
			},
			{
				name: "gosdk",
				// The go-sdk client decodes a result with encoding/json
				// (jsonrpc2.AsyncCall.Await) after the envelope was split off.
				decode: func(d []byte) (any, error) { v := new(gosdk.ListToolsResult); return v, stdjson.Unmarshal(d, v) },
				// Its server encodes a result with an encoding/json Encoder
				// without HTML escaping (jsonrpc2.marshalToRaw).
				encode: func(v any) ([]byte, error) { return sdkMarshal(v) },
				summarize: func(v any) summary {
					r := v.(*gosdk.ListToolsResult)
					s := summary{"count": strconv.Itoa(len(r.Tools)), "ttlMs": strconv.Itoa(r.TTLMs),
						"cacheScope": string(r.CacheScope), "resultType": string(r.ResultType)}
					names := make([]string, len(r.Tools))
					for i, t := range r.Tools {
						names[i] = t.Name
						addTool(s, i, t.Title, t.Description, mustMarshal(t.InputSchema))
					}
					s["names"] = strings.Join(names, ",")
					return s
				},
			},
			{
				name: "mcpgo",
				// mcp-go's client: json.Unmarshal of the result into the type;
				// its server: json.Marshal of the response.
				decode: func(d []byte) (any, error) { v := new(mcpgo.ListToolsResult); return v, stdjson.Unmarshal(d, v) },
				encode: func(v any) ([]byte, error) { return stdjson.Marshal(v) },
				summarize: func(v any) summary {
					r := v.(*mcpgo.ListToolsResult)
					s := summary{"count": strconv.Itoa(len(r.Tools)),
						"cacheScope": string(r.CacheScope), "resultType": string(r.ResultType)}
					if r.TTLMs != nil {
						s["ttlMs"] = strconv.FormatInt(*r.TTLMs, 10)
					}
					names := make([]string, len(r.Tools))
					for i, t := range r.Tools {
						names[i] = t.Name
						addTool(s, i, t.Title, t.Description, mustMarshal(t.InputSchema))
					}
					s["names"] = strings.Join(names, ",")
					return s
				},
			},
		}

	case "callRequest":
		return []impl{
			{
				name:     "mcpgen",
				decode:   func(d []byte) (any, error) { v := new(mcp.CallToolRequest); return v, mcp.Unmarshal(d, v) },
				validate: func(v any) error { return v.(*mcp.CallToolRequest).Validate() },
				encode:   func(v any) ([]byte, error) { return mcp.Marshal(v.(*mcp.CallToolRequest)) },
				summarize: func(v any) summary {
					r := v.(*mcp.CallToolRequest)
					m := r.Params.Meta
					s := summary{"method": "tools/call", "name": r.Params.Name,
						"arguments": canonical([]byte(r.Params.Arguments)), "protocolVersion": m.ProtocolVersion,
						"progressToken": token(m.ProgressToken.String.Get()),
						"clientInfo":    m.ClientInfo.Name + "/" + m.ClientInfo.Version}
					if r.ID.IsInt() {
						s["id"] = strconv.FormatInt(r.ID.Int(), 10)
					}
					return s
				},
			},
			{
				name: "gosdk",
				// The go-sdk server: jsonrpc.DecodeMessage splits the envelope,
				// then the params are decoded into the method's params type,
				// *CallToolParamsRaw for tools/call, with its internal json
				// package (segmentio/encoding, case-sensitive, depth-checked).
				decode: func(d []byte) (any, error) {
					msg, err := jsonrpc.DecodeMessage(d)
					if err != nil {
						return nil, err
					}
					req, ok := msg.(*jsonrpc.Request)
					if !ok {
						return nil, errors.New("not a request")
					}
					v := &sdkCall{ID: req.ID, Method: req.Method}
					return v, sdkUnmarshal(req.Params, &v.Params)
				},
				// Its client: params to JSON (jsonrpc2.NewCall/marshalToRaw),
				// then the envelope (jsonrpc.EncodeMessage).
				encode: func(v any) ([]byte, error) {
					c := v.(*sdkCall)
					params, err := sdkMarshal(&c.Params)
					if err != nil {
						return nil, err
					}
					return jsonrpc.EncodeMessage(&jsonrpc.Request{ID: c.ID, Method: c.Method, Params: params})
				},
				summarize: func(v any) summary {
					c := v.(*sdkCall)
					meta := c.Params.Meta
					s := summary{"method": c.Method, "name": c.Params.Name, "arguments": canonical(c.Params.Arguments),
						"protocolVersion": fmt.Sprint(meta["io.modelcontextprotocol/protocolVersion"]),
						"progressToken":   fmt.Sprint(meta["progressToken"]),
						"clientInfo":      clientInfo(meta["io.modelcontextprotocol/clientInfo"])}
					if id, ok := c.ID.Raw().(int64); ok {
						s["id"] = strconv.FormatInt(id, 10)
					}
					return s
				},
			},
			{
				name: "mcpgo",
				// mcp-go's server: json.Unmarshal of the whole message into
				// mcp.CallToolRequest (its preceding decode of a base envelope
				// for id/method is not counted). The type has no id member.
				decode: func(d []byte) (any, error) { v := new(mcpgo.CallToolRequest); return v, stdjson.Unmarshal(d, v) },
				// Its client: json.Marshal of a JSON-RPC request carrying the
				// params.
				encode: func(v any) ([]byte, error) {
					r := v.(*mcpgo.CallToolRequest)
					return stdjson.Marshal(mcpgo.JSONRPCRequest{JSONRPC: mcpgo.JSONRPC_VERSION,
						ID: mcpgo.NewRequestId(int64(42)), Params: r.Params, Request: mcpgo.Request{Method: r.Method}})
				},
				summarize: func(v any) summary {
					r := v.(*mcpgo.CallToolRequest)
					s := summary{"method": r.Method, "name": r.Params.Name, "arguments": canonical(r.Params.RawArguments)}
					if m := r.Params.Meta; m != nil {
						s["progressToken"] = fmt.Sprint(m.ProgressToken)
						s["protocolVersion"] = fmt.Sprint(m.AdditionalFields["io.modelcontextprotocol/protocolVersion"])
						s["clientInfo"] = clientInfo(m.AdditionalFields["io.modelcontextprotocol/clientInfo"])
					}
					return s
				},
			},
		}

	case "callResult":
		return []impl{
			{
				name:     "mcpgen",
				decode:   func(d []byte) (any, error) { v := new(mcp.CallToolResult); return v, mcp.Unmarshal(d, v) },
				validate: func(v any) error { return v.(*mcp.CallToolResult).Validate() },
				encode:   func(v any) ([]byte, error) { return mcp.Marshal(v.(*mcp.CallToolResult)) },
				summarize: func(v any) summary {
					r := v.(*mcp.CallToolResult)
					s := summary{"contentCount": strconv.Itoa(len(r.Content)), "resultType": string(r.ResultType)}
					if b, ok := r.IsError.Get(); ok {
						s["isError"] = strconv.FormatBool(b)
					}
					if len(r.Content) > 0 && r.Content[0].TextContent != nil {
						s["text"] = r.Content[0].TextContent.Text
					}
					return s
				},
			},
			{
				name: "gosdk",
				// Client path as for toolsList: encoding/json, which calls
				// CallToolResult's own UnmarshalJSON (segmentio inside).
				decode: func(d []byte) (any, error) { v := new(gosdk.CallToolResult); return v, stdjson.Unmarshal(d, v) },
				encode: func(v any) ([]byte, error) { return sdkMarshal(v) },
				summarize: func(v any) summary {
					r := v.(*gosdk.CallToolResult)
					s := summary{"contentCount": strconv.Itoa(len(r.Content)), "isError": strconv.FormatBool(r.IsError)}
					if len(r.Content) > 0 {
						if t, ok := r.Content[0].(*gosdk.TextContent); ok {
							s["text"] = t.Text
						}
					}
					return s
				},
			},
			{
				name:   "mcpgo",
				decode: func(d []byte) (any, error) { v := new(mcpgo.CallToolResult); return v, stdjson.Unmarshal(d, v) },
				encode: func(v any) ([]byte, error) { return stdjson.Marshal(v) },
				summarize: func(v any) summary {
					r := v.(*mcpgo.CallToolResult)
					s := summary{"contentCount": strconv.Itoa(len(r.Content)), "isError": strconv.FormatBool(r.IsError),
						"resultType": string(r.ResultType)}
					if len(r.Content) > 0 {
						if t, ok := r.Content[0].(mcpgo.TextContent); ok {
							s["text"] = t.Text
						}
					}
					return s
				},
			},
		}
	}
	panic("unknown payload " + p)
}

// sdkCall is a decoded go-sdk tools/call request: the envelope's id and
// method and the params as the go-sdk server decodes them.
type sdkCall struct {
	ID     jsonrpc.ID
	Method string
	Params gosdk.CallToolParamsRaw
}

// sdkUnmarshal decodes the way go-sdk's internal json package does:
// a nesting-depth pre-scan (limit 1000), then segmentio/encoding's decoder
// with case-insensitive member matching turned off.
func sdkUnmarshal(data []byte, v any) error {
	if !depthWithin(data, 1000) {
		return errors.New("json: nesting too deep")
	}
	dec := segjson.NewDecoder(bytes.NewReader(data))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}

// depthWithin reports whether the objects and arrays in data nest at most
// limit deep, skipping string contents.
func depthWithin(data []byte, limit int) bool {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > limit {
				return false
			}
		case '}', ']':
			depth--
		}
	}
	return true
}

// sdkMarshal encodes the way go-sdk's jsonrpc2 package does: an
// encoding/json Encoder with HTML escaping off, trailing newline trimmed.
func sdkMarshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := stdjson.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// addTool records the facts of tool i that are compared for the first and
// last tool.
func addTool(s summary, i int, title, desc string, schema []byte) {
	if i != 0 && i != 99 {
		return
	}
	k := "[" + strconv.Itoa(i) + "]"
	s["title"+k] = title
	s["description"+k] = desc
	s["schema"+k] = canonical(schema)
}

// canonical re-encodes JSON with sorted keys, so that values that differ
// only in member order or spacing compare equal.
func canonical(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	var v any
	if err := stdjson.Unmarshal(data, &v); err != nil {
		return "invalid JSON: " + err.Error()
	}
	return string(mustMarshal(v))
}

func mustMarshal(v any) []byte {
	b, err := stdjson.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func token(s string, ok bool) string {
	if !ok {
		return ""
	}
	return s
}

func clientInfo(v any) string {
	m, _ := v.(map[string]any)
	return fmt.Sprint(m["name"]) + "/" + fmt.Sprint(m["version"])
}

func oracleToolsList(v map[string]any) summary {
	tools := v["tools"].([]any)
	s := summary{"count": strconv.Itoa(len(tools)), "ttlMs": fmt.Sprint(v["ttlMs"]),
		"cacheScope": v["cacheScope"].(string), "resultType": v["resultType"].(string)}
	names := make([]string, len(tools))
	for i, t := range tools {
		t := t.(map[string]any)
		names[i] = t["name"].(string)
		addTool(s, i, t["title"].(string), t["description"].(string), mustMarshal(t["inputSchema"]))
	}
	s["names"] = strings.Join(names, ",")
	return s
}

func oracleCallRequest(v map[string]any) summary {
	params := v["params"].(map[string]any)
	meta := params["_meta"].(map[string]any)
	return summary{"id": fmt.Sprint(v["id"]), "method": v["method"].(string), "name": params["name"].(string),
		"arguments":       string(mustMarshal(params["arguments"])),
		"protocolVersion": meta["io.modelcontextprotocol/protocolVersion"].(string),
		"progressToken":   fmt.Sprint(meta["progressToken"]),
		"clientInfo":      clientInfo(meta["io.modelcontextprotocol/clientInfo"])}
}

func oracleCallResult(v map[string]any) summary {
	content := v["content"].([]any)
	return summary{"contentCount": strconv.Itoa(len(content)), "isError": fmt.Sprint(v["isError"]),
		"resultType": v["resultType"].(string), "text": content[0].(map[string]any)["text"].(string)}
}
