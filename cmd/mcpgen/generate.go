package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/emit"
	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/plan"
	"github.com/mcpgen/mcpgen/schema"
)

// generate runs schema → plan → emit on the schema bytes read from src.
func generate(src string, data []byte, pkgName, revision string, facts *plan.Facts) ([]emit.File, error) {
	return generateWith(src, data, pkgName, revision, facts, nil)
}

// generateWith is generate referring to the types of reuse (nil: none)
// for the definitions it declares alike.
func generateWith(src string, data []byte, pkgName, revision string, facts *plan.Facts, reuse *plan.Reuse) ([]emit.File, error) {
	doc, err := schema.Load(src, data)
	if err != nil {
		return nil, err
	}
	pkg, err := plan.Build(doc, plan.Options{Package: pkgName, Source: sourceName(src), Revision: revision, Facts: facts, Reuse: reuse})
	if err != nil {
		return nil, err
	}
	return emit.Files(pkg)
}

// loadFacts reads the facts file named by -facts, or the facts mcpgen
// carries for revision.
// A path without a directory or extension names facts mcpgen carries
// ("ext-tasks", the tasks extension's).
func loadFacts(path, revision string) (*plan.Facts, error) {
	if path == "" {
		return plan.LoadFacts(revision)
	}
	if !strings.ContainsAny(path, `/\.`) {
		f, err := plan.LoadFacts(path)
		if err == nil && f == nil {
			err = fmt.Errorf("-facts %s: mcpgen carries no such facts (a file name needs its .json)", path)
		}
		return f, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return plan.ParseFacts(path, data)
}

// sourceName is the schema's name in generated headers: the revision
// directory and file name, never a machine-specific absolute path.
func sourceName(src string) string {
	if strings.HasPrefix(src, "https://") {
		return src
	}
	return filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(src)), filepath.Base(src)))
}

// writeFiles replaces the generated files in dir. Everything is written to
// a temporary directory first, beside the files it replaces, so that the
// renames stay on one file system: inside dir when dir exists (its parent
// need not be writable: a module root, a read-only checkout above it), in
// dir's parent when dir is to be created. Files are then renamed into
// place, and generated files that are no longer produced are removed.
// Failures name the folder that could not be written, in one line.
func writeFiles(dir string, files []emit.File) error {
	dir = filepath.Clean(dir)
	info, err := os.Stat(dir)
	switch {
	case err == nil && !info.IsDir():
		return fmt.Errorf("-out %s: not a directory", dir)
	case err == nil:
		return replaceFiles(dir, files)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-out %s: %w", dir, unwrapPath(err))
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("-out %s: cannot create its parent folder: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(parent, ".mcpgen-")
	if err != nil {
		return fmt.Errorf("-out %s: cannot create it in %s: %w", dir, parent, unwrapPath(err))
	}
	defer os.RemoveAll(tmp)
	if err := writeAll(tmp, files); err != nil {
		return fmt.Errorf("-out %s: %w", dir, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it 0700
		return fmt.Errorf("-out %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("-out %s: %w", dir, unwrapLink(err))
	}
	return nil
}

// replaceFiles writes files into the existing directory dir, through a
// temporary directory inside it.
func replaceFiles(dir string, files []emit.File) error {
	tmp, err := os.MkdirTemp(dir, ".mcpgen-")
	if err != nil {
		return fmt.Errorf("-out %s: cannot write into it: %w", dir, unwrapPath(err))
	}
	defer os.RemoveAll(tmp)
	if err := writeAll(tmp, files); err != nil {
		return fmt.Errorf("-out %s: %w", dir, err)
	}
	old, err := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, f := range files {
		keep[f.Name] = true
		if err := os.Rename(filepath.Join(tmp, f.Name), filepath.Join(dir, f.Name)); err != nil {
			return fmt.Errorf("-out %s: %w", dir, unwrapLink(err))
		}
	}
	for _, o := range old {
		if !keep[filepath.Base(o)] {
			if err := os.Remove(o); err != nil {
				return fmt.Errorf("-out %s: %w", dir, unwrapPath(err))
			}
		}
	}
	return nil
}

// findReuse locates the generated package importPath with the go command
// (from the current directory, as go generate runs mcpgen) and reads its
// definitions.
func findReuse(importPath string) (*plan.Reuse, error) {
	out, err := exec.Command("go", "list", "-find", "-f", "{{.Dir}}", importPath).Output()
	if err != nil {
		msg := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			msg = strings.TrimSpace(strings.SplitN(string(ee.Stderr), "\n", 2)[0])
		}
		return nil, fmt.Errorf("-reuse %s: cannot find the package: %s", importPath, msg)
	}
	return plan.LoadReuse(importPath, strings.TrimSpace(string(out)))
}

func writeAll(dir string, files []emit.File) error {
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Source, 0o644); err != nil {
			return unwrapPath(err)
		}
	}
	return nil
}

// unwrapLink drops the file names of a rename error (the temporary folder
// means nothing to the user); the caller names the folder.
func unwrapLink(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
