package installer

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func runners(names ...string) func(string) (string, error) {
	return func(n string) (string, error) {
		for _, x := range names {
			if x == n {
				return "/usr/bin/" + n, nil
			}
		}
		return "", errors.New("not found")
	}
}

func TestChoose(t *testing.T) {
	bin := map[registry.Platform]registry.BinaryTarget{
		"darwin-aarch64": {Archive: "https://x/a.tgz", Cmd: "a"},
		"linux-x86_64":   {Archive: "https://x/b.tgz", Cmd: "b"},
	}
	npx := &registry.Package{Package: "demo@1.0.0"}
	uvx := &registry.Package{Package: "demo==1.0.0"}
	m := func(d registry.Distribution) *registry.Manifest {
		return &registry.Manifest{ID: "demo", Version: "1.0.0", Distribution: d,
			Preview: &registry.Preview{Version: "1.1.0-preview.1", Distribution: registry.Distribution{Npx: &registry.Package{Package: "demo@1.1.0-preview.1"}}}}
	}
	all := runners("node", "npm", "uv")
	cases := []struct {
		name    string
		d       registry.Distribution
		p       registry.Platform
		want    registry.Kind
		preview bool
		look    func(string) (string, error)
		kind    registry.Kind
		errIs   error
		errText string
	}{
		{name: "binary first", d: registry.Distribution{Binary: bin, Npx: npx}, p: "linux-x86_64", look: all, kind: registry.KindBinary},
		{name: "npx when no binary for the platform", d: registry.Distribution{Binary: bin, Npx: npx}, p: "windows-x86_64", look: all, kind: registry.KindNpx},
		{name: "uvx when node is missing", d: registry.Distribution{Npx: npx, Uvx: uvx}, p: "linux-x86_64", look: runners("uv"), kind: registry.KindUvx},
		{name: "forced npx", d: registry.Distribution{Binary: bin, Npx: npx}, p: "linux-x86_64", want: registry.KindNpx, look: all, kind: registry.KindNpx},
		{name: "npm alone is not enough", d: registry.Distribution{Npx: npx}, p: "linux-x86_64", look: runners("npm"), errIs: ErrRunnerMissing, errText: "needs Node.js (node and npm): install it from https://nodejs.org"},
		{name: "uv missing", d: registry.Distribution{Uvx: uvx}, p: "linux-x86_64", look: runners("node", "npm"), errIs: ErrRunnerMissing, errText: "uvx distribution needs uv"},
		{name: "platforms listed", d: registry.Distribution{Binary: bin}, p: "windows-aarch64", look: all, errIs: ErrNoDistribution, errText: "no binary for windows-aarch64 (binaries exist for darwin-aarch64, linux-x86_64)"},
		{name: "forced kind absent", d: registry.Distribution{Npx: npx}, p: "linux-x86_64", want: registry.KindUvx, look: all, errIs: ErrNoDistribution, errText: "has no uvx distribution (it has: npx)"},
		{name: "preview", d: registry.Distribution{Binary: bin}, p: "linux-x86_64", preview: true, look: all, kind: registry.KindNpx},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			look := tc.look
			if look == nil {
				look = noRunners
			}
			c, err := Choose(m(tc.d), tc.p, ChooseOptions{Dist: tc.want, Preview: tc.preview, LookPath: look})
			if tc.errIs != nil {
				if !errors.Is(err, tc.errIs) || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("err = %v, want %v containing %q", err, tc.errIs, tc.errText)
				}
				return
			}
			if err != nil || c.Kind != tc.kind {
				t.Fatalf("choice = %+v, %v; want %s", c, err, tc.kind)
			}
			if tc.preview && c.Version != "1.1.0-preview.1" {
				t.Errorf("preview version = %s", c.Version)
			}
			if c.Kind == registry.KindBinary && (c.Binary == nil || c.Target != tc.p) {
				t.Errorf("binary choice = %+v", c)
			}
		})
	}
	if _, err := Choose(m(registry.Distribution{Npx: npx}), "linux-x86_64", ChooseOptions{Preview: true, LookPath: all}); err != nil {
		t.Errorf("preview with a preview block: %v", err)
	}
	noPreview := &registry.Manifest{ID: "demo", Version: "1.0.0", Distribution: registry.Distribution{Npx: npx}}
	if _, err := Choose(noPreview, "linux-x86_64", ChooseOptions{Preview: true, LookPath: all}); err == nil || !strings.Contains(err.Error(), "no preview channel") {
		t.Errorf("preview without a block: %v", err)
	}
}

// Every real manifest either yields a choice on every platform or says
// why in a sentence; binary cmds of the corpus parse as paths.
func TestChooseCorpus(t *testing.T) {
	corpus := testkit.RequireCorpus(t)
	dirs, err := registry.ScanRoot(corpus)
	if err != nil {
		t.Fatal(err)
	}
	var agents []registry.Manifest
	for _, d := range dirs {
		data, err := os.ReadFile(d.ManifestPath())
		if err != nil {
			continue
		}
		if m, err := registry.DecodeManifest(data); err == nil { // a few are invalid on purpose
			agents = append(agents, *m)
		}
	}
	if len(agents) < 100 {
		t.Fatalf("corpus has %d decodable agents", len(agents))
	}
	for _, m := range agents {
		for _, p := range registry.Platforms {
			c, err := Choose(&m, p, ChooseOptions{LookPath: runners("node", "npm", "uv")})
			if err != nil {
				if !errors.Is(err, ErrNoDistribution) || !strings.Contains(err.Error(), m.ID) {
					t.Errorf("%s on %s: %v", m.ID, p, err)
				}
				continue
			}
			if c.Kind == registry.KindBinary {
				if _, err := cmdPath(c.Binary.Cmd); err != nil {
					t.Errorf("%s on %s: cmd %q: %v", m.ID, p, c.Binary.Cmd, err)
				}
			}
		}
	}
}

func TestCmdPath(t *testing.T) {
	for in, want := range map[string]string{"./goose": "goose", "goose.exe": "goose.exe", `./goose-package\goose.exe`: "goose-package/goose.exe", "./kiro-cli acp": "kiro-cli acp"} {
		if got, err := cmdPath(in); err != nil || got != want {
			t.Errorf("cmdPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "/bin/sh", "C:\\x.exe", "../x", "a/../../x", "."} {
		if _, err := cmdPath(bad); !errors.Is(err, ErrCmdMissing) {
			t.Errorf("cmdPath(%q) accepted", bad)
		}
	}
}
