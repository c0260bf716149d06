package spectest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// invalidCase is one entry of testdata/invalid/cases.json: a message with
// exactly one defect, the generated type it is decoded into, and where it
// must be rejected.
type invalidCase struct {
	File string `json:"file"`
	Type string `json:"type"`
	// Stage is "decode" (wireimpl.Decode fails) or "validate" (it decodes and
	// Validate reports exactly one violation).
	Stage   string `json:"stage"`
	Path    string `json:"path"`    // JSON path of the failure ("" = the message)
	Message string `json:"message"` // substring of the failure's message
	Rule    string `json:"rule"`    // digest rule ID, when one applies
	Defect  string `json:"defect"`  // what is wrong, for readers
	// Repair undoes the defect: Old (or the bytes OldHex, for invalid
	// UTF-8) occurs exactly once in the file; replaced by New (NewHex), the
	// message decodes and validates. This proves there is exactly one
	// defect.
	Repair struct {
		Old    string `json:"old"`
		New    string `json:"new"`
		OldHex string `json:"oldHex"`
		NewHex string `json:"newHex"`
	} `json:"repair"`
}

func invalidDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "testdata", "invalid"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func loadInvalidCases(t testing.TB) []invalidCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(invalidDir(t), "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []invalidCase
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cases); err != nil {
		t.Fatalf("cases.json: %v", err)
	}
	return cases
}

// TestInvalidMessages decodes every message of the invalid corpus into its
// type with wireimpl.Decode, then validates it, and checks the failure's stage,
// JSON path and message; the repaired message must decode and validate.
func TestInvalidMessages(t *testing.T) {
	dir := invalidDir(t)
	cases := loadInvalidCases(t)
	if len(cases) < 60 {
		t.Fatalf("%d cases, want at least 60", len(cases))
	}
	// The manifest and the directory list the same files.
	onDisk, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, c := range cases {
		if slices.Contains(listed, c.File) {
			t.Errorf("%s is listed twice", c.File)
		}
		listed = append(listed, c.File)
	}
	for _, f := range onDisk {
		if name := filepath.Base(f); name != "cases.json" && !slices.Contains(listed, name) {
			t.Errorf("%s is not described in cases.json", name)
		}
	}
	types := map[string]bool{}
	for _, c := range cases {
		types[c.Type] = true
		name := c.File
		if c.Rule != "" {
			name = c.Rule + "/" + strings.TrimSuffix(c.File, ".json")
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			v, ok := mcp.NewDefinition(c.Type)
			if !ok {
				t.Fatalf("no generated type %s", c.Type)
			}
			err = wireimpl.Decode(data, v)
			switch c.Stage {
			case "decode":
				var de *wire.DecodeError
				if !errors.As(err, &de) {
					if err == nil {
						err = v.Validate()
					}
					t.Fatalf("decoded (%s); want a decode error %q at %q; then Validate() = %v", c.Defect, c.Message, c.Path, err)
				}
				if de.JSONPath() != c.Path || !strings.Contains(de.Msg, c.Message) {
					t.Errorf("decode error %q at %q; want %q at %q", de.Msg, de.JSONPath(), c.Message, c.Path)
				}
			case "validate":
				if err != nil {
					t.Fatalf("decode: %v; want it to decode and fail Validate with %q at %q", err, c.Message, c.Path)
				}
				err := v.Validate()
				var ve *wire.ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("Validate() = %v; want %q at %q (%s)", err, c.Message, c.Path, c.Defect)
				}
				if len(ve.Violations) != 1 {
					t.Fatalf("want exactly one violation, got %q", ve.Violations)
				}
				if got := ve.Violations[0]; got.Path != c.Path || !strings.Contains(got.Message, c.Message) {
					t.Errorf("violation %q at %q; want %q at %q", got.Message, got.Path, c.Message, c.Path)
				}
			default:
				t.Fatalf("unknown stage %q", c.Stage)
			}
			// One defect only: undoing it gives a valid message.
			old, repl := []byte(c.Repair.Old), []byte(c.Repair.New)
			if c.Repair.OldHex != "" {
				if old, err = hex.DecodeString(c.Repair.OldHex); err != nil {
					t.Fatal(err)
				}
				if repl, err = hex.DecodeString(c.Repair.NewHex); err != nil {
					t.Fatal(err)
				}
			}
			if len(old) == 0 || bytes.Count(data, old) != 1 {
				t.Fatalf("repair: %q occurs %d times, want once", old, bytes.Count(data, old))
			}
			fixed := bytes.Replace(data, old, repl, 1)
			w, _ := mcp.NewDefinition(c.Type)
			if err := wireimpl.Decode(fixed, w); err != nil {
				t.Fatalf("repaired message does not decode: %v\n%s", err, fixed)
			}
			if err := w.Validate(); err != nil {
				t.Fatalf("repaired message does not validate: %v\n%s", err, fixed)
			}
		})
	}
	// A mix of message types.
	for _, want := range []string{"CallToolRequest", "ListToolsResult", "CallToolResultResponse", "SubscriptionsListenRequest", "JSONRPCMessage", "ContentBlock", "ElicitResult", "ServerNotification", "ClientRequest", "ElicitRequestURLParams"} {
		if !types[want] {
			t.Errorf("no invalid %s in the corpus", want)
		}
	}
}
