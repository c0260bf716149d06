package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/emit"
	"github.com/mcpgen/mcpgen/cmd/mcpgen/internal/plan"
	"github.com/mcpgen/mcpgen/schema"
)

// generate runs schema → plan → emit on the schema bytes read from src.
func generate(src string, data []byte, pkgName, revision string, facts *plan.Facts) ([]emit.File, error) {
	doc, err := schema.Load(src, data)
	if err != nil {
		return nil, err
	}
	pkg, err := plan.Build(doc, plan.Options{Package: pkgName, Source: sourceName(src), Revision: revision, Facts: facts})
	if err != nil {
		return nil, err
	}
	return emit.Files(pkg)
}

// loadFacts reads the facts file named by -facts, or the facts mcpgen
// carries for revision.
func loadFacts(path, revision string) (*plan.Facts, error) {
	if path == "" {
		return plan.LoadFacts(revision)
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
