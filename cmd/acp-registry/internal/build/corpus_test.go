package build

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// upstreamVariants reproduces, as data, the indexes the public registry's
// build writes in code: github-copilot left out of the main index, and a
// JetBrains index (stable and preview) without three agents, whose
// claude-acp entry hides Claude's own login and is marked bundled.
const upstreamVariants = `{
  "registry": {"exclude": ["github-copilot"]},
  "for-jetbrains": {
    "exclude": ["codex-acp", "junie", "github-copilot-cli"],
    "channels": ["stable", "preview"],
    "fields": ["bundled"],
    "patch": {
      "claude-acp": {"distribution": {"npx": {"args": ["--hide-claude-auth"], "bundled": true}}}
    }
  }
}
`

// The corpus holds agents that break rules, and a build refuses a registry
// with errors; the test builds a copy of the corpus restricted to the
// agents that validate (the agents the public registry actually ships).
func validCorpusCopy(t *testing.T) string {
	t.Helper()
	corpus := testkit.RequireCorpus(t)
	rep, err := validate.Run(context.Background(), []string{corpus}, validate.Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	n := 0
	for _, a := range rep.Agents {
		if !a.Valid || a.Manifest == nil {
			continue
		}
		for _, f := range []string{registry.ManifestFile, registry.IconFile} {
			data, err := os.ReadFile(filepath.Join(a.Path, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(root, a.ID), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, a.ID, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d of %d corpus agents are valid: the validator or the corpus changed", n, len(rep.Agents))
	}
	return root
}

func decodeJSON(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// expectedEntry is an agent as the spec describes its index entry, worked
// out from agent.json independently of the build's code: known fields
// only, icon at the base URL, no preview, and with preview a strictly
// newer preview's version and distribution.
func expectedEntry(t *testing.T, root, id string, preview bool) map[string]any {
	data, err := os.ReadFile(filepath.Join(root, id, registry.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m := decodeJSON(t, data).(map[string]any)
	known := map[string]bool{"id": true, "name": true, "version": true, "description": true, "repository": true,
		"website": true, "authors": true, "license": true, "license_url": true, "distribution": true}
	for k := range m {
		if !known[k] && k != "preview" {
			delete(m, k)
		}
	}
	m["icon"] = "https://cdn.example.com/v1/" + id + ".svg"
	if p, ok := m["preview"].(map[string]any); ok {
		if preview && registry.Newer(p["version"].(string), m["version"].(string)) {
			m["version"] = p["version"]
			m["distribution"] = p["distribution"]
		}
		delete(m, "preview")
	}
	return m
}

func TestBuildCorpusWithUpstreamVariants(t *testing.T) {
	root := validCorpusCopy(t)
	if err := os.WriteFile(filepath.Join(root, VariantsFile), []byte(upstreamVariants), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dist")
	res, err := Build(context.Background(), buildOpts(root, out))
	if err != nil {
		var buf bytes.Buffer
		if res != nil && res.Report != nil {
			validate.WriteText(&buf, res.Report, false)
		}
		t.Fatalf("%v\n%s", err, buf.String())
	}
	first := readAll(t, out)
	var ids []string
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)

	indexes := map[string]struct {
		exclude    []string
		preview    bool
		jetbrains  bool
		extensions bool
	}{
		IndexFile:                             {[]string{"github-copilot"}, false, false, true},
		PreviewIndexFile:                      {[]string{"github-copilot"}, true, false, true},
		"registry-for-jetbrains.json":         {[]string{"codex-acp", "junie", "github-copilot-cli"}, false, true, false},
		"registry-for-jetbrains-preview.json": {[]string{"codex-acp", "junie", "github-copilot-cli"}, true, true, false},
	}
	for name, want := range indexes {
		var agents []any
		for _, id := range ids {
			if contains(want.exclude, id) {
				continue
			}
			e := expectedEntry(t, root, id, want.preview)
			if want.jetbrains && id == "claude-acp" {
				npx := e["distribution"].(map[string]any)["npx"].(map[string]any)
				npx["args"] = []any{"--hide-claude-auth"}
				npx["bundled"] = true
			}
			agents = append(agents, e)
		}
		doc := map[string]any{"version": "1.0.0", "agents": agents}
		if want.extensions {
			doc["extensions"] = []any{}
		}
		data, ok := first[name]
		if !ok {
			t.Errorf("dist has no %s", name)
			continue
		}
		got := decodeJSON(t, data)
		if !reflect.DeepEqual(got, doc) {
			g, _ := json.MarshalIndent(got, "", " ")
			w, _ := json.MarshalIndent(doc, "", " ")
			t.Errorf("%s differs from the expected index:\n%s", name, firstDiff(string(g), string(w)))
		}
	}
	// claude-acp's preview (0.85.2-preview.22) reaches both preview indexes.
	for _, name := range []string{PreviewIndexFile, "registry-for-jetbrains-preview.json"} {
		if !bytes.Contains(first[name], []byte(`"@agentclientprotocol/claude-agent-acp@0.85.2-preview.22"`)) {
			t.Errorf("%s lacks claude-acp's preview", name)
		}
	}
	for _, id := range ids {
		if _, ok := first[id+".svg"]; !ok {
			t.Errorf("dist lacks %s.svg (excluded agents keep their icon)", id)
		}
	}
	checkDistSchemas(t, out)

	if _, err := Build(context.Background(), buildOpts(root, out)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, readAll(t, out)) {
		t.Error("a second build of the corpus is not byte-identical")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			lo := max(0, i-5)
			return "got:\n" + strings.Join(g[lo:min(len(g), i+5)], "\n") + "\nwant:\n" + strings.Join(w[lo:min(len(w), i+5)], "\n")
		}
	}
	return "lengths differ"
}

// checkDistSchemas validates every index in dir against the
// registry.schema.json in dir, resolving its reference to
// agent.schema.json to the file in dir as well.
func checkDistSchemas(t *testing.T, dir string) {
	t.Helper()
	c := jsonschema.NewCompiler()
	for _, f := range []string{IndexSchemaFile, AgentSchemaFile} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(DefaultBaseURL+"/"+f, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	sch, err := c.Compile(DefaultBaseURL + "/" + IndexSchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "registry*.json"))
	n := 0
	for _, p := range names {
		if filepath.Base(p) == IndexSchemaFile {
			continue
		}
		data, _ := os.ReadFile(p)
		if err := sch.Validate(decodeJSON(t, data)); err != nil {
			t.Errorf("%s does not satisfy the registry.schema.json beside it: %v", filepath.Base(p), err)
		}
		n++
	}
	if n < 2 {
		t.Errorf("only %d indexes in %s", n, dir)
	}
}
