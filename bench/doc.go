// Package bench compares the generated MCP bindings (gen/mcp with
// runtime/wire) against github.com/modelcontextprotocol/go-sdk and
// github.com/mark3labs/mcp-go on decode, validate and encode of the same
// payloads. It is a separate module so that the peer libraries never become
// dependencies of the main module. Everything lives in the _test.go files;
// see README.md.
package bench

//go:generate go run gen_payloads.go
