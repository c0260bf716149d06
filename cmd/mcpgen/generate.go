package main

import (
	"errors"
	"fmt"
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
// a temporary directory first; files are then renamed into place, and
// generated files that are no longer produced are removed.
func writeFiles(dir string, files []emit.File) error {
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(dir)), 0o755); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), ".mcpgen-")
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	defer os.RemoveAll(tmp)
	keep := map[string]bool{}
	for _, f := range files {
		keep[f.Name] = true
		if err := os.WriteFile(filepath.Join(tmp, f.Name), f.Source, 0o644); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
	}
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		if err := os.Rename(tmp, dir); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		return nil
	}
	old, err := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.Rename(filepath.Join(tmp, f.Name), filepath.Join(dir, f.Name)); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
	}
	for _, o := range old {
		if !keep[filepath.Base(o)] {
			if err := os.Remove(o); err != nil {
				return fmt.Errorf("%s: %w", o, err)
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
