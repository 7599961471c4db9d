package build

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// loadTree reads the test tree the way a consumer of a validated registry
// would, so the rendering tests do not depend on the validator.
func loadTree(t *testing.T, root string) ([]Agent, *Variants) {
	t.Helper()
	idx, err := registry.LoadTree(root)
	if err != nil {
		t.Fatal(err)
	}
	var agents []Agent
	var ids []string
	for i := range idx.Agents {
		m := idx.Agents[i]
		icon, err := os.ReadFile(filepath.Join(root, m.ID, registry.IconFile))
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, Agent{Manifest: &m, Icon: icon})
		ids = append(ids, m.ID)
	}
	var vs *Variants
	if data, err := os.ReadFile(filepath.Join(root, VariantsFile)); err == nil {
		if vs, err = ParseVariants(VariantsFile, data, ids); err != nil {
			t.Fatal(err)
		}
	}
	return agents, vs
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./build -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file (go test ./build -update after checking the diff):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestRenderGolden(t *testing.T) {
	agents, vs := loadTree(t, "testdata/tree")
	files, err := Render(agents, vs, "https://cdn.example.com/v1/", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alpha.svg", "beta.svg", "gamma.svg", "registry-jetbrains.json", "registry-preview.json", "registry.json"}
	if got := files.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("files = %v, want %v", got, want)
	}
	for _, n := range []string{IndexFile, PreviewIndexFile, "registry-jetbrains.json"} {
		golden(t, n, files[n])
	}
}

func TestRenderContent(t *testing.T) {
	agents, vs := loadTree(t, "testdata/tree")
	files, err := Render(agents, vs, "https://cdn.example.com/v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := string(files[IndexFile])
	for _, bad := range []string{`"homepage"`, `"preview"`, `\u0026`, `\u003c`, "./icon.svg"} {
		if strings.Contains(reg, bad) {
			t.Errorf("registry.json contains %q", bad)
		}
	}
	if !strings.HasSuffix(reg, "}\n") || strings.HasSuffix(reg, "\n\n") {
		t.Error("registry.json must end in exactly one newline")
	}
	idx, err := registry.ParseIndex(files[IndexFile])
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range idx.Agents {
		ids = append(ids, a.ID)
		if a.Icon != "https://cdn.example.com/v1/"+a.ID+".svg" {
			t.Errorf("%s icon = %q", a.ID, a.Icon)
		}
	}
	if !reflect.DeepEqual(ids, []string{"alpha", "beta", "gamma"}) {
		t.Errorf("ids = %v, want sorted", ids)
	}

	pv, err := registry.ParseIndex(files[PreviewIndexFile])
	if err != nil {
		t.Fatal(err)
	}
	beta, _ := pv.Find("beta")
	if beta.Version != "1.0.0-preview.2" || beta.Distribution.Npx.Package != "@example/beta@1.0.0-preview.2" {
		t.Errorf("preview index did not promote beta's newer preview: %+v", beta)
	}
	gamma, _ := pv.Find("gamma")
	if gamma.Version != "2.0.0" {
		t.Errorf("preview index promoted gamma's older preview: %s", gamma.Version)
	}

	jb, err := registry.ParseIndex(files["registry-jetbrains.json"])
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := jb.Find("gamma"); ok {
		t.Error("jetbrains variant still lists the excluded agent")
	}
	b, _ := jb.Find("beta")
	if b.Website != "" || !reflect.DeepEqual(b.Distribution.Npx.Args, []string{"--acp", "--jetbrains"}) ||
		b.Distribution.Npx.Env["BETA_IDE"] != "jetbrains" || b.Distribution.Npx.Package != "@example/beta@0.9.0" {
		t.Errorf("jetbrains patch not applied as a merge patch: %+v", b)
	}
}

func TestRenderDeterministic(t *testing.T) {
	agents, vs := loadTree(t, "testdata/tree")
	a, err := Render(agents, vs, DefaultBaseURL, map[string][]byte{"agent.schema.json": []byte("{}\n")})
	if err != nil {
		t.Fatal(err)
	}
	rev := make([]Agent, len(agents))
	for i := range agents {
		rev[len(agents)-1-i] = agents[i]
	}
	for i := 0; i < 20; i++ { // map iteration order differs between runs
		b, err := Render(rev, vs, DefaultBaseURL, map[string][]byte{"agent.schema.json": []byte("{}\n")})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatal("rendering the same agents twice gave different bytes")
		}
	}
}

func TestRenderRefusesDuplicatesAndMissingIcons(t *testing.T) {
	m := &registry.Manifest{ID: "x", Name: "X", Version: "1.0.0", Description: "d"}
	if _, err := Render([]Agent{{m, []byte("<svg/>")}, {m, []byte("<svg/>")}}, nil, "", nil); err == nil || !strings.Contains(err.Error(), `"x" appears twice`) {
		t.Errorf("duplicate ids: err = %v", err)
	}
	if _, err := Render([]Agent{{m, nil}}, nil, "", nil); err == nil || !strings.Contains(err.Error(), "icon.svg") {
		t.Errorf("missing icon: err = %v", err)
	}
}

func TestParseVariantsErrors(t *testing.T) {
	ids := []string{"alpha", "beta"}
	for _, tc := range []struct{ json, want string }{
		{`[]`, "object keyed by variant name"},
		{`{"Bad Name": {}}`, `variant name "Bad Name"`},
		{`{"preview": {}}`, `not be "preview"`},
		{`{"jb": {"exclude": ["nope"]}}`, `excludes "nope", which is not an agent`},
		{`{"jb": {"patch": {"nope": {}}}}`, `patches "nope"`},
		{`{"jb": {"patch": {"beta": []}}}`, "/jb/patch/beta must be an object"},
		{`{"jb": {"remove": ["beta"]}}`, `unknown field "remove"`},
		// No bare encoding/json errors: a position, or the file's terms.
		{`garbage`, "line 1, column 1: unexpected character 'g'"},
		{``, "line 1, column 1: unexpected end of file"},
		{`null`, "object keyed by variant name"},
		{`{"jb": {}, "jb": {}}`, `duplicate key "jb"`},
		{`{"jb": {"exclude": "beta"}}`, `"exclude" has the wrong type`},
		{`{"jb": []}`, `not an object`},
	} {
		_, err := ParseVariants("agents/variants.json", []byte(tc.json), ids)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "agents/variants.json") || strings.Contains(err.Error(), " json: ") || strings.Contains(err.Error(), "Go ") {
			t.Errorf("%s: err = %v, want it to name the file and contain %q", tc.json, err, tc.want)
		}
	}
}

func TestVariantPatchMustStayAManifest(t *testing.T) {
	agents, _ := loadTree(t, "testdata/tree")
	ids := []string{"alpha", "beta", "gamma"}
	for _, tc := range []struct{ patch, want string }{
		{`{"beta": {"tags": ["x"]}}`, `unknown field "tags"`},
		{`{"beta": {"id": "other"}}`, `may not change "id"`},
		{`{"beta": {"version": 3}}`, "at /version: expected string, but got number"},
		{`{"beta": {"distribution": null}}`, "missing properties: 'distribution'"},
		{`{"beta": {"name": ""}}`, "breaks agent.schema.json"},
	} {
		vs, err := ParseVariants("variants.json", []byte(`{"jb": {"patch": `+tc.patch+`}}`), ids)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Render(agents, vs, "", nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `patch of "beta"`) {
			t.Errorf("%s: err = %v, want %q", tc.patch, err, tc.want)
		}
	}
}

// The examples of RFC 7386, appendix A.
func TestMergePatchRFC7386(t *testing.T) {
	for _, tc := range []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	} {
		var target, patch any
		json.Unmarshal([]byte(tc.target), &target)
		json.Unmarshal([]byte(tc.patch), &patch)
		got, _ := json.Marshal(MergePatch(target, patch))
		if string(got) != tc.want {
			t.Errorf("merge %s with %s = %s, want %s", tc.target, tc.patch, got, tc.want)
		}
	}
}

// joinIndex must give exactly what encoding a registry.Index gives.
func TestJoinIndexMatchesEncoder(t *testing.T) {
	agents, _ := loadTree(t, "testdata/tree")
	for n := 0; n <= len(agents); n++ {
		var ms []registry.Manifest
		var chunks [][]byte
		for _, a := range agents[:n] {
			ms = append(ms, *a.Manifest)
			b, err := encodeAgent(*a.Manifest)
			if err != nil {
				t.Fatal(err)
			}
			chunks = append(chunks, b)
		}
		if ms == nil {
			ms = []registry.Manifest{}
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(registry.Index{Version: registry.IndexVersion, Agents: ms, Extensions: []json.RawMessage{}})
		if got := joinIndex(chunks); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%d agents:\n%s\nwant\n%s", n, got, want.Bytes())
		}
	}
}
