// Package testcorpus gives the maintainer's tests the real corpus as a
// registry that builds. It is imported by tests only; it sits apart from
// internal/testkit because it runs the validator, which the editor's
// tests (the installer's among them) must not import.
package testcorpus

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// ValidCopy returns a temporary copy of the corpus restricted to the agents
// that validate (the agents the public registry actually ships): the corpus
// holds agents that break rules, and a build or a catalog refuses a
// registry with errors.
func ValidCopy(tb testing.TB) string {
	tb.Helper()
	corpus := testkit.RequireCorpus(tb)
	rep, err := validate.Run(context.Background(), []string{corpus}, validate.Options{SkipURLs: true})
	if err != nil {
		tb.Fatal(err)
	}
	root := tb.TempDir()
	n := 0
	for _, a := range rep.Agents {
		if !a.Valid || a.Manifest == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Join(root, a.ID), 0o755); err != nil {
			tb.Fatal(err)
		}
		// a.Path is the folder as reports show it (relative to the top of
		// the corpus's git work tree, or to the current folder), not a
		// path to open: the folder is read where the corpus is.
		dir := filepath.Join(corpus, path.Base(a.Path))
		for _, f := range []string{registry.ManifestFile, registry.IconFile} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, a.ID, f), data, 0o644); err != nil {
				tb.Fatal(err)
			}
		}
		n++
	}
	if n < 100 {
		tb.Fatalf("only %d of %d corpus agents are valid: the validator or the corpus changed", n, len(rep.Agents))
	}
	return root
}
