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
// interface{SupportsGeneratedCode3()} (missing method
// SupportsGeneratedCode3)". Regenerate the package with the mcpgen of the
// runtime in use to fix it. A package declares the oldest version that
// has what it uses, so that runtimes of later versions still build it.

// GeneratedCodeVersion is the seam version mcpgen generates for (packages
// generated without -reuse).
const GeneratedCodeVersion = 1

// ReuseCodeVersion is the seam version of packages that refer to another
// generated package's types (mcpgen -reuse): their validators call
// Checker.Sub. Packages generated without -reuse declare
// GeneratedCodeVersion, so a runtime that predates version 2 still builds
// them.
const ReuseCodeVersion = 2

// LatestCodeVersion is the newest seam version this runtime supports.
const LatestCodeVersion = 2

// RuntimeVersion2 is this runtime's side of the seam.
type RuntimeVersion2 struct{}

// Runtime is what generated code checks its version against.
var Runtime RuntimeVersion2

// SupportsGeneratedCode1 marks support for code generated at seam version 1.
func (RuntimeVersion2) SupportsGeneratedCode1() {}

// SupportsGeneratedCode2 marks support for code generated at seam version 2.
func (RuntimeVersion2) SupportsGeneratedCode2() {}
