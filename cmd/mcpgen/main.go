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
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgen: "+err.Error())
		os.Exit(1)
	}
}

var revisionPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

var packagePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// checkPackageName accepts the names gofmt-style Go packages have: lower
// case letters, digits and underscores, starting with a letter, and not a
// keyword (the generated files would not parse) nor main (a command,
// which no other package can import).
func checkPackageName(name string) error {
	switch {
	case token.IsKeyword(name):
		return fmt.Errorf("-package %q is a Go keyword and cannot name a package; pick another name (e.g. mcp)", name)
	case name == "main":
		return errors.New(`-package "main" would make a command, which no other package can import; pick another name (e.g. mcp)`)
	case !packagePattern.MatchString(name):
		return fmt.Errorf("-package %q is not a valid package name: use lower-case letters, digits and underscores, starting with a letter (e.g. mcp)", name)
	}
	return nil
}

// checkSchemaRevision refuses a -schema file that is known to be of another
// revision than -revision: the published schema.json of another revision
// (by its pinned sha256), or a file in a folder named after another
// revision, as in the mirror's layout <revision>/schema.json. The facts of -revision would
// otherwise be checked against the wrong schema, or, worse, pass.
func checkSchemaRevision(path string, data []byte, revision string) error {
	if rev := identify(data); rev != "" {
		// Revisions may publish identical files (draft is 2026-07-28 today):
		// only a pinned -revision is known to differ from another pin.
		if _, ok := pinned[revision]; ok && rev != revision {
			return fmt.Errorf("%s: this is the published schema of revision %s, not of -revision %s; drop -revision or pass the %s schema", path, rev, revision, revision)
		}
		if rev == revision {
			return nil
		}
	}
	dir := filepath.Base(filepath.Dir(path))
	if (dir == "draft" || revisionPattern.MatchString(dir)) && dir != revision {
		return fmt.Errorf("%s: the schema lies in a folder named for revision %s, not -revision %s; drop -revision or pass the %s schema", path, dir, revision, revision)
	}
	return nil
}

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
	if err := checkPackageName(*pkgName); err != nil {
		return err
	}
	src, data, err := readSchema(*schemaPath, *revision)
	if err != nil {
		return err
	}
	if *schemaPath != "" && *revision != "" {
		if err := checkSchemaRevision(*schemaPath, data, *revision); err != nil {
			return err
		}
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
