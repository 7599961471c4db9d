package build

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// loadTree reads the test tree the way a consumer of a validated registry
// would, so the rendering tests do not depend on the validator.
func loadTree(t *testing.T, root string) ([]Agent, *validate.Variants) {
	t.Helper()
	dirs, err := registry.ScanRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	var agents []Agent
	ids := map[string]bool{}
	for _, d := range dirs {
		data, err := os.ReadFile(d.ManifestPath())
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		m, err := registry.DecodeManifest(data)
		if err != nil {
			t.Fatalf("%s: %v", d.ManifestPath(), err)
		}
		icon, err := os.ReadFile(d.IconPath())
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, Agent{Manifest: m, Icon: icon})
		ids[m.ID] = true
	}
	var vs *validate.Variants
	if data, err := os.ReadFile(filepath.Join(root, VariantsFile)); err == nil {
		var probs []validate.Problem
		if vs, probs = validate.ParseVariants(VariantsFile, data, ids); len(probs) > 0 {
			t.Fatal(probs)
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

// Every object's fields come in the schema's order, binary targets too;
// empty args and env are kept exactly where the manifest has them.
func TestRenderFieldOrder(t *testing.T) {
	m := &registry.Manifest{ID: "x", Name: "X", Version: "1.0.0", Description: "d", License: "MIT",
		Authors: []string{"A"}, Repository: "https://example.com/r",
		Distribution: registry.Distribution{
			Binary: map[registry.Platform]registry.BinaryTarget{"linux-x86_64": {
				Archive: "https://example.com/x.tar.gz?a=1&b=2", Cmd: "x", SHA256: strings.Repeat("a", 64),
				Args: []string{}, Env: map[string]string{"B": "2", "A": "1"}}},
			Npx: &registry.Package{Package: "x@1.0.0", Args: []string{"--acp"}},
		}}
	files, err := Render([]Agent{{m, []byte("<svg/>")}}, nil, "https://cdn.example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": "1.0.0",
  "agents": [
    {
      "id": "x",
      "name": "X",
      "version": "1.0.0",
      "description": "d",
      "repository": "https://example.com/r",
      "authors": [
        "A"
      ],
      "license": "MIT",
      "icon": "https://cdn.example.com/x.svg",
      "distribution": {
        "binary": {
          "linux-x86_64": {
            "archive": "https://example.com/x.tar.gz?a=1&b=2",
            "sha256": "` + strings.Repeat("a", 64) + `",
            "cmd": "x",
            "args": [],
            "env": {
              "A": "1",
              "B": "2"
            }
          }
        },
        "npx": {
          "package": "x@1.0.0",
          "args": [
            "--acp"
          ]
        }
      }
    }
  ],
  "extensions": []
}
`
	if got := string(files[IndexFile]); got != want {
		t.Errorf("registry.json =\n%s\nwant\n%s", got, want)
	}
}

// The string encoder writes what encoding/json writes with HTML escaping
// off, for every kind of character a manifest may hold.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s", "<a&b>", "tab\tnl\ncr\r", "\x00\x1f\x7f", "\u2028\u2029", "bad\xffutf8", "é漢字🙂", "\u202e"} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if got := string(appendString(nil, s)); got+"\n" != want.String() {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want.String())
		}
	}
}
