package wire

import (
	"strings"
)

// DecodeErrorKind tells what kind of input a DecodeError rejected.
type DecodeErrorKind uint8

// Decode error kinds.
const (
	// Syntax: the input is not JSON (a malformed token, trailing data,
	// invalid UTF-8, a lone surrogate escape).
	Syntax DecodeErrorKind = iota + 1
	// Shape: well-formed JSON that does not fit the type (a member of the
	// wrong JSON kind, a duplicate or unknown member, a value no union
	// member accepts, a constant that differs).
	Shape
	// Limit: well-formed JSON beyond what the decoder or a Go type can hold
	// (nesting deeper than the limit, an integer outside int64, a number
	// float64 cannot represent exactly).
	Limit
)

func (k DecodeErrorKind) String() string {
	switch k {
	case Syntax:
		return "syntax"
	case Shape:
		return "shape"
	case Limit:
		return "limit"
	}
	return "unknown"
}

// DecodeError is a decoding failure at a JSON path.
type DecodeError struct {
	// Path locates the failing value, e.g. params.content[2].type; empty
	// for the outermost value.
	Path string
	Msg  string
	Kind DecodeErrorKind
}

func (e *DecodeError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// JSONPath returns the path of the failing value.
func (e *DecodeError) JSONPath() string { return e.Path }

// Violation is one broken schema rule.
type Violation struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (v Violation) String() string {
	if v.Path == "" {
		return v.Message
	}
	return v.Path + ": " + v.Message
}

// ValidationError lists every violation found in a value.
type ValidationError struct {
	Violations []Violation
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("invalid value: ")
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// EncodeError reports a value that EncodeJSON cannot write as what it
// means: a union (a sum type, which holds exactly one member) with no
// member set where a value is needed, or with several members set. Each
// violation names the union's type and where it is. MarshalJSON and the
// generated packages' Marshal return it instead of output; the generated
// Encodable method reports it alone, and Validate reports it among every
// other violation.
type EncodeError struct {
	Violations []Violation
}

func (e *EncodeError) Error() string {
	var b strings.Builder
	b.WriteString("cannot encode: ")
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}
