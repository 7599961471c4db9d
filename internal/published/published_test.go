package published

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// registries serves a packument for @scope/agent and a PyPI project
// py-agent on loopback.
func registries(t *testing.T) *Finder {
	t.Helper()
	sri := "sha512-" + strings.Repeat("A", 86) + "=="
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.EscapedPath() {
		case "/@scope%2Fagent":
			json.NewEncoder(w).Encode(map[string]any{"name": "@scope/agent", "versions": map[string]any{
				"1.0.0":      map[string]any{"dist": map[string]any{"integrity": sri}},
				"1.2.0":      map[string]any{"dist": map[string]any{"integrity": sri}},
				"2.0.0-rc.1": map[string]any{"dist": map[string]any{"integrity": sri}},
				"0.9.0":      map[string]any{"dist": map[string]any{"shasum": "abc"}}, // no integrity
			}})
		case "/pypi/py-agent/json":
			file := func(name, sum string, yanked bool) map[string]any {
				return map[string]any{"filename": name, "yanked": yanked, "digests": map[string]any{"sha256": sum}}
			}
			json.NewEncoder(w).Encode(map[string]any{"info": map[string]any{"name": "py-agent", "version": "0.3.0"}, "releases": map[string]any{
				"0.3.0": []any{file("py_agent-0.3.0-py3-none-any.whl", strings.Repeat("a", 64), false)},
				"0.2.0": []any{file("py_agent-0.2.0.tar.gz", strings.Repeat("b", 64), false), file("py_agent-0.2.0-py3-none-any.whl", strings.Repeat("c", 64), false)},
				"0.1.0": []any{file("py_agent-0.1.0.tar.gz", strings.Repeat("d", 64), true)},
			}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return &Finder{Remote: &remote.Client{NPMRegistry: srv.URL + "/", PyPIURL: srv.URL + "/", Attempts: 1}}
}

func manifest() *registry.Manifest {
	return &registry.Manifest{ID: "agent", Version: "1.2.0", Distribution: registry.Distribution{
		Npx: &registry.Package{Package: "@scope/agent@1.2.0", Args: []string{"--acp"}},
		Uvx: &registry.Package{Package: "py-agent[extra]==0.3.0"},
		Binary: map[registry.Platform]registry.BinaryTarget{
			"linux-x86_64": {Archive: "https://example.invalid/a.tar.gz", Cmd: "./a", SHA256: strings.Repeat("e", 64)},
		},
	}}
}

// A version only npm publishes: the manifest's npx package re-pointed,
// npm's integrity kept, binaries dropped; PyPI's version of the same
// number is absent, so uvx is dropped too.
func TestReleaseAtAPublishedVersion(t *testing.T) {
	f := registries(t)
	rel, err := f.Release(context.Background(), manifest(), "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if !rel.Off() || rel.Manifest.Version != "1.0.0" || rel.Manifest.Distribution.Npx.Package != "@scope/agent@1.0.0" || rel.Manifest.Distribution.Npx.Args[0] != "--acp" {
		t.Fatalf("release %+v %+v", rel, rel.Manifest.Distribution.Npx)
	}
	if rel.Manifest.Distribution.Binary != nil || rel.Manifest.Distribution.Uvx != nil || rel.Binary != nil {
		t.Fatalf("binary or uvx kept at a version their index does not give: %+v", rel.Manifest.Distribution)
	}
	if !strings.HasPrefix(rel.Npx.Integrity, "sha512-") {
		t.Fatalf("integrity %q", rel.Npx.Integrity)
	}
}

// A PyPI release: each file's sha256, yanked files left out, extras kept.
func TestReleaseFromPyPI(t *testing.T) {
	f := registries(t)
	rel, err := f.Release(context.Background(), manifest(), "0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	if rel.Uvx == nil || rel.Uvx.Package != "py-agent[extra]==0.2.0" || len(rel.Uvx.SHA256) != 2 || rel.Npx != nil {
		t.Fatalf("release %+v", rel.Uvx)
	}
	_, err = f.Release(context.Background(), manifest(), "0.1.0")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrVersionNotFound) {
		t.Fatalf("a wholly yanked release: %v", err)
	}
}

// The registry's own version keeps its binaries with their sha256.
func TestReleaseAtTheRegistrysVersion(t *testing.T) {
	rel, err := registries(t).Release(context.Background(), manifest(), "1.2.0")
	if err != nil {
		t.Fatal(err)
	}
	if rel.Off() || rel.Channel != "stable" || rel.Binary["linux-x86_64"] != strings.Repeat("e", 64) || rel.Npx == nil {
		t.Fatalf("release %+v", rel)
	}
}

// Unknown versions name where acp looked and what exists; a version npm
// gives without integrity is refused (acp installs only bytes it can
// check); a binary-only agent names the registry's versions.
func TestReleaseRefusals(t *testing.T) {
	f := registries(t)
	_, err := f.Release(context.Background(), manifest(), "7.0.0")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "npm package @scope/agent or PyPI project py-agent") || !strings.Contains(nf.Hint(), "1.2.0") {
		t.Fatalf("unknown version: %v", err)
	}
	m := manifest()
	m.Distribution.Uvx = nil
	if _, err := f.Release(context.Background(), m, "0.9.0"); err == nil || !strings.Contains(err.Error(), "no sha512 integrity") {
		t.Fatalf("no integrity: %v", err)
	}
	m.Distribution.Npx = nil
	_, err = f.Release(context.Background(), m, "1.0.0")
	if !errors.As(err, &nf) || !nf.BinaryOnly || err.Error() != "agent@1.0.0: the registry offers agent 1.2.0 only" {
		t.Fatalf("binary only: %v", err)
	}
}

func TestNewestWithinARange(t *testing.T) {
	vs, err := registries(t).Versions(context.Background(), manifest())
	if err != nil {
		t.Fatal(err)
	}
	for rng, want := range map[string]string{"^1.0.0": "1.2.0", "~1.0": "1.0.0", "1.0.0": "1.0.0", ">=2.0.0-rc.0": "2.0.0-rc.1", "^3": "", "*": "1.2.0", "0.2.0": "0.2.0"} {
		got, err := Newest(vs, rng)
		if err != nil || got != want {
			t.Errorf("Newest(%q) = %q, %v; want %q", rng, got, err, want)
		}
	}
	if _, err := Newest(vs, "not a range!"); err == nil {
		t.Error("a bad range was accepted")
	}
}
