// Command mcpgen generates Go bindings from a Model Context Protocol
// schema.json: types, zero-reflection JSON codecs, validators and method
// dispatch tables.
//
//	mcpgen -schema PATH -out DIR -package NAME [-revision REV]
//	mcpgen -revision 2026-07-28 -out DIR -package NAME
//
// With -revision alone the schema is read from $MCPGEN_SCHEMA_DIR/REV/schema.json,
// or, when MCPGEN_SCHEMA_DIR is unset, downloaded from the revision's
// canonical URL and accepted only if its sha256 matches the one pinned in
// this command (see pinned in source.go).
//
// Any failure prints one line naming the file and JSON pointer and exits
// with status 1; the output directory is only written once generation has
// succeeded.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgen: "+err.Error())
		os.Exit(1)
	}
}

var revisionPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

func run(args []string, stderr io.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	fs := flag.NewFlagSet("mcpgen", flag.ContinueOnError)
	// Parse errors are reported as one line by main; the flag list is
	// printed only when asked for (-h).
	fs.SetOutput(io.Discard)
	schemaPath := fs.String("schema", "", "path of the MCP schema.json to read")
	out := fs.String("out", "", "directory to write the generated package into")
	pkgName := fs.String("package", "mcp", "Go package name of the generated code")
	revision := fs.String("revision", "", "protocol revision (e.g. 2026-07-28): names the schema to read when -schema is absent")
	factsPath := fs.String("facts", "", "revision facts file (default: the facts mcpgen carries for the revision, see docs/facts.md)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.Usage()
			return nil
		}
		return fmt.Errorf("%v (mcpgen -h lists the flags)", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return errors.New("-out is required")
	}
	if !regexp.MustCompile(`^[a-z][a-z0-9_]*$`).MatchString(*pkgName) {
		return fmt.Errorf("-package %q is not a valid package name", *pkgName)
	}
	src, data, err := readSchema(*schemaPath, *revision)
	if err != nil {
		return err
	}
	rev := ""
	if revisionPattern.MatchString(*revision) {
		rev = *revision
	} else if *revision == "" {
		rev = identify(data) // a -schema file that is a published revision
	}
	facts, err := loadFacts(*factsPath, rev)
	if err != nil {
		return err
	}
	files, err := generate(src, data, *pkgName, rev, facts)
	if err != nil {
		return err
	}
	return writeFiles(*out, files)
}
