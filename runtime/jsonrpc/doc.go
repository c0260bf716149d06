// Package jsonrpc is the JSON-RPC 2.0 layer shared by the MCP server and
// client: request ids that keep their JSON type, one-pass decoding of a
// message envelope (with params, result and error kept verbatim for the
// generated codecs), and writers for responses and notifications.
//
// It knows nothing about MCP methods; the generated method tables and the
// server and client packages do.
package jsonrpc
