// Package spectest holds the tests that hold the generated bindings in
// gen/ to the upstream spec data: every example of the 2026-07-28 schema
// decodes, validates and re-encodes to the same value, a corpus of invalid
// messages is rejected at the right path, and fuzz targets decode messages.
//
// The upstream data is read from MCPGEN_SCHEMA_DIR (see the README); it is
// never copied into this repository.
package spectest
