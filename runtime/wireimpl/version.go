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

// GeneratedCodeVersion is the seam version mcpgen generates for.
const GeneratedCodeVersion = 1

// RuntimeVersion1 is this runtime's side of the seam.
type RuntimeVersion1 struct{}

// Runtime is what generated code checks its version against.
var Runtime RuntimeVersion1

// SupportsGeneratedCode1 marks support for code generated at seam version 1.
func (RuntimeVersion1) SupportsGeneratedCode1() {}
