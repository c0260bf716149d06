# mcpgen — see README.md.
#
#   make generate      regenerate gen/ from the schema in MCPGEN_SCHEMA_DIR
#   make test          the whole suite CI runs: drift check, vet, every Go test
#                      (spec data, conformance suite, TypeScript SDK interop),
#                      and the contrib modules' tests
#   make contrib       only the contrib modules (contrib/otel: tracing)
#   make check         fail when gen/ differs from a fresh generation, or gofmt would change a file
#   make conformance   only the official conformance suite, verbose
#   make interop       only the TypeScript SDK interop tests, verbose
#   make oidc-e2e      the end-to-end test with a real OpenID provider (contrib/oidctest module)
#   make bench         benchmarks beside the official Go SDK and mcp-go (bench/ module)
#   make fuzz          each fuzz target for FUZZTIME (default 2m)

MCPGEN_SCHEMA_DIR ?= $(abspath ../shared/mcp-spec/schema)
export MCPGEN_SCHEMA_DIR
# Node tooling (node@22, the conformance suite, the TS SDK) is installed here.
MCPGEN_CACHE ?= $(CURDIR)/.cache
export MCPGEN_CACHE

# Revisions generated into gen/: the revision the runtime targets goes to
# gen/mcp (package mcp); every other revision served goes to
# gen/mcp<YYYYMMDD> (package mcp<YYYYMMDD>), e.g. gen/mcp20251125.
REVISION  := 2026-07-28
REVISIONS := 2026-07-28 2025-11-25
FUZZTIME ?= 2m

# Extension packages: generated from an extension's own schema against
# gen/mcp, whose types they reuse (mcpgen -reuse, docs/tasks.md). The tasks
# extension's schema sits beside the revisions in the upstream mirror.
EXT_TASKS_SCHEMA ?= $(MCPGEN_SCHEMA_DIR)/../ext-tasks/schema/draft/schema.json
EXT_TASKS_FLAGS   = -schema $(EXT_TASKS_SCHEMA) -facts ext-tasks -reuse github.com/mcpgen/mcpgen/gen/mcp -package mcptasks

# Prints MCPGEN_CONFORMANCE_DIR=... MCPGEN_INTEROP_DIR=..., installing what is missing.
NODE_ENV  = $$(./.ci/install-node-tools)

# Modules of their own in the repository, with dependencies the core
# module must not gain (go test ./... at the top does not enter them).
CONTRIB := contrib/otel

.PHONY: generate test check conformance interop oidc-e2e bench fuzz contrib schema-data

# Every target that reads the schema stops here, with one message, when the
# schema data is missing (a clone without ../shared).
schema-data:
	@for rev in $(REVISIONS); do \
	  test -f "$(MCPGEN_SCHEMA_DIR)/$$rev/schema.json" && continue; \
	  echo "No MCP schema data: $(MCPGEN_SCHEMA_DIR)/$$rev/schema.json does not exist." >&2; \
	  echo "The schemas come from the schema/ folder of github.com/modelcontextprotocol/modelcontextprotocol" >&2; \
	  echo "(commit b0f60ba5, whose files cmd/mcpgen/source.go pins by sha256); by default the Makefile reads" >&2; \
	  echo "them from ../shared/mcp-spec/schema. Point MCPGEN_SCHEMA_DIR at a folder holding <revision>/schema.json:" >&2; \
	  echo "  make test MCPGEN_SCHEMA_DIR=/path/to/modelcontextprotocol/schema" >&2; \
	  exit 1; \
	done

generate: schema-data
	@for rev in $(REVISIONS); do \
	  dir=gen/mcp$$(echo $$rev | tr -d -); [ $$rev = $(REVISION) ] && dir=gen/mcp; \
	  echo "mcpgen -revision $$rev -out $$dir"; \
	  go run ./cmd/mcpgen -revision $$rev -out $$dir -package $$(basename $$dir) || exit 1; \
	done
	@echo "mcpgen $(EXT_TASKS_FLAGS) -out gen/mcptasks"
	@go run ./cmd/mcpgen $(EXT_TASKS_FLAGS) -out gen/mcptasks

test: check
	go vet ./...
	env $(NODE_ENV) go test ./...
	$(MAKE) contrib
	$(MAKE) oidc-e2e
	cd bench && go vet ./... && go test -run 'Test' ./...

contrib:
	@for m in $(CONTRIB); do \
	  echo "$$m: go vet, go test"; \
	  (cd $$m && go vet ./... && go test ./...) || exit 1; \
	done

check: schema-data
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	for rev in $(REVISIONS); do \
	  dir=gen/mcp$$(echo $$rev | tr -d -); [ $$rev = $(REVISION) ] && dir=gen/mcp; \
	  pkg=$$(basename $$dir); \
	  go run ./cmd/mcpgen -revision $$rev -out $$tmp/$$pkg -package $$pkg || exit 1; \
	  diff -r $$tmp/$$pkg $$dir >/dev/null || { echo "$$dir is stale: run make generate"; diff -r $$tmp/$$pkg $$dir | head -20; exit 1; }; \
	done; \
	go run ./cmd/mcpgen $(EXT_TASKS_FLAGS) -out $$tmp/mcptasks || exit 1; \
	diff -r $$tmp/mcptasks gen/mcptasks >/dev/null || { echo "gen/mcptasks is stale: run make generate"; diff -r $$tmp/mcptasks gen/mcptasks | head -20; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# Ends with the scenario counts of every run (the CONFORMANCE lines the tests log).
conformance: schema-data
	@out=$$(mktemp) && trap 'rm -f $$out $$out.rc' EXIT && \
	{ env $(NODE_ENV) go test -count=1 -v -run 'TestConformance' ./cmd/mcp-everything ./cmd/mcp-everything-client; echo $$? >$$out.rc; } | tee $$out && \
	echo "=== conformance counts ===" && grep -o 'CONFORMANCE .*' $$out | sed 's/^CONFORMANCE //' && exit $$(cat $$out.rc)

interop: schema-data
	env $(NODE_ENV) go test -count=1 -v -run 'TestInterop' ./cmd/mcp-everything ./cmd/mcp-everything-client

# A module of its own (the provider, github.com/zitadel/oidc, is no
# dependency of mcpgen): its modules come from the Go module proxy.
oidc-e2e:
	cd contrib/oidctest && go vet ./... && go test -count=1 ./...

bench:
	cd bench && ./run.sh

fuzz:
	go test -run '^$$' -fuzz '^FuzzDecodeMessage$$' -fuzztime $(FUZZTIME) ./cmd/mcpgen/internal/spectest/
	go test -run '^$$' -fuzz '^FuzzDecodeClientRequest$$' -fuzztime $(FUZZTIME) ./cmd/mcpgen/internal/spectest/
	go test -run '^$$' -fuzz '^FuzzDifferential$$' -fuzztime $(FUZZTIME) ./cmd/mcpgen/internal/spectest/
	go test -run '^$$' -fuzz '^FuzzLegacySession$$' -fuzztime $(FUZZTIME) ./runtime/server/
