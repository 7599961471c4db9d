package site

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/build"
	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/verify"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testcorpus"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

func writeFile(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Text a hostile manifest might carry: markup that would run script if
// it reached the page as HTML.
const (
	hostileID   = "zz-hostile"
	hostileName = `<img src=x onerror=alert(1)>`
	hostileDesc = `</script><script>alert(2)</script><b onmouseover=alert(3)>bold</b> & "quotes"`
)

func addHostileAgent(tb testing.TB, root string) {
	tb.Helper()
	m := map[string]any{
		"id": hostileID, "name": hostileName, "version": "1.0.0", "description": hostileDesc,
		"license": `MIT"><script>alert(4)</script>`, "license_url": "https://example.com/license",
		"authors":      []string{`<i>Mallory</i>`},
		"distribution": map[string]any{"npx": map[string]any{"package": "hostile-acp@1.0.0", "args": []string{"--x=$(rm -rf ~)"}}},
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	writeFile(tb, filepath.Join(root, hostileID, registry.ManifestFile), data)
	icon := `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><path d="M1 1h14v14H1z" fill="currentColor"/></svg>`
	writeFile(tb, filepath.Join(root, hostileID, registry.IconFile), []byte(icon))
}

// manifests reads the tree's manifests as the test's own reference,
// independently of the catalog's code.
func manifests(tb testing.TB, root string) map[string]registry.Manifest {
	tb.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]registry.Manifest{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(root, e.Name(), registry.ManifestFile))
		if err != nil {
			continue
		}
		var m registry.Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			tb.Fatalf("%s: %v", e.Name(), err)
		}
		out[m.ID] = m
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// matches is the search as the catalog documents it: every word of the
// query appears in the id, name or description, ignoring case.
func matches(m registry.Manifest, query string) bool {
	text := strings.ToLower(m.ID + "\n" + m.Name + "\n" + m.Description)
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

func generate(tb testing.TB, root, out string, mx *verify.Matrix) *Result {
	tb.Helper()
	res, err := Generate(context.Background(), Options{Root: root, Out: out, Matrix: mx,
		Validate: build.Validator(validate.Options{SkipURLs: true, Lean: true})})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func corpusMatrix(tb testing.TB) *verify.Matrix {
	tb.Helper()
	dir := testkit.RequireCorpusPath(tb, "protocol-matrix")
	mx, err := verify.ReadMatrix(filepath.Join(dir, "2026-08-20.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return mx
}

// genTree writes n real-shaped agents with bench/genregistry: the valid
// corpus agents copied round-robin under new ids.
func genTree(tb testing.TB, n int) string {
	tb.Helper()
	src := testcorpus.ValidCopy(tb)
	out := filepath.Join(tb.TempDir(), "reg")
	cmd := exec.Command("go", "run", "github.com/agentclientprotocol/acp-registry-go/bench/genregistry",
		"-n", strconv.Itoa(n), "-out", out, "-corpus", src)
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("genregistry: %v\n%s", err, msg)
	}
	return out
}

// byName are the ids in the index's order: by name ignoring case, then id.
func byName(ms map[string]registry.Manifest) []string {
	ids := sortedKeys(ms)
	sort.SliceStable(ids, func(i, j int) bool {
		return strings.ToLower(ms[ids[i]].Name) < strings.ToLower(ms[ids[j]].Name)
	})
	return ids
}
