package spectest

// The differential test (issue "Exact to the schema", item 5): for every
// $defs definition of the 2026-07-28 schema.json, the verdict of the
// generated package (mcp.NewDefinition, UnmarshalJSON, Validate) must be
// the verdict of santhosh-tekuri/jsonschema/v6 compiled from the same
// schema.json for #/$defs/<name> (draft 2020-12, format assertions on for
// "uri", "byte" and "uri-template", nothing loaded), on the spec examples,
// on valid instances generated from the schema and on mutations of both;
// and what the generated package accepts must re-encode (MarshalJSON) to
// the same JSON value, numbers compared as decimals and strings exactly.
// The only disagreements allowed are the deliberate deviations listed in
// `deviations` below. DIFFERENTIAL.md lists what the test found.
//
// It uses only the generated package's public API, encoding/json and the
// validator: the runtime's wire package is not used.
//
//	go test -run Differential ./cmd/mcpgen/internal/spectest/
//	go test -run '^$' -fuzz FuzzDifferential -fuzztime 2m ./cmd/mcpgen/internal/spectest/

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/gen/mcp"
)

type jsonNumber = json.Number

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedKeysBool(m map[string]bool) []string { return sortedKeys(m) }

// deviation is a deliberate difference between the generated package and
// schema.json. A disagreement is excused only when a deviation's matcher
// explains it, and the matchers are exact rather than broad:
//
//   - patch widens (or narrows) the schema the validator uses the way the
//     generator reads it; it explains a verdict when the patched schema
//     gives the generated package's verdict;
//   - rewrite respells the instance without changing its value; it
//     explains a verdict when the generated package, given the respelled
//     instance, agrees with the validator;
//   - reject marks instances outside what JSON Schema judges: the
//     generated package must reject them (accepting one is a finding).
//
// Patches and rewrites combine: the smallest set that explains a verdict
// is reported.
type deviation struct {
	name    string
	matcher string
	reason  string
	patch   func(defs map[string]any)
	rewrite func(n *jnode) (*jnode, bool)
	reject  func(info parseInfo) bool
}

var deviations = []deviation{
	{
		name:    "JSONValue",
		matcher: "schema patch: JSONValue's scalar branch also admits number and null (so JSONValue, JSONObject members and JSONArray elements are any JSON value)",
		reason: "README Decisions A5 and plan/quirks.go: schema.json's JSONValue lacks fractions and null; " +
			"schema.ts (normative) has them; the generator keeps JSONValue positions verbatim",
		patch: func(defs map[string]any) {
			v := defs["JSONValue"].(map[string]any)
			for _, b := range v["anyOf"].([]any) {
				if b := b.(map[string]any); b["type"] != nil {
					if _, list := b["type"].([]any); list {
						b["type"] = []any{"string", "number", "boolean", "null"}
					}
				}
			}
		},
	},
	{
		name:    "ElicitResult.content",
		matcher: `schema patch: ElicitResult.content values' "integer" becomes "number" (as plan/quirks.go applyQuirks does)`,
		reason:  "README Decisions A5 and plan/quirks.go: a form field of type number may return 22.5; schema.ts says number, schema.json narrows to integer",
		patch: func(defs map[string]any) {
			ap := defs["ElicitResult"].(map[string]any)["properties"].(map[string]any)["content"].(map[string]any)["additionalProperties"].(map[string]any)
			for _, b := range ap["anyOf"].([]any) {
				if ts, ok := b.(map[string]any)["type"].([]any); ok {
					for i, t := range ts {
						if t == "integer" {
							ts[i] = "number"
						}
					}
				}
			}
		},
	},
	{
		name: "result-type rule",
		matcher: `schema patch: in every anyOf of results that holds InputRequiredResult and whose members all declare resultType ` +
			`(ServerResult and the result of CallToolResultResponse, GetPromptResultResponse, ReadResourceResultResponse), ` +
			`InputRequiredResult's resultType must be "input_required" and the other members' "complete"`,
		reason: "README (the two documented corrections of schema.json artefacts) and plan/union.go rule 3, digest section 1.8 item 3: " +
			"schema.ts narrows resultType, schema.json does not, so there InputRequiredResult (only resultType required) matches every result",
		patch: patchResultType,
	},
	{
		name:    "non-empty resultType",
		matcher: `schema patch: ResultType and every resultType member (a plain string schema) get "minLength": 1`,
		reason: "facts resultType.type, docs/deviations.md: a result type is a name (RT-2) and a client treats one it does not know as " +
			"invalid (RT-3), so \"\" never stands for a result; the generated ResultType rejects it, which also makes a result built " +
			"in Go without its resultType fail Validate instead of being sent",
		patch: patchResultTypeNonEmpty,
	},
	{
		name:    "integer spelling",
		matcher: "rewrite: every number whose value is an integer but is spelled with a fraction or an exponent (1.0, 1e2, -0.0) is spelled as a plain integer",
		reason:  "integer members are decoded as int64 from plain integer tokens only; 1.0 and 1e2 are refused although JSON Schema 2020-12 counts them as integers (stricter than the schema, deliberate)",
		rewrite: respellIntegers,
	},
	{
		name: "Go number limits",
		matcher: "schema patch: every integer the generator holds in an int64 must lie in its range, every number it holds in a float64 " +
			"(ElicitResult.content's included) must be exactly the shortest decimal of a float64 (format mcpgen-int64, mcpgen-float64); " +
			"JSONValue's numbers, kept verbatim, are left alone",
		reason: "integer members are Go int64s and number members float64s: a value they cannot hold (9223372036854775808, " +
			"9007199254740993, 1E400, 1e-400, 1.00000000000000000001) is a decode error naming the limit, never rounded",
		patch: patchNumberLimits,
	},
	{
		name:    "JSON-RPC notification has no id",
		matcher: `schema patch: JSONRPCMessage's JSONRPCNotification branch gets "not": {"required": ["id"]}`,
		reason: "JSON-RPC 2.0 section 4.1 and MSG-5: a notification is a request object without an id; schema.json's " +
			"JSONRPCNotification admits any member, so a request with an invalid id would pass as a notification (plan/union.go forbidNotificationID)",
		patch: patchNotificationID,
	},
	{
		name:    "duplicate names",
		matcher: `instances in which an object repeats a member name (after unescaping: "name" and "na\u006de" are the same name)`,
		reason: "README: decoding rejects duplicate members. JSON Schema 2020-12 section 4.2.3 leaves such documents undefined and " +
			"encoding/json (which the validator would be given) keeps the last; the generated package must reject them",
		reject: func(info parseInfo) bool { return info.dup },
	},
	{
		name:    "nesting limit",
		matcher: "instances nesting objects and arrays deeper than 128 levels (the outermost value is level 1)",
		reason:  "README: decoding rejects nesting deeper than wireimpl.MaxDepth (128), also inside verbatim values; RFC 8259 section 9 allows the limit, JSON Schema has none",
		reject:  func(info parseInfo) bool { return info.tooDeep },
	},
	{
		name:    "lone surrogates",
		matcher: `instances with a string or member name escaping a lone surrogate ("\ud800", "\udc00x")`,
		reason: "a Go string cannot hold a lone surrogate and replacing it (U+FFFD) would change the value; such strings are rejected " +
			"everywhere, verbatim values included, as I-JSON (RFC 7493 section 2.1) requires",
		reject: func(info parseInfo) bool { return info.lone },
	},
}

// patchNumberLimits marks the numbers the generator holds in Go int64 and
// float64 values (see the deviation "Go number limits").
func patchNumberLimits(defs map[string]any) {
	// walk visits schema v at ptr; float: integers are float64s here.
	var walk func(v any, ptr string, float bool)
	walk = func(v any, ptr string, float bool) {
		// ElicitResult.content: integers are float64s there (plan/quirks.go).
		float = float || ptr == "/ElicitResult/properties/content"
		switch v := v.(type) {
		case []any:
			for i, x := range v {
				walk(x, ptr+"/"+strconv.Itoa(i), float)
			}
		case map[string]any:
			ts := types(v)
			switch {
			case slices.Contains(ts, "number") || float && slices.Contains(ts, "integer"):
				v["format"] = "mcpgen-float64"
			case slices.Contains(ts, "integer"):
				v["format"] = "mcpgen-int64"
			}
			for _, k := range sortedKeys(v) {
				switch k {
				case "const", "enum", "default", "examples": // values, not schemas
				case "properties": // member names, then schemas
					for _, name := range sortedKeys(v[k].(map[string]any)) {
						walk(v[k].(map[string]any)[name], ptr+"/properties/"+name, float)
					}
				default:
					walk(v[k], ptr+"/"+k, float)
				}
			}
		}
	}
	for _, name := range sortedKeys(defs) {
		if name != "JSONValue" {
			walk(defs[name], "/"+name, false)
		}
	}
}

// int64Limit and float64Limit check the formats of patchNumberLimits on
// numbers (the integers beyond int64, the numbers that are not exactly a
// float64's shortest decimal); other values pass.
func int64Limit(v any) error {
	n, ok := v.(jsonNumber)
	if !ok {
		return nil
	}
	if r := rat(string(n)); r.IsInt() && !r.Num().IsInt64() {
		return errors.New("outside the int64 range")
	}
	return nil
}

func float64Limit(v any) error {
	n, ok := v.(jsonNumber)
	if !ok {
		return nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return errors.New("outside the float64 range")
	}
	if rat(strconv.FormatFloat(f, 'g', -1, 64)).Cmp(rat(string(n))) != 0 {
		return errors.New("not exactly a float64")
	}
	return nil
}

// patchNotificationID: see the deviation "JSON-RPC notification has no id".
func patchNotificationID(defs map[string]any) {
	for _, b := range defs["JSONRPCMessage"].(map[string]any)["anyOf"].([]any) {
		if b := b.(map[string]any); b["$ref"] == "#/$defs/JSONRPCNotification" {
			b["not"] = map[string]any{"required": []any{"id"}}
			return
		}
	}
	panic("JSONRPCMessage has no JSONRPCNotification branch")
}

// patchResultTypeNonEmpty gives ResultType and every plain string
// resultType member minLength 1 (see the deviation "non-empty resultType").
func patchResultTypeNonEmpty(defs map[string]any) {
	defs["ResultType"].(map[string]any)["minLength"] = json.Number("1")
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok {
				if rt, ok := props["resultType"].(map[string]any); ok && rt["type"] == "string" && rt["const"] == nil && rt["enum"] == nil {
					rt["minLength"] = json.Number("1")
				}
			}
			for _, k := range sortedKeys(v) {
				walk(v[k])
			}
		}
	}
	walk(defs)
}

// patchResultType narrows resultType in unions of results (see the
// deviation "result-type rule").
func patchResultType(defs map[string]any) {
	resolve := func(m map[string]any) map[string]any {
		for {
			ref, ok := m["$ref"].(string)
			if !ok {
				return m
			}
			m = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
	}
	declares := func(m map[string]any) bool {
		props, _ := resolve(m)["properties"].(map[string]any)
		_, ok := props["resultType"]
		return ok
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			if list, ok := v["anyOf"].([]any); ok {
				irr, all := false, true
				for _, b := range list {
					b := b.(map[string]any)
					irr = irr || b["$ref"] == "#/$defs/InputRequiredResult"
					all = all && declares(b)
				}
				if irr && all {
					for _, b := range list {
						b := b.(map[string]any)
						narrow := map[string]any{"enum": []any{"complete"}}
						if b["$ref"] == "#/$defs/InputRequiredResult" {
							narrow = map[string]any{"const": "input_required"}
						}
						b["properties"] = map[string]any{"resultType": narrow}
					}
				}
			}
			for _, k := range sortedKeys(v) {
				walk(v[k])
			}
		}
	}
	walk(defs)
}

// respellIntegers spells integral numbers written with a fraction or an
// exponent as plain integers; changed is false when there are none.
func respellIntegers(n *jnode) (*jnode, bool) {
	switch n.kind {
	case jNumber:
		if isPlainInteger(n.num) {
			return n, false
		}
		if p, ok := plainInteger(n.num); ok {
			return jnum(p), true
		}
	case jArray:
		var out *jnode
		for i, e := range n.elems {
			if r, ok := respellIntegers(e); ok {
				if out == nil {
					c := *n
					c.elems = append([]*jnode(nil), n.elems...)
					out = &c
				}
				out.elems[i] = r
			}
		}
		if out != nil {
			return out, true
		}
	case jObject:
		var out *jnode
		for i, m := range n.mem {
			if r, ok := respellIntegers(m.val); ok {
				if out == nil {
					c := *n
					c.mem = append([]jmember(nil), n.mem...)
					out = &c
				}
				out.mem[i].val = r
			}
		}
		if out != nil {
			return out, true
		}
	}
	return n, false
}

// minimalInstances are the smallest instances of each class of finding in
// DIFFERENTIAL.md (numbered as there), and of each deviation; they are
// checked like every other instance, so each class is exercised whatever
// the sampling picks.
var minimalInstances = []struct{ def, json, note string }{
	{"Icon", `{"src":"http://x/%zz"}`, "F1 uri"},
	{"Icon", `{"src":"http://x/<y>"}`, "F1 uri"},
	{"Icon", `{"src":"http://[::1/"}`, "F1 uri"},
	{"Icon", `{"src":"http://x/#a#b"}`, "F1 uri"},
	{"ResourceTemplate", `{"name":"x","uriTemplate":"{}"}`, "F2 uri-template"},
	{"ResourceTemplateReference", `{"type":"ref/resource","uri":"file:///{a"}`, "F2 uri-template"},
	{"Annotations", `{"priority":1.00000000000000000001}`, "F3 bound after rounding"},
	{"Annotations", `{"priority":0.99999999999999999999}`, "F4 number precision"},
	{"Annotations", `{"priority":1e-400}`, "F4 number precision"},
	{"ProgressNotificationParams", `{"progressToken":1,"progress":9007199254740993}`, "F4 number precision"},
	{"ProgressNotificationParams", `{"progressToken":1,"progress":1E400}`, "F5 number range"},
	{"Error", `{"code":9223372036854775808,"message":""}`, "F6 integer range"},
	{"RequestId", `-9223372036854775809`, "F6 integer range"},
	{"Cursor", `"\ud800"`, "F7 lone surrogate"},
	{"TextContent", `{"type":"text","text":"","\udc00":1}`, "F7 lone surrogate"},
	{"JSONObject", `[]`, "F8 top-level alias kind"},
	{"MetaObject", `"x"`, "F8 top-level alias kind"},
	{"JSONArray", `{}`, "F8 top-level alias kind"},
	{"JSONObject", `{"a":1,"\u0061":2}`, "F9 top-level alias checks"},
	{"JSONValue", strings.Repeat("[", 129) + strings.Repeat("]", 129), "F9 top-level alias checks"},
	{"JSONValue", "\"\xff\"", "F9 top-level alias checks"},
	{"PrimitiveSchemaDefinition", `{"type":"string","oneOf":0}`, "F10 union commits to one member"},
	{"PrimitiveSchemaDefinition", `{"type":"string","oneOf":[{"const":"a"}]}`, "F10 union commits to one member"},
	{"EnumSchema", `{"type":"string","enum":["a"],"enumNames":[null]}`, "F10 union commits to one member"},
	{"JSONRPCMessage", `{"jsonrpc":"2.0","method":"x","id":null}`, "F11 notification with id"},
	{"JSONValue", `[1.5,null]`, "deviation JSONValue"},
	{"ElicitResult", `{"action":"accept","content":{"a":1.5}}`, "deviation ElicitResult.content"},
	{"ReadResourceResultResponse", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","contents":[]}}`, "deviation result-type rule"},
	{"Error", `{"code":1.0,"message":""}`, "deviation integer spelling"},
	{"RequestId", `1e2`, "deviation integer spelling"},
	{"TextContent", `{"type":"text","text":"","te\u0078t":""}`, "deviation duplicate names"},
	{"TextContent", `{"type":"text","text":"","_meta":{"x":` + strings.Repeat("[", 127) + strings.Repeat("]", 127) + `}}`, "deviation nesting limit"},
	{"TextContent", `{"type":"text","text":"","_meta":{"x":` + strings.Repeat("[", 126) + strings.Repeat("]", 126) + `}}`, "nesting at the limit"},
	{"JSONRPCNotification", `{"jsonrpc":"2.0","method":"x","id":1}`, "a notification with an id, alone: schema.json admits it"},
	{"ProgressNotificationParams", `{"progressToken":9223372036854775807,"progress":1.7976931348623157e308}`, "Go number limits: the largest values held"},
	{"ProgressNotificationParams", `{"progressToken":-9223372036854775808,"progress":5e-324}`, "Go number limits: the smallest values held"},
	// Free-form values keep their bytes (diffverbatim_test.go).
	{"CallToolRequestParams", `{"name":"t","arguments":{ "a" : 1.0E+2 , "b" : "\u00e9\/" , "c":[ -0 ,{ }]}}`, "verbatim arguments"},
	{"TextContent", `{"type":"text","text":"\u0041","_meta":{"x":1.0,"y":"\u0041","z":{ }}}`, "verbatim _meta values"},
	{"Tool", `{"name":"t","inputSchema":{"type":"object","properties":{ "a" : {"type":"number","minimum":1.50}}}}`, "verbatim schema documents"},
	{"CallToolResult", `{"content":[],"structuredContent":{ "n" : 1e2 , "s":"\ud83d\ude00"}}`, "verbatim structuredContent"},
}

// harness holds the schema and the validators.
type harness struct {
	doc      *schemaDoc
	schema   []byte
	mu       sync.Mutex
	variants map[int]map[string]*jsonschema.Schema // by mask of patching deviations
	patches  []int                                 // indices of deviations with a patch
	rewrites []int                                 // indices of deviations with a rewrite
	examples map[string][][]byte                   // spec examples by definition
	exNames  map[string][]string
}

var (
	harnessOnce sync.Once
	theHarness  *harness
	harnessErr  error
)

func loadHarness(t testing.TB) *harness {
	t.Helper()
	dir := schemaDir(t)
	harnessOnce.Do(func() { theHarness, harnessErr = newHarness(filepath.Join(dir, "2026-07-28")) })
	if harnessErr != nil {
		t.Fatal(harnessErr)
	}
	return theHarness
}

func newHarness(dir string) (*harness, error) {
	data, err := os.ReadFile(filepath.Join(dir, "schema.json"))
	if err != nil {
		return nil, err
	}
	doc, err := decodeSchema(data)
	if err != nil {
		return nil, err
	}
	h := &harness{doc: newSchemaDoc(doc), schema: data, variants: map[int]map[string]*jsonschema.Schema{},
		examples: map[string][][]byte{}, exNames: map[string][]string{}}
	for i, d := range deviations {
		if d.patch != nil {
			h.patches = append(h.patches, i)
		}
		if d.rewrite != nil {
			h.rewrites = append(h.rewrites, i)
		}
	}
	if _, err := h.variant(0); err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "examples", "*", "*.json"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(filepath.Dir(f))
		h.examples[name] = append(h.examples[name], b)
		h.exNames[name] = append(h.exNames[name], name+"/"+filepath.Base(f))
	}
	return h, nil
}

func decodeSchema(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// noLoader refuses every URL: the schema is given as a resource and
// nothing is loaded (the 2020-12 metaschema is built into the validator).
type noLoader struct{}

func (noLoader) Load(url string) (any, error) { return nil, errors.New("no loading: " + url) }

const schemaURL = "file:///mcpgen/2026-07-28/schema.json"

// variant returns the validators for every definition, compiled from
// schema.json with the patches of the deviations in mask applied.
func (h *harness) variant(mask int) (map[string]*jsonschema.Schema, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if v, ok := h.variants[mask]; ok {
		return v, nil
	}
	doc, err := decodeSchema(h.schema)
	if err != nil {
		return nil, err
	}
	for i, d := range deviations {
		if mask&(1<<i) != 0 {
			d.patch(doc["$defs"].(map[string]any))
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	c.AssertFormat()
	// The formats schema.json uses, checked to their RFCs (diffformat_test.go).
	for name, check := range map[string]func(string) bool{"uri": rfc3986URI, "byte": rfc4648Base64, "uri-template": rfc6570Template} {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(v any) error {
			if s, ok := v.(string); ok && !check(s) {
				return errors.New("invalid " + name)
			}
			return nil
		}})
	}
	// The Go number limits (patchNumberLimits).
	c.RegisterFormat(&jsonschema.Format{Name: "mcpgen-int64", Validate: int64Limit})
	c.RegisterFormat(&jsonschema.Format{Name: "mcpgen-float64", Validate: float64Limit})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	out := map[string]*jsonschema.Schema{}
	for _, name := range h.doc.names {
		s, err := c.Compile(schemaURL + "#/$defs/" + name)
		if err != nil {
			return nil, fmt.Errorf("compiling %s: %w", name, err)
		}
		out[name] = s
	}
	h.variants[mask] = out
	return out, nil
}

func (h *harness) validate(mask int, def string, inst any) error {
	v, err := h.variant(mask)
	if err != nil {
		panic(err)
	}
	return v[def].Validate(inst)
}

// genResult is what the generated package made of an instance.
type genResult struct {
	ok    bool
	stage string // "decode" or "validate" when !ok
	err   string
	out   []byte // MarshalJSON of the accepted value
}

func runGenerated(def string, data []byte) genResult {
	v, ok := mcp.NewDefinition(def)
	if !ok {
		return genResult{stage: "new", err: "NewDefinition(" + def + ") = false"}
	}
	if err := v.(json.Unmarshaler).UnmarshalJSON(data); err != nil {
		return genResult{stage: "decode", err: err.Error()}
	}
	if err := v.Validate(); err != nil {
		return genResult{stage: "validate", err: err.Error()}
	}
	out, err := v.(json.Marshaler).MarshalJSON()
	if err != nil {
		return genResult{ok: true, err: "MarshalJSON: " + err.Error()}
	}
	return genResult{ok: true, out: out}
}

// Kinds of findings.
const (
	findAcceptsInvalid = "generated accepts, schema rejects"
	findRejectsValid   = "generated rejects, schema accepts"
	findNotJSON        = "generated accepts an instance that is not JSON"
	findOutsideModel   = "generated accepts an instance it must reject (deviation rule)"
	findRoundTrip      = "re-encoding changes the value"
	findEncoding       = "re-encoding is not one JSON value"
	findVerbatim       = "re-encoding changes the bytes of a free-form value"
)

// checkResult is the verdict on one instance.
type checkResult struct {
	gen       genResult
	want      bool   // what the schema (or a rule) says
	why       string // the validator's error, or the rule
	deviation string // the deviations that explain a disagreement
	finding   string // "" when nothing is wrong
	detail    string
}

func (h *harness) check(def string, data []byte) checkResult {
	r := checkResult{gen: runGenerated(def, data)}
	tree, info, perr := parseExact(data)
	for _, d := range deviations {
		if d.reject != nil && d.reject(info) {
			r.why = "rule: " + d.name
			if r.gen.ok {
				r.finding = findOutsideModel
				r.detail = d.name
			} else {
				r.deviation = d.name
			}
			return r
		}
	}
	switch {
	case perr != nil:
		r.why = "not JSON: " + perr.Error()
		if r.gen.ok {
			r.finding = findNotJSON
		}
		return r
	}
	if info.hugeExp {
		return r // exponents the validator cannot evaluate cheaply (fuzz input only)
	}
	verr := h.validate(0, def, toAny(tree))
	r.want = verr == nil
	if verr != nil {
		r.why = validatorSummary(verr)
	}
	if r.gen.ok != r.want {
		if names := h.explain(def, tree, r.gen.ok); names != "" {
			r.deviation = names
		} else if r.gen.ok {
			r.finding = findAcceptsInvalid
		} else {
			r.finding = findRejectsValid
		}
	}
	if r.gen.ok && r.finding == "" {
		if r.gen.out == nil {
			r.finding, r.detail = findEncoding, r.gen.err
			return r
		}
		out, oinfo, err := parseExact(r.gen.out)
		if err != nil || oinfo.dup {
			r.finding, r.detail = findEncoding, fmt.Sprintf("%v (dup=%v): %s", err, oinfo.dup, r.gen.out)
			return r
		}
		if p, same := sameValue(tree, out, ""); !same {
			r.finding, r.detail = findRoundTrip, p
		} else if p, differ := h.doc.verbatimDiff(schemaNode{"$ref": "#/$defs/" + def}, tree, out, data, r.gen.out, ""); differ {
			r.finding, r.detail = findVerbatim, fmt.Sprintf("%s: free-form value re-encoded (got %s)", p, r.gen.out)
		}
	}
	return r
}

// explain returns the names of the smallest set of deviations (patches and
// rewrites) that accounts for the generated package's verdict, or "".
func (h *harness) explain(def string, tree *jnode, genOK bool) string {
	usable := append(append([]int(nil), h.patches...), h.rewrites...)
	var masks []int
	for m := 1; m < 1<<len(usable); m++ {
		masks = append(masks, m)
	}
	sort.SliceStable(masks, func(i, j int) bool { return bits.OnesCount(uint(masks[i])) < bits.OnesCount(uint(masks[j])) })
	for _, m := range masks {
		patchMask, inst, gen, names, useless := 0, tree, genOK, []string{}, false
		for b, di := range usable {
			if m&(1<<b) == 0 {
				continue
			}
			names = append(names, deviations[di].name)
			if deviations[di].patch != nil {
				patchMask |= 1 << di
				continue
			}
			var changed bool
			if inst, changed = deviations[di].rewrite(inst); !changed {
				useless = true
			}
		}
		if useless {
			continue
		}
		if inst != tree {
			gen = runGenerated(def, inst.bytes()).ok
		}
		want := h.validate(patchMask, def, toAny(inst)) == nil
		if gen == want {
			return strings.Join(names, "+")
		}
	}
	return ""
}

// validatorSummary is the validator's error in one line: the innermost
// errors with their instance locations.
func validatorSummary(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			msg := e.Error()
			if i := strings.LastIndex(msg, "': "); i >= 0 {
				msg = msg[i+3:]
			}
			leaves = append(leaves, "/"+strings.Join(e.InstanceLocation, "/")+": "+msg)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(leaves, "; ")
}

// shorter orders examples: shorter first, then bytewise (the workers
// finish in any order).
func shorter(a, b []byte) bool {
	return len(a) < len(b) || len(a) == len(b) && bytes.Compare(a, b) < 0
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
}

// instance is one input of the test.
type instance struct {
	def, origin, kind, path, ptr string
	data                         []byte
}

// Sizes of the deterministic corpus.
const (
	seedsPerDef   = 24   // generated valid instances per definition (before deduplication)
	mutantsPerDef = 2400 // mutants checked per definition (sampled with a fixed seed)
)

// corpus builds the instances of a definition: the spec examples, the
// minimal instances, the generated seeds, the syntax mutants of the first
// seed and a fixed-seed sample of the mutants of every seed (each mutation
// kind keeping a fair share). generated is how many mutants were sampled
// from.
func (h *harness) corpus(t testing.TB, def string) (seeds, all []instance, generated int) {
	for i, ex := range h.examples[def] {
		seeds = append(seeds, instance{def: def, origin: h.exNames[def][i], kind: "example", data: ex})
	}
	for _, m := range minimalInstances {
		if m.def == def {
			seeds = append(seeds, instance{def: def, origin: m.note, kind: "minimal", data: []byte(m.json)})
		}
	}
	for i, s := range h.doc.seeds(def, seedsPerDef) {
		seeds = append(seeds, instance{def: def, origin: fmt.Sprintf("generated #%d", i), kind: "generated", data: s.bytes()})
	}
	seen := map[string]bool{}
	add := func(in instance) {
		if !seen[string(in.data)] {
			seen[string(in.data)] = true
			all = append(all, in)
		}
	}
	for _, s := range seeds {
		add(s)
	}
	var muts []instance
	first := true
	for _, s := range seeds {
		if s.kind == "minimal" {
			continue // checked as they are, not mutated
		}
		tree, _, err := parseExact(s.data)
		if err != nil {
			t.Fatalf("%s %s: seed is not JSON: %v", def, s.origin, err)
		}
		if first {
			first = false
			for _, m := range syntaxMutants(s.data) {
				add(instance{def: def, origin: s.origin, kind: m.kind, data: m.data})
			}
		}
		for _, m := range h.doc.mutate(tree) {
			muts = append(muts, instance{def: def, origin: s.origin, kind: m.kind, path: m.path, ptr: m.ptr, data: m.data})
		}
	}
	generated = len(muts)
	rnd := rand.New(rand.NewPCG(uint64(pathHash(def)), 2026))
	rnd.Shuffle(len(muts), func(i, j int) { muts[i], muts[j] = muts[j], muts[i] })
	byKind := map[string][]instance{}
	var kinds []string
	for _, m := range muts {
		if byKind[m.kind] == nil {
			kinds = append(kinds, m.kind)
		}
		byKind[m.kind] = append(byKind[m.kind], m)
	}
	sort.Strings(kinds)
	for budget := mutantsPerDef; budget > 0; {
		progress := false
		for _, k := range kinds {
			for len(byKind[k]) > 0 && budget > 0 {
				m := byKind[k][0]
				byKind[k] = byKind[k][1:]
				if !seen[string(m.data)] {
					add(m)
					budget--
					progress = true
					break
				}
			}
		}
		if !progress {
			break
		}
	}
	return seeds, all, generated
}

// findingGroup collects the instances of one class of finding.
type findingGroup struct {
	key      string
	count    int
	defs     map[string]bool
	variants map[string]int
	shortest *instance
	result   checkResult
}

var (
	numRE     = regexp.MustCompile(`[0-9]+`)
	quoteRE   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	indexRE   = regexp.MustCompile(`\[[0-9]+\]`)
	jsonKinds = regexp.MustCompile(`\b(object|array|string|number|boolean|null|integer)\b`)
)

func blank(msg string) string {
	msg = indexRE.ReplaceAllString(quoteRE.ReplaceAllString(msg, `"…"`), "[]")
	return jsonKinds.ReplaceAllString(numRE.ReplaceAllString(msg, "N"), "K")
}

// classKey sorts a finding into a class, and a variant within it. The
// class is the kind of finding and, with paths, numbers, quoted text and
// JSON kind names blanked: for a refused valid instance the generated
// package's first error; for an accepted invalid one the validator's
// errors at the mutated member; for a changed value the change. The
// variant is the member concerned (and, for a changed value, the
// mutation).
func classKey(in instance, r checkResult) (class, variant string) {
	switch r.finding {
	case findRejectsValid:
		msg := strings.TrimPrefix(r.gen.err, "invalid value: ")
		if i := strings.Index(msg, "; "); i >= 0 {
			msg = msg[:i]
		}
		path, rest, ok := strings.Cut(msg, ": ")
		if !ok || strings.ContainsAny(path, " ") {
			path, rest = "", msg
		}
		return r.finding + " | " + blank(rest), lastName(path)
	case findAcceptsInvalid:
		return r.finding + " | " + blank(leafAt(r.why, in.ptr)), lastName(in.path)
	case findRoundTrip:
		path, rest, _ := strings.Cut(r.detail, ": ")
		kind := "value changed"
		switch {
		case strings.HasPrefix(rest, "number"):
			kind = "number changed"
		case strings.HasPrefix(rest, "lone surrogate"):
			kind = "string with a lone surrogate changed"
		case strings.HasPrefix(rest, "string"):
			kind = "string changed"
		}
		return r.finding + " | " + kind, lastName(path) + " (" + in.kind + ")"
	case findOutsideModel:
		return r.finding + " | " + r.detail, in.kind
	case findNotJSON:
		return r.finding + " | " + blank(r.why), in.kind
	}
	return r.finding + " | " + blank(r.detail), in.kind + " " + lastName(in.path)
}

// lastName is the last member name of a path ("" for the root).
func lastName(path string) string {
	path = indexRE.ReplaceAllString(path, "")
	if strings.HasSuffix(path, `"]`) {
		if i := strings.LastIndex(path, `["`); i >= 0 {
			return path[i+2 : len(path)-2]
		}
	}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// leafAt picks from a validatorSummary the errors at or below the mutated
// location ptr (the first error when none is), without their locations.
func leafAt(summary, ptr string) string {
	var picked []string
	for _, leaf := range strings.Split(summary, "; ") {
		loc, msg, _ := strings.Cut(leaf, ": ")
		if (loc == ptr || strings.HasPrefix(loc, strings.TrimSuffix(ptr, "/")+"/")) && !contains(picked, msg) {
			picked = append(picked, msg)
		}
	}
	if len(picked) == 0 {
		_, msg, _ := strings.Cut(strings.Split(summary, "; ")[0], ": ")
		return msg
	}
	sort.Strings(picked)
	return strings.Join(picked, "; ")
}

func TestDifferential(t *testing.T) {
	h := loadHarness(t)
	if len(h.doc.names) != 155 {
		t.Fatalf("schema has %d definitions, want 155", len(h.doc.names))
	}
	start := time.Now()
	var (
		mu          sync.Mutex
		checked     int
		agreeing    int
		perDev      = map[string]int{}
		devExample  = map[string]instance{}
		groups      = map[string]*findingGroup{}
		badSeeds    []string
		perDef      = map[string]int{}
		exCount     int
		seedCount   int
		mutantsMade int
	)
	record := func(in instance, r checkResult) {
		mu.Lock()
		defer mu.Unlock()
		checked++
		perDef[in.def]++
		switch {
		case r.finding != "":
			k, variant := classKey(in, r)
			g := groups[k]
			if g == nil {
				g = &findingGroup{key: k, defs: map[string]bool{}, variants: map[string]int{}}
				groups[k] = g
			}
			g.count++
			g.variants[variant]++
			g.defs[in.def] = true
			if g.shortest == nil || shorter(in.data, g.shortest.data) {
				c := in
				g.shortest, g.result = &c, r
			}
		case r.deviation != "":
			perDev[r.deviation]++
			if ex, ok := devExample[r.deviation]; !ok || shorter(in.data, ex.data) {
				devExample[r.deviation] = in
			}
		default:
			agreeing++
		}
	}
	// Two workers: the machine is shared.
	work := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for def := range work {
				seeds, all, generated := h.corpus(t, def)
				for _, s := range seeds {
					if s.kind != "generated" {
						continue
					}
					// The generator builds valid instances only.
					tree, _, _ := parseExact(s.data)
					if err := h.validate(0, def, toAny(tree)); err != nil {
						mu.Lock()
						badSeeds = append(badSeeds, fmt.Sprintf("%s %s: %s: %s", def, s.origin, s.data, validatorSummary(err)))
						mu.Unlock()
					}
				}
				mu.Lock()
				exCount += len(h.examples[def])
				for _, s := range seeds {
					if s.kind == "generated" {
						seedCount++
					}
				}
				mutantsMade += generated
				mu.Unlock()
				for _, in := range all {
					record(in, h.check(def, in.data))
				}
			}
		}()
	}
	for _, def := range h.doc.names {
		work <- def
	}
	close(work)
	wg.Wait()

	for _, s := range badSeeds {
		t.Errorf("harness: generated seed is invalid: %s", s)
	}
	for _, def := range h.doc.names {
		if perDef[def] < 20 {
			t.Errorf("harness: only %d instances of %s", perDef[def], def)
		}
	}
	if exCount != 129 {
		t.Errorf("harness: %d spec examples, want 129", exCount)
	}
	findings := 0
	for _, k := range sortedKeys(groups) {
		g := groups[k]
		findings += g.count
		defs := sortedKeysBool(g.defs)
		if len(defs) > 6 {
			defs = append(defs[:6], fmt.Sprintf("… %d definitions", len(g.defs)))
		}
		var vs []string
		for _, v := range sortedKeys(g.variants) {
			vs = append(vs, fmt.Sprintf("%s %d", v, g.variants[v]))
		}
		in, r := g.shortest, g.result
		gen := "accepts"
		if !r.gen.ok {
			gen = "rejects at " + r.gen.stage + ": " + r.gen.err
		} else if r.gen.out != nil {
			gen = "accepts, re-encodes as " + shorten(string(r.gen.out), 600)
		}
		val := "accepts"
		if !r.want {
			val = "rejects: " + shorten(r.why, 300)
		}
		t.Errorf("%s\n\t%d instances, in %s\n\tmembers: %s\n\tshortest: %s %s (from %s, mutation %q at %q)\n\tgenerated: %s\n\tvalidator: %s\n\tdetail: %s",
			k, g.count, strings.Join(defs, ", "), shorten(strings.Join(vs, ", "), 400), in.def, shorten(string(in.data), 600), in.origin, in.kind, in.path, gen, val, r.detail)
	}
	var devs []string
	for _, k := range sortedKeys(perDev) {
		devs = append(devs, fmt.Sprintf("%s %d", k, perDev[k]))
		ex := devExample[k]
		t.Logf("deviation %s: %d instances, e.g. %s %s (mutation %q at %q)", k, perDev[k], ex.def, shorten(string(ex.data), 300), ex.kind, ex.path)
	}
	t.Logf("%d instances of %d definitions (%d spec examples, %d generated seeds, the rest minimal instances and mutants sampled from %d) in %v: %d agree, %d explained by deviations (%s), %d findings in %d classes; %d free-form values compared byte for byte",
		checked, len(perDef), exCount, seedCount, mutantsMade, time.Since(start).Round(time.Millisecond), agreeing, checked-agreeing-findings, strings.Join(devs, ", "), findings, len(groups), verbatimCompared.Load())
}

// TestDifferentialFormatOracle pins the validator's format checkers to
// their RFCs (and shows where jsonschema's own checkers, built on
// net/url, would have made the differential test report false findings).
func TestDifferentialFormatOracle(t *testing.T) {
	for _, tc := range []struct {
		format, s string
		ok        bool
	}{
		{"uri", "https://example.com/a?b=c#d", true},
		{"uri", "urn:isbn:0451450523", true},
		{"uri", "mailto:", true},
		{"uri", "http://[::1]:8080/", true},
		{"uri", "http://[v1.x]/", true},
		{"uri", "http://x/?a=1?b#c/d?", true},
		{"uri", "file:///C:/a", true},
		{"uri", "example.com", false},
		{"uri", "//host/path", false},
		{"uri", "http://x/a b", false}, // net/url accepts
		{"uri", "http://x/<y>", false}, // net/url accepts
		{"uri", "http://x/%zz", false},
		{"uri", "http://x/#a#b", false}, // net/url accepts
		{"uri", "http://[::1/", false},
		{"uri", "http://u@v@x/", false},
		{"uri", "http://x/\u00e9", false}, // an IRI, not a URI; net/url accepts
		{"uri", "http://[1.2.3.4]/", false},
		{"uri", "http://[fe80::1%25en0]/", false}, // RFC 6874 zones are not RFC 3986
		{"byte", "", true},
		{"byte", "aGVsbG8=", true},
		{"byte", "YR==", true}, // non-zero pad bits: RFC 4648 3.5 lets decoders accept
		{"byte", "aGVsbG8", false},
		{"byte", "aGVsbG8=\n", false}, // encoding/base64 skips newlines
		{"byte", "aGVs-G8=", false},
		{"uri-template", "{scheme}://{host}/x", true}, // net/url rejects
		{"uri-template", "https://example.com/{+rest}{?q,r}", true},
		{"uri-template", "db://{table}/{id:3}", true},
		{"uri-template", "file:///{a", false},
		{"uri-template", "file:///a}", false},
		{"uri-template", "http://x/{a b}", false},
		{"uri-template", "{}", false},
		{"uri-template", "http://x/{a:0}", false},
		{"uri-template", "http://x/a b", false},
		{"uri-template", "x/\U000E1000", true},
		{"uri-template", "x/\U000E0001", false}, // RFC 3987 ucschar skips E0000-E0FFF
	} {
		check := map[string]func(string) bool{"uri": rfc3986URI, "byte": rfc4648Base64, "uri-template": rfc6570Template}[tc.format]
		if got := check(tc.s); got != tc.ok {
			t.Errorf("%s %q: %v, want %v", tc.format, tc.s, got, tc.ok)
		}
	}
}

// FuzzDifferential checks the properties of TestDifferential on arbitrary
// bytes decoded as the definition numbered def (the definitions sorted by
// name): same verdict as the validator unless a deviation explains it, and
// what is accepted re-encodes to the same value. The seeds are the spec
// examples and three generated instances of every definition.
func FuzzDifferential(f *testing.F) {
	h := loadHarness(f)
	for i, def := range h.doc.names {
		for _, ex := range h.examples[def] {
			f.Add(uint16(i), ex)
		}
		for _, s := range h.doc.seeds(def, 3) {
			f.Add(uint16(i), s.bytes())
		}
	}
	f.Fuzz(func(t *testing.T, idx uint16, data []byte) {
		def := h.doc.names[int(idx)%len(h.doc.names)]
		r := h.check(def, data)
		if r.finding != "" {
			t.Fatalf("%s: %s\ninstance:  %q\ngenerated: ok=%v %s %s out=%s\nvalidator: want=%v %s\ndetail: %s",
				def, r.finding, data, r.gen.ok, r.gen.stage, r.gen.err, r.gen.out, r.want, r.why, r.detail)
		}
	})
}
