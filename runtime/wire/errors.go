package wire

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// DecodeError is a decoding failure at a JSON path.
type DecodeError struct {
	// Path locates the failing value, e.g. params.content[2].type; empty
	// for the outermost value.
	Path string
	Msg  string

	segs []pathSeg // reversed: innermost first, rendered into Path lazily
}

type pathSeg struct {
	key   string
	index int // -1 for an object member
}

func (e *DecodeError) Error() string {
	p := e.path()
	if p == "" {
		return e.Msg
	}
	return p + ": " + e.Msg
}

func (e *DecodeError) path() string {
	if len(e.segs) == 0 {
		return e.Path
	}
	var b strings.Builder
	b.WriteString(e.Path)
	for i := len(e.segs) - 1; i >= 0; i-- {
		appendSeg(&b, e.segs[i].key, e.segs[i].index)
	}
	e.Path, e.segs = b.String(), nil
	return e.Path
}

// JSONPath returns the path of the failing value.
func (e *DecodeError) JSONPath() string { return e.path() }

func appendSeg(b *strings.Builder, key string, index int) {
	switch {
	case index >= 0:
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(index))
		b.WriteByte(']')
	case isIdent(key):
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(key)
	default:
		b.WriteByte('[')
		b.WriteString(strconv.Quote(key))
		b.WriteByte(']')
	}
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return true
}

// AtKey places err under object member key. It is called while unwinding
// out of a failed member, so paths cost nothing when decoding succeeds.
func AtKey(err error, key string) error { return at(err, key, -1) }

// AtIndex places err under array element i.
func AtIndex(err error, i int) error { return at(err, "", i) }

func at(err error, key string, index int) error {
	var de *DecodeError
	if !errors.As(err, &de) {
		de = &DecodeError{Msg: err.Error()}
	}
	if de.Path != "" {
		// Already rendered: re-render with the new outer segment.
		var b strings.Builder
		appendSeg(&b, key, index)
		inner := de.Path
		if inner[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(inner)
		de.Path = b.String()
		return de
	}
	de.segs = append(de.segs, pathSeg{key: key, index: index})
	return de
}

func errTooDeep() error {
	return &DecodeError{Msg: fmt.Sprintf("nesting deeper than %d levels", MaxDepth)}
}

// TypeError reports a value of the wrong JSON kind.
func TypeError(want, got Kind) error {
	if got == KindInvalid {
		return &DecodeError{Msg: "invalid JSON: expected " + want.String()}
	}
	return &DecodeError{Msg: "expected " + want.String() + ", got " + got.String()}
}

// DuplicateKey reports a member name that occurs twice in one object.
func DuplicateKey(key []byte) error {
	return &DecodeError{Msg: "duplicate member " + strconv.Quote(string(key))}
}

// ConstError reports a member whose value differs from the constant the
// schema fixes for it.
func ConstError(key, want, got string) error {
	return AtKey(&DecodeError{Msg: "must be " + strconv.Quote(want) + ", got " + strconv.Quote(got)}, key)
}

// UnknownVariant reports a discriminator value no union member accepts.
func UnknownVariant(key, got string) error {
	return AtKey(&DecodeError{Msg: "unknown " + key + " " + strconv.Quote(got)}, key)
}

// NoVariant reports a value no union member accepts.
func NoVariant(union string, got Kind) error {
	return &DecodeError{Msg: got.String() + " matches no member of " + union}
}

func syntaxError(err error) error {
	if err == nil {
		return &DecodeError{Msg: "invalid JSON"}
	}
	var de *DecodeError
	if errors.As(err, &de) {
		return de
	}
	return &DecodeError{Msg: "invalid JSON: " + err.Error()}
}
