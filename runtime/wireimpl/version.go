package wireimpl

// The seam between generated code and this package is versioned. Every
// generated package declares, in methods_gen.go,
//
//	var _ interface{ SupportsGeneratedCode1() } = wireimpl.Runtime
//
// naming the seam version it was generated for. Runtime has a method for
// each version this runtime supports, so a generated package paired with a
// runtime too old or too new for it fails to build with a message naming
// both: "wireimpl.RuntimeVersion2 does not implement
// interface{SupportsGeneratedCode1()} (missing method
// SupportsGeneratedCode1)". Regenerate the package with the mcpgen of the
// runtime in use to fix it.

//
// Versions: 1, the first; 2 adds what Encodable and the checks of values
// built in Go call (Checker.Union, EncodeErr, Finite, ID, RawKind). Code
// generated at version 1 uses none of it and still builds.

// GeneratedCodeVersion is the seam version mcpgen generates for.
const GeneratedCodeVersion = 2

// RuntimeVersion2 is this runtime's side of the seam.
type RuntimeVersion2 struct{}

// Runtime is what generated code checks its version against.
var Runtime RuntimeVersion2

// SupportsGeneratedCode1 marks support for code generated at seam version 1.
func (RuntimeVersion2) SupportsGeneratedCode1() {}

// SupportsGeneratedCode2 marks support for code generated at seam version 2.
func (RuntimeVersion2) SupportsGeneratedCode2() {}
