package wireimpl

import (
	"sync"

	"github.com/go-faster/jx"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A Shape is what a schema definition declares about the JSON of its
// values: the members of an object and the shapes of their values, the
// shape of array elements and map values, and, for a union, the shapes of
// its members. Every generated package exports the shapes of its
// definitions (Shapes), so that a value of one revision can be converted
// into the same definition of another: Reshape drops the members the
// source revision declares and the target does not (resultType going to a
// 2025-11-25 client, task coming from one), and keeps everything else,
// including members neither declares (RT-8).
//
// A nil *Shape is a value with nothing declared inside (a scalar, or
// free-form JSON): it is copied as it is.
type Shape struct {
	// Members are the declared members of an object and their shapes.
	Members map[string]*Shape
	// Elem is the shape of the elements of an array, or of the values of
	// an object whose members all share one schema (a map).
	Elem *Shape
	// Variants are the shapes of a union's members: the union declares
	// what any of them declares.
	Variants []*Shape

	once   sync.Once
	merged *Shape // Variants merged into one shape
}

// flat returns the shape with a union's variants merged (the shape itself
// when it has none). Variants that declare the same member merge that
// member's shapes.
func (s *Shape) flat() *Shape {
	if s == nil || len(s.Variants) == 0 {
		return s
	}
	s.once.Do(func() { s.merged = mergeShapes(s.Variants, map[*Shape]bool{}) })
	return s.merged
}

func mergeShapes(shapes []*Shape, busy map[*Shape]bool) *Shape {
	m := &Shape{}
	var elems []*Shape
	for _, v := range shapes {
		if v == nil || busy[v] {
			continue
		}
		busy[v] = true
		v := v.flat()
		for k, ms := range v.Members {
			if m.Members == nil {
				m.Members = map[string]*Shape{}
			}
			if prev, ok := m.Members[k]; ok && prev != ms && prev != nil && ms != nil {
				ms = mergeShapes([]*Shape{prev, ms}, busy)
			} else if ok && prev != nil {
				ms = prev
			}
			m.Members[k] = ms
		}
		if v.Elem != nil {
			elems = append(elems, v.Elem)
		}
	}
	switch len(elems) {
	case 0:
	case 1:
		m.Elem = elems[0]
	default:
		m.Elem = &Shape{Variants: elems}
	}
	return m
}

// ReshapeOptions adjust a Reshape.
type ReshapeOptions struct {
	// Meta members are written first into the top-level "_meta" object
	// (made when the value has none); members of the source's _meta with
	// the same names are dropped.
	Meta wire.Members
}

// Reshape rewrites the JSON value src, of a definition whose shape in the
// source revision is from, into that definition's shape to in the target
// revision. Members from declares and to does not are dropped, at any
// depth, and so are the reserved _meta keys only the source declares;
// everything else is copied verbatim. src must be valid JSON (an
// encoded generated value, or a message a generated type decoded): the
// values copied are checked for syntax only, since what comes out is
// decoded by a generated type again.
func Reshape(src []byte, from, to *Shape, opts *ReshapeOptions) (wire.Raw, error) {
	d := GetDecoder(src)
	defer PutDecoder(d)
	e := jx.GetEncoder()
	defer jx.PutEncoder(e)
	var meta wire.Members
	if opts != nil {
		meta = opts.Meta
	}
	if err := reshape(d, e, from, to, meta); err != nil {
		return nil, err
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return wire.Raw(append([]byte(nil), e.Bytes()...)), nil
}

func reshape(d *Decoder, e *jx.Encoder, from, to *Shape, meta wire.Members) error {
	from, to = from.flat(), to.flat()
	switch d.Next() {
	case wire.KindObject:
		if meta == nil && (from == nil || to == nil) {
			return copyValue(d, e)
		}
		e.ObjStart()
		wroteMeta := false
		err := d.Obj(func(key []byte) error {
			k := string(key)
			if k == "_meta" {
				wroteMeta = true
				e.FieldStart(k)
				return mergeMeta(d, e, meta, member(from, k), member(to, k))
			}
			fs, fDeclared := lookup(from, k)
			ts, tDeclared := lookup(to, k)
			if fDeclared && !tDeclared {
				return d.Pass() // the source revision's own member
			}
			e.FieldStart(k)
			if fDeclared || from != nil && from.Elem != nil {
				if !fDeclared {
					fs, ts = from.Elem, elemOf(to)
				}
				return reshape(d, e, fs, ts, nil)
			}
			return copyValue(d, e)
		})
		if err != nil {
			return err
		}
		if meta != nil && !wroteMeta {
			e.FieldStart("_meta")
			e.ObjStart()
			writeMembers(e, meta)
			e.ObjEnd()
		}
		e.ObjEnd()
		return nil
	case wire.KindArray:
		if from == nil || from.Elem == nil {
			return copyValue(d, e)
		}
		e.ArrStart()
		err := d.Arr(func(int) error { return reshape(d, e, from.Elem, elemOf(to), nil) })
		e.ArrEnd()
		return err
	}
	return copyValue(d, e)
}

func lookup(s *Shape, key string) (*Shape, bool) {
	if s == nil {
		return nil, false
	}
	ms, ok := s.Members[key]
	return ms, ok
}

func member(s *Shape, key string) *Shape {
	ms, _ := lookup(s, key)
	return ms
}

func elemOf(s *Shape) *Shape {
	if s = s.flat(); s == nil {
		return nil
	}
	return s.Elem
}

// mergeMeta writes a _meta object: meta first, then the source's members
// (reshaped) except those meta replaces. The members of _meta are reserved
// keys: one the source revision declares is dropped when the target does
// not declare it, even where the target's _meta is free-form (serverInfo
// going to a 2025-11-25 client).
func mergeMeta(d *Decoder, e *jx.Encoder, meta wire.Members, from, to *Shape) error {
	if d.Next() != wire.KindObject {
		if meta == nil {
			return copyValue(d, e)
		}
		if err := d.Pass(); err != nil {
			return err
		}
		e.ObjStart()
		writeMembers(e, meta)
		e.ObjEnd()
		return nil
	}
	from, to = from.flat(), to.flat()
	e.ObjStart()
	writeMembers(e, meta)
	err := d.Obj(func(key []byte) error {
		k := string(key)
		if _, replaced := meta.Get(k); replaced {
			return d.Pass()
		}
		fs, fDeclared := lookup(from, k)
		ts, tDeclared := lookup(to, k)
		if fDeclared && !tDeclared {
			return d.Pass()
		}
		e.FieldStart(k)
		return reshape(d, e, fs, ts, nil)
	})
	e.ObjEnd()
	return err
}

func writeMembers(e *jx.Encoder, m wire.Members) {
	for _, mb := range m {
		e.FieldStart(mb.Key)
		EncodeRaw(e, mb.Value)
	}
}

func copyValue(d *Decoder, e *jx.Encoder) error {
	r, err := d.RawSyntax()
	if err != nil {
		return err
	}
	e.Raw(r)
	return nil
}
