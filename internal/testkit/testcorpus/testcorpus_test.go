package testcorpus

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// A corpus kept in another git repository (ACP_CORPUS_DIR, docs/corpus.md)
// is shown in reports relative to that repository's top: ValidCopy must
// read its files from where they are, not through the name a report
// shows (issue 27).
func TestValidCopyOfACorpusInAnotherRepository(t *testing.T) {
	corpus := testkit.RequireCorpus(t)
	testkit.SkipUnderWineWithout(t, "git")
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	moved := filepath.Join(repo, "data", "registry")
	if err := os.CopyFS(moved, os.DirFS(corpus)); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ACP_CORPUS_DIR", moved)
	root := ValidCopy(t)
	dirs, err := os.ReadDir(root)
	if err != nil || len(dirs) < 100 {
		t.Fatalf("%d agents copied (%v)", len(dirs), err)
	}
	for _, d := range dirs {
		for _, f := range []string{registry.ManifestFile, registry.IconFile} {
			got, err := os.ReadFile(filepath.Join(root, d.Name(), f))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(moved, d.Name(), f))
			if err != nil {
				t.Fatalf("%s/%s copied from no corpus folder of that name: %v", d.Name(), f, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s is not the corpus file", d.Name(), f)
			}
		}
	}
}
