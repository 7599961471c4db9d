package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// oldEnginePackage is an npm package whose engines.node no node here
// meets (>=99), with one JavaScript bin.
func oldEnginePackage(name, version string, published time.Time) testkit.NpmPackage {
	return testkit.NpmPackage{Published: published, Files: map[string]string{
		"package.json": `{"name":"` + name + `","version":"` + version + `","bin":{"` + name + `":"index.js"},"engines":{"node":">=99"}}`,
		"index.js":     "#!/usr/bin/env node\nconsole.log('hello')\n",
	}}
}

// realNpm sets up acp to install npx agents with this machine's real
// node and npm from a loopback npm registry, in a HOME of its own.
func realNpm(t *testing.T, reg *testkit.NpmRegistry) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real npm (seconds)")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm not installed")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not installed")
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if l := strings.ToLower(k); strings.HasPrefix(l, "npm_config_") || strings.HasSuffix(l, "_proxy") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("PATH", filepath.Dir(npm)+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("npm_config_registry", reg.URL+"/")
}

// Issue 26, "Done when": node here is older than the agent's
// engines.node and nodejs.org cannot be reached. The install records
// the machine's node (with a warning); then resolve of the installed agent,
// five times in a row with a mirror that refuses and five with one that
// takes connections and never answers, asks the mirror nothing and shows
// no download.
func TestInstalledNpxResolvesWithoutTheNetwork(t *testing.T) {
	reg := testkit.NewNpmRegistry(t, oldEnginePackage("old-engine", "1.0.0", time.Now().Add(-400*24*time.Hour)))
	realNpm(t, reg)
	refusing, refused := testkit.DeadServer(t, testkit.Refuses)
	t.Setenv(installer.EnvNodeMirror, refusing)
	r := "--registry=" + folderRegistry(t, map[string]any{"id": "old-engine", "distribution": map[string]any{"npx": map[string]any{"package": "old-engine@1.0.0"}}})

	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{r, "install", "old-engine", "--progress", "json"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, stderr.String())
	}
	if refused() == 0 || !strings.Contains(stderr.String(), "asks for node") {
		t.Fatalf("the install did not try the mirror and fall back to the old node (the test's premise):\n%s", stderr.String())
	}
	hanging, answered := testkit.DeadServer(t, testkit.Hangs)
	for _, m := range []struct {
		url   string
		conns func() int64
	}{{refusing, refused}, {hanging, answered}} {
		t.Setenv(installer.EnvNodeMirror, m.url)
		before := m.conns()
		for i := range 5 {
			stdout.Reset()
			stderr.Reset()
			if code := run(context.Background(), []string{r, "resolve", "old-engine", "--json", "--progress", "json"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
				t.Fatalf("resolve %d: exit %d\n%s", i+1, code, stderr.String())
			}
			var spec installer.LaunchSpec
			if err := json.Unmarshal(stdout.Bytes(), &spec); err != nil || filepath.Base(spec.Command) != "node" || len(spec.Warnings) != 1 {
				t.Errorf("resolve %d: %v\n%s", i+1, err, stdout.String())
			}
			if strings.Contains(stderr.String(), `"phase"`) {
				t.Errorf("resolve %d with %s reported progress:\n%s", i+1, m.url, stderr.String())
			}
		}
		if n := m.conns() - before; n != 0 {
			t.Errorf("five resolves made %d connections to the mirror %s", n, m.url)
		}
	}
}
