module github.com/mcpgen/mcpgen

go 1.26.0

require (
	github.com/atombender/go-jsonschema v0.24.1
	github.com/dave/jennifer v1.7.1
	github.com/go-faster/jx v1.2.0
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/google/go-cmp v0.7.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/oauth2 v0.38.0
)

require (
	dario.cat/mergo v1.0.2 // indirect
	github.com/go-faster/errors v0.7.1 // indirect
	github.com/goccy/go-yaml v1.19.2 // indirect
	github.com/segmentio/asm v1.2.1 // indirect
	golang.org/x/sys v0.5.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
