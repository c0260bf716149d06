package facts

// This file is copied next to the package generated from schema.json by
// TestGoldenBuild (cmd/mcpgen); it is not built as part of mcpgen itself.

import (
	"context"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// The request id is wire.ID; a result union is told apart by the facts'
// result-type member; the descriptors carry the facts.
func TestFacts(t *testing.T) {
	var req GetItemRequest
	if err := req.UnmarshalJSON([]byte(`{"jsonrpc":"2.0","id":"a","method":"items/get","params":{"_meta":{"example.org/version":"1"},"key":"k"}}`)); err != nil {
		t.Fatal(err)
	}
	if req.ID != wire.StringID("a") || req.Params.RequestMeta().Version != "1" {
		t.Fatalf("decoded %+v", req)
	}
	var pending, done GetItemResultResponseResult
	if err := wireimpl.Decode([]byte(`{"kind":"pending","state":"s"}`), &pending); err != nil || pending.PendingResult == nil {
		t.Fatalf("pending: %v %+v", err, pending)
	}
	if err := wireimpl.Decode([]byte(`{"kind":"done","ttlMs":5,"value":"v"}`), &done); err != nil || done.GetItemResult == nil {
		t.Fatalf("done: %v %+v", err, done)
	}
	if LevelLow.Severity() >= LevelMid.Severity() || LevelMid.Severity() >= LevelHigh.Severity() || Level("x").Severity() != -1 {
		t.Fatal("severity order")
	}
	caps := &ServerCapabilities{Items: &ServerCapabilitiesItems{ListChanged: wire.Some(true)}}
	if !caps.Has("items.listChanged") || caps.Has("logs") {
		t.Fatal("Has")
	}
	d, ok := LookupMethod(MethodGetItem)
	if !ok || !d.InputRequired || !d.Paginated || !d.Cacheable || d.NameMember != "key" || d.MirroredName(&req.Params) != "k" || d.ServerCapability != "items.listChanged" {
		t.Fatalf("descriptor %+v", d)
	}
	if !Revision.Stateless || Revision.Lookup(MethodGetItem) == nil || CodeLegacy != -32002 || CodeMissingItem != -32050 {
		t.Fatal("revision table")
	}
	r, err := DispatchServer(context.Background(), handler{}, MethodGetItem, &req.Params)
	if err != nil || r.(*GetItemResultResponseResult).GetItemResult.Value != "k" {
		t.Fatalf("dispatch: %v %v", r, err)
	}
}

type handler struct{ UnimplementedServerHandler }

func (handler) GetItem(ctx context.Context, p *GetItemRequestParams) (*GetItemResultResponseResult, error) {
	return &GetItemResultResponseResult{GetItemResult: &GetItemResult{Kind: ResultTypeDone, Value: p.Key}}, nil
}
