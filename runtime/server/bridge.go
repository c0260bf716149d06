package server

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/runtime/wireimpl"
)

// A bridge carries one method between the two eras: its descriptor in
// each revision's table and the shapes of its params and result in each,
// for wireimpl.Reshape. Bridges are built from the generated tables alone:
// every request both revisions define, in the same direction.
type bridge struct {
	old, now *wireimpl.Method // the method in the legacy and the modern table

	oldParams, nowParams *wireimpl.Shape
	oldResult, nowResult *wireimpl.Shape
	result               string // the result definition both revisions define
}

// bridges are built once, on first use.
var bridges = sync.OnceValue(func() map[string]*bridge {
	out := map[string]*bridge{}
	for i := range legacy.rev.Methods {
		old := &legacy.rev.Methods[i]
		if old.Kind != wireimpl.Request {
			continue
		}
		now := modern.rev.Lookup(old.Name)
		if now == nil || now.Direction != old.Direction {
			continue
		}
		b := &bridge{old: old, now: now,
			oldParams: legacy.shapes[old.ParamsType], nowParams: modern.shapes[now.ParamsType]}
		for _, r := range old.ResultTypes {
			if slices.Contains(now.ResultTypes, r) {
				b.result = r
				break
			}
		}
		if b.result == "" {
			continue // no result both can express
		}
		b.oldResult, b.nowResult = legacy.shapes[b.result], modern.shapes[b.result]
		out[old.Name] = b
	}
	return out
})

// bridgeOf returns the bridge of method, or nil when the eras do not share
// it.
func bridgeOf(method string) *bridge { return bridges()[method] }

// upParams converts a legacy request's params into the modern params, with
// meta written into their _meta (what a legacy session fixed once and a
// modern request carries each time).
func (b *bridge) upParams(params wire.Raw, meta wire.Members) (wire.Raw, error) {
	if params == nil {
		params = wire.Raw("{}")
	}
	return wireimpl.Reshape(params, b.oldParams, b.nowParams, &wireimpl.ReshapeOptions{Meta: meta})
}

// downResult converts a modern result into the legacy result: the members
// only the modern revision declares are dropped (resultType, ttlMs,
// cacheScope, serverInfo), and what is left is decoded and validated as
// the legacy revision's type, so that nothing invalid reaches the client.
// Parts the legacy revision cannot express are dropped (degrade); dropped
// lists them.
func (b *bridge) downResult(v wireimpl.Codec) (out wireimpl.Codec, dropped []string, err error) {
	if u, ok := v.(interface{ Member() any }); ok {
		if m, ok := u.Member().(wireimpl.Codec); ok {
			v = m
		}
	}
	raw, err := reshape(v, b.nowResult, b.oldResult)
	if err != nil {
		return nil, nil, err
	}
	out = b.old.NewResult()
	if err = decodeOwned(raw, out); err == nil {
		return &checked{raw}, nil, nil // valid as it is: sent without encoding it again
	}
	out, dropped, err = degrade(raw, b.old.NewResult, err)
	if err != nil {
		return nil, dropped, fmt.Errorf("server: the %s result cannot be expressed in %s: %w", b.old.Name, legacy.rev.Version, err)
	}
	return out, dropped, nil
}

// checked is JSON a generated type decoded and validated, answered as it
// is.
type checked struct{ raw wire.Raw }

func (c *checked) DecodeJSON(d *wireimpl.Decoder) error {
	return errors.New("server: a checked answer is not decoded")
}
func (c *checked) EncodeJSON(e *jx.Encoder)     { e.Raw(c.raw) }
func (c *checked) Validate() error              { return nil }
func (c *checked) MarshalJSON() ([]byte, error) { return c.raw, nil }

// downParams converts the params of a request the server sends (an input
// request of the modern era) into the legacy request's params.
func (b *bridge) downParams(v wireimpl.Codec) (wireimpl.Codec, error) {
	out := b.old.NewParams()
	if err := reshapeInto(v, b.nowParams, b.oldParams, out); err != nil {
		return nil, fmt.Errorf("server: %s cannot be sent to a %s client: %w", b.old.Name, legacy.rev.Version, err)
	}
	return out, nil
}

// upResult converts the client's answer to such a request into the modern
// result, after checking it as the legacy revision's result.
func (b *bridge) upResult(raw wire.Raw, into wireimpl.Codec) error {
	got := b.old.NewResult()
	if err := decodeAnswer(raw, got); err != nil {
		return err
	}
	return reshapeInto(got, b.oldResult, b.nowResult, into)
}

// reshapeInto encodes v, reshapes it and decodes and validates the result
// into out.
func reshapeInto(v wireimpl.Codec, from, to *wireimpl.Shape, out wireimpl.Codec) error {
	raw, err := reshape(v, from, to)
	if err != nil {
		return err
	}
	return decodeOwned(raw, out)
}

// decodeOwned is decodeAnswer for a buffer nobody else holds (what
// Reshape returns): the value may share it.
func decodeOwned(raw wire.Raw, v wireimpl.Codec) error {
	if err := wireimpl.DecodeOwned(raw, v); err != nil {
		return err
	}
	return v.Validate()
}

// reshape encodes v and reshapes it.
func reshape(v wireimpl.Codec, from, to *wireimpl.Shape) (wire.Raw, error) {
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	v.EncodeJSON(e)
	return wireimpl.Reshape(e.Bytes(), from, to, nil)
}
