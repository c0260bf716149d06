package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// pinned holds the sha256 of every published schema.json this command
// accepts from the network (mirror of modelcontextprotocol/modelcontextprotocol
// at b0f60ba5, 2026-08-22). A revision that is not pinned is never downloaded.
var pinned = map[string]string{
	"2024-11-05": "61cea2392d4f284092d09bc84b9ac488c0d5618ac2b38a56942fc5b99fd960ce",
	"2025-03-26": "e720669548c8100a4282c49e580efd6ddf7f28899ea786fc8db251dbdb356131",
	"2025-06-18": "af845e7e5b9d27107d1690f0936022546177a1403e63ffb11470135b296a2e01",
	"2025-11-25": "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
	"2026-07-28": "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
}

// canonicalURL is where a revision's schema is published. It is a
// variable so that tests can point the download at a local server; the
// sha256 pin is checked whatever the URL.
var canonicalURL = func(revision string) string {
	return "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/main/schema/" + revision + "/schema.json"
}

const maxSchemaSize = 16 << 20

// readSchema returns the schema's name (for messages) and bytes.
func readSchema(path, revision string) (string, []byte, error) {
	switch {
	case path != "":
		data, err := os.ReadFile(path)
		if err != nil {
			return path, nil, fmt.Errorf("%s: cannot read: %w", path, unwrapPath(err))
		}
		return path, data, nil
	case revision == "":
		return "", nil, errors.New("either -schema or -revision is required")
	case revision != "draft" && !revisionPattern.MatchString(revision):
		return "", nil, fmt.Errorf("-revision %q is not a revision name (YYYY-MM-DD or draft)", revision)
	}
	if dir := os.Getenv("MCPGEN_SCHEMA_DIR"); dir != "" {
		p := filepath.Join(dir, revision, "schema.json")
		data, err := os.ReadFile(p)
		if err != nil {
			return p, nil, fmt.Errorf("%s: cannot read (MCPGEN_SCHEMA_DIR is %s): %w", p, dir, unwrapPath(err))
		}
		return p, data, nil
	}
	url := canonicalURL(revision)
	want, ok := pinned[revision]
	if !ok {
		return url, nil, fmt.Errorf("%s: revision %q has no pinned sha256; set MCPGEN_SCHEMA_DIR or pass -schema", url, revision)
	}
	data, err := download(url)
	if err != nil {
		return url, nil, fmt.Errorf("%s: %w", url, err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return url, nil, fmt.Errorf("%s: sha256 %s does not match the pinned %s; refusing it", url, got, want)
	}
	return url, data, nil
}

func download(url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download: HTTP %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSchemaSize+1))
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	if len(data) > maxSchemaSize {
		return nil, fmt.Errorf("download: larger than %d bytes", maxSchemaSize)
	}
	return data, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// identify names the published revision whose schema.json is data, by its
// pinned sha256; "" for any other schema.
func identify(data []byte) string {
	sum := sha256.Sum256(data)
	got := hex.EncodeToString(sum[:])
	for rev, want := range pinned {
		if got == want {
			return rev
		}
	}
	return ""
}
