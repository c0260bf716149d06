# mcpgen — see README.md.
MCPGEN_SCHEMA_DIR ?= $(abspath ../shared/mcp-spec/schema)
export MCPGEN_SCHEMA_DIR

REVISION := 2026-07-28
GEN_DIR  := gen/mcp

.PHONY: generate test check bench conformance fuzz

## generate: regenerate gen/ from the schema in MCPGEN_SCHEMA_DIR
generate:
	go run ./cmd/mcpgen -revision $(REVISION) -out $(GEN_DIR) -package mcp

## test: every test of the module (spec-data tests read MCPGEN_SCHEMA_DIR)
test:
	go vet ./...
	go test ./...

## check: fail when gen/ differs from a fresh generation
check:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	go run ./cmd/mcpgen -revision $(REVISION) -out $$tmp/mcp -package mcp && \
	diff -r $$tmp/mcp $(GEN_DIR) >/dev/null || { echo "gen/ is stale: run make generate"; diff -r $$tmp/mcp $(GEN_DIR) | head -20; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
