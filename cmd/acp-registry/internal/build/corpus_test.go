package build

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testcorpus"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

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

// The public registry's JetBrains indexes come from data alone: the
// corpus built with testdata/upstream/variants.json gives, value for
// value, the three indexes upstream's newest build_registry.py writes for
// the same tree (testdata/upstream/README.md says how they were derived).
func TestBuildCorpusWithUpstreamVariants(t *testing.T) {
	root := testcorpus.ValidCopy(t)
	variants, err := os.ReadFile(filepath.Join("testdata", "upstream", VariantsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, VariantsFile), variants, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dist")
	res, err := Build(context.Background(), buildOpts(root, out))
	if err != nil {
		var buf bytes.Buffer
		if res != nil && res.Report != nil {
			validate.WriteText(&buf, res.Report, validate.TextOptions{})
		}
		t.Fatalf("%v\n%s", err, buf.String())
	}
	first := readAll(t, out)
	for _, name := range []string{IndexFile, "registry-for-jetbrains.json", "registry-for-jetbrains-preview.json"} {
		want, err := os.ReadFile(filepath.Join("testdata", "upstream", name))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := first[name]
		if !ok {
			t.Errorf("dist has no %s", name)
			continue
		}
		g, w := decodeJSON(t, got), decodeJSON(t, want)
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.MarshalIndent(g, "", " ")
			wj, _ := json.MarshalIndent(w, "", " ")
			t.Errorf("%s differs from upstream's:\n%s", name, firstDiff(string(gj), string(wj)))
		}
	}
	// Ours also writes registry-preview.json: the main index from the
	// preview merge (claude-acp's 0.85.2-preview.22).
	if !bytes.Contains(first[PreviewIndexFile], []byte(`"@agentclientprotocol/claude-agent-acp@0.85.2-preview.22"`)) {
		t.Errorf("%s lacks claude-acp's preview", PreviewIndexFile)
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if _, ok := first[e.Name()+".svg"]; e.IsDir() && !ok {
			t.Errorf("dist lacks %s.svg (excluded agents keep their icon)", e.Name())
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
