package wireimpl

// The seam between generated code and this package is versioned. Every
// generated package declares, in methods_gen.go,
//
//	var _ interface{ SupportsGeneratedCode1() } = wireimpl.Runtime
//
// naming the seam version it was generated for. Runtime has a method for
// each version this runtime supports, so a generated package paired with a
// runtime too old or too new for it fails to build with a message naming
// both: "wireimpl.RuntimeVersion3 does not implement
// interface{SupportsGeneratedCode4()} (missing method
// SupportsGeneratedCode4)". Regenerate the package with the mcpgen of the
// runtime in use to fix it. A package declares the oldest version that
// has what it uses, so that runtimes of later versions still build it.

// Versions: 1, the first; 2 adds what Encodable and the checks of values
// built in Go call (Checker.Union, EncodeErr, Finite, ID, RawKind); 3 adds
// Checker.Sub, which packages referring to another generated package's
// types (mcpgen -reuse) call.

// GeneratedCodeVersion is the seam version mcpgen generates for (packages
// generated without -reuse).
const GeneratedCodeVersion = 2

// ReuseCodeVersion is the seam version of packages generated with -reuse.
const ReuseCodeVersion = 3

// LatestCodeVersion is the newest seam version this runtime supports.
const LatestCodeVersion = 3

// RuntimeVersion3 is this runtime's side of the seam.
type RuntimeVersion3 struct{}

// Runtime is what generated code checks its version against.
var Runtime RuntimeVersion3

// SupportsGeneratedCode1 marks support for code generated at seam version 1.
func (RuntimeVersion3) SupportsGeneratedCode1() {}

// SupportsGeneratedCode2 marks support for code generated at seam version 2.
func (RuntimeVersion3) SupportsGeneratedCode2() {}

// SupportsGeneratedCode3 marks support for code generated at seam version 3.
func (RuntimeVersion3) SupportsGeneratedCode3() {}
