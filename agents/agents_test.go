package agents

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/icons"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// ids lists the agent folders in FS.
func ids(t *testing.T) []string {
	t.Helper()
	entries, err := fs.ReadDir(FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestEmbeddedRegistry(t *testing.T) {
	got := ids(t)
	// The agents the binaries promise to know offline, one of each kind.
	for _, want := range []string{"claude-agent", "gemini", "qwen-code", "github-copilot", "auggie", "octomind", "fast-agent"} {
		found := false
		for _, id := range got {
			found = found || id == want
		}
		if !found {
			t.Errorf("agent %s is not embedded", want)
		}
	}
	kinds := map[registry.Kind]bool{}
	for _, id := range got {
		t.Run(id, func(t *testing.T) {
			data, err := fs.ReadFile(FS, path.Join(id, registry.ManifestFile))
			if err != nil {
				t.Fatalf("read manifest: %v", err)
			}
			m, err := registry.DecodeManifest(data)
			if err != nil {
				t.Fatalf("decode %s/agent.json: %v", id, err)
			}
			if m.ID != id {
				t.Errorf("%s/agent.json has id %q", id, m.ID)
			}
			if m.Name == "" || m.Description == "" || m.Repository == "" || m.License == "" || m.LicenseURL == "" || len(m.Authors) == 0 {
				t.Errorf("%s/agent.json lacks name, description, repository, license, license_url or authors", id)
			}
			if len(m.Distribution.Kinds()) == 0 {
				t.Errorf("%s/agent.json has no distribution", id)
			}
			if !registry.StrictVersion(m.Version) {
				t.Errorf("%s: version %q is not X.Y.Z", id, m.Version)
			}
			for _, k := range m.Distribution.Kinds() {
				kinds[k] = true
				pkg := m.Distribution.PackageFor(k)
				if pkg == nil {
					continue
				}
				spec, err := registry.ParsePackage(k, pkg.Package)
				if err != nil {
					t.Errorf("%s: %s package: %v", id, k, err)
				} else if spec.Version != m.Version {
					t.Errorf("%s: %s package %q is not pinned to %s", id, k, pkg.Package, m.Version)
				}
			}
			// Our own files are written the one way the build writes:
			// 2-space indent, final newline.
			var want bytes.Buffer
			if err := json.Indent(&want, bytes.TrimSpace(data), "", "  "); err != nil {
				t.Fatal(err)
			}
			want.WriteByte('\n')
			if !bytes.Equal(data, want.Bytes()) {
				t.Errorf("%s/agent.json is not 2-space indented JSON with a final newline", id)
			}

			svg, err := fs.ReadFile(FS, path.Join(id, registry.IconFile))
			if err != nil {
				t.Fatalf("read icon: %v", err)
			}
			for _, p := range icons.Check(svg) {
				t.Errorf("%s/icon.svg:%d:%d: %s: %s", id, p.Line, p.Column, p.Rule, p.Message)
			}
		})
	}
	for _, k := range registry.Kinds {
		if !kinds[k] {
			t.Errorf("no embedded agent uses %s", k)
		}
	}
}

// The binary agent pins a checksum for every platform, so an offline
// install from the embedded registry is verified end to end.
func TestBinaryAgentPinsEveryTarget(t *testing.T) {
	data, err := fs.ReadFile(FS, "octomind/agent.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := registry.DecodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Distribution.Binary) != 6 {
		t.Errorf("octomind has %d binary targets, want all 6", len(m.Distribution.Binary))
	}
	for p, tg := range m.Distribution.Binary {
		if !p.Known() {
			t.Errorf("unknown platform %q", p)
		}
		if len(tg.SHA256) != 64 {
			t.Errorf("%s: sha256 %q is not 64 hex digits", p, tg.SHA256)
		}
	}
}
