package site

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testcorpus"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The same registry gives the same bytes, wherever it lies and however
// often it is written: publishing it again causes no churn.
func TestGenerateIsDeterministic(t *testing.T) {
	root := testcorpus.ValidCopy(t)
	other := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.CopyFS(other, os.DirFS(root)); err != nil {
		t.Fatal(err)
	}
	mx := corpusMatrix(t)
	out := filepath.Join(t.TempDir(), "site")
	generate(t, root, out, mx)
	first := readTree(t, out)
	generate(t, root, out, mx)
	out2 := filepath.Join(t.TempDir(), "site2")
	generate(t, other, out2, mx)
	for name, tree := range map[string]map[string][]byte{"again": readTree(t, out), "from a copy": readTree(t, out2)} {
		if len(tree) != len(first) {
			t.Errorf("%s: %d files, first run %d", name, len(tree), len(first))
		}
		for f, data := range first {
			if !bytes.Equal(tree[f], data) {
				t.Errorf("%s: %s differs from the first run", name, f)
			}
		}
	}
}

// The catalog holds a page and the validated icon of every agent of the
// main index, and nothing else but its own three files.
func TestGenerateWritesEveryAgent(t *testing.T) {
	root := testcorpus.ValidCopy(t)
	want := manifests(t, root)
	out := filepath.Join(t.TempDir(), "site")
	res := generate(t, root, out, nil)
	tree := readTree(t, out)
	expect := []string{Marker, "favicon.svg", "index.html", "site.css", "site.js"}
	for id := range want {
		expect = append(expect, "agents/"+id+".html", "icons/"+id+".svg")
		icon, err := os.ReadFile(filepath.Join(root, id, registry.IconFile))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(tree["icons/"+id+".svg"], icon) {
			t.Errorf("icons/%s.svg is not the agent's icon.svg", id)
		}
		if !bytes.Contains(tree["index.html"], []byte(`data-agent-id="`+id+`"`)) {
			t.Errorf("index.html has no card for %s", id)
		}
	}
	slices.Sort(expect)
	if !slices.Equal(res.Files, expect) {
		t.Errorf("Files = %v\nwant %v", res.Files, expect)
	}
	if res.Agents != len(want) {
		t.Errorf("Agents = %d, want %d", res.Agents, len(want))
	}
	got := make([]string, 0, len(tree))
	for f := range tree {
		got = append(got, f)
	}
	slices.Sort(got)
	if !slices.Equal(got, expect) {
		t.Errorf("the folder holds %v\nwant %v", got, expect)
	}
}
