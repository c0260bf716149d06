# mcpgen — see README.md.
#
#   make generate      regenerate gen/ from the schema in MCPGEN_SCHEMA_DIR
#   make test          the whole suite CI runs: drift check, vet, every Go test
#                      (spec data, conformance suite, TypeScript SDK interop)
#   make check         fail when gen/ differs from a fresh generation, or gofmt would change a file
#   make conformance   only the official conformance suite, verbose
#   make interop       only the TypeScript SDK interop tests, verbose
#   make bench         benchmarks beside the official Go SDK and mcp-go (bench/ module)
#   make fuzz          each fuzz target for FUZZTIME (default 2m)

MCPGEN_SCHEMA_DIR ?= $(abspath ../shared/mcp-spec/schema)
export MCPGEN_SCHEMA_DIR
# Node tooling (node@22, the conformance suite, the TS SDK) is installed here.
MCPGEN_CACHE ?= $(CURDIR)/.cache
export MCPGEN_CACHE

REVISION := 2026-07-28
GEN_DIR  := gen/mcp
FUZZTIME ?= 2m
# Prints MCPGEN_CONFORMANCE_DIR=... MCPGEN_INTEROP_DIR=..., installing what is missing.
NODE_ENV  = $$(./.ci/install-node-tools)

.PHONY: generate test check conformance interop bench fuzz

generate:
	go run ./cmd/mcpgen -revision $(REVISION) -out $(GEN_DIR) -package mcp

test: check
	go vet ./...
	env $(NODE_ENV) go test ./...

check:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	go run ./cmd/mcpgen -revision $(REVISION) -out $$tmp/mcp -package mcp && \
	diff -r $$tmp/mcp $(GEN_DIR) >/dev/null || { echo "gen/ is stale: run make generate"; diff -r $$tmp/mcp $(GEN_DIR) | head -20; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

conformance:
	env $(NODE_ENV) go test -count=1 -v -run 'TestConformance' ./cmd/mcp-everything ./cmd/mcp-everything-client

interop:
	env $(NODE_ENV) go test -count=1 -v -run 'TestInterop' ./cmd/mcp-everything ./cmd/mcp-everything-client

bench:
	cd bench && ./run.sh

fuzz:
	go test -run '^$$' -fuzz '^FuzzDecodeMessage$$' -fuzztime $(FUZZTIME) ./cmd/mcpgen/internal/spectest/
	go test -run '^$$' -fuzz '^FuzzDecodeClientRequest$$' -fuzztime $(FUZZTIME) ./cmd/mcpgen/internal/spectest/
	go test -run '^$$' -fuzz '^FuzzDifferential$$' -fuzztime $(FUZZTIME) ./cmd/mcpgen/internal/spectest/
