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

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/e2e"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// TestE2EProjectPinsAnOlderPiACP is issue 29's end to end with the real
// npm registry: a project pins pi-acp below the registry's version, acp
// lock records npm's integrity, acp install in a fresh ACP_HOME installs
// exactly that version, resolve in the project (found from the working
// directory) launches it and it answers initialize; outside the project
// the registry's version runs. The registry is the corpus's pi-acp at
// npm's newest version, as the registry's update job keeps it.
func TestE2EProjectPinsAnOlderPiACP(t *testing.T) {
	e2e.RequireNPM(t)
	manifestPath := testkit.RequireCorpusPath(t, "registry", "pi-acp", "agent.json")
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	var m registry.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	spec, err := registry.ParseNPM(m.Distribution.Npx.Package)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := (&remote.Client{}).NPMPackument(ctx, spec.Name)
	if err != nil {
		t.Fatal(err)
	}
	latest := doc.DistTags["latest"]
	older := ""
	for v := range doc.Versions {
		if registry.Newer(latest, v) && !registry.IsPrerelease(v) && (older == "" || registry.Newer(older, v)) {
			older = v
		}
	}
	if latest == "" || older == "" {
		t.Fatalf("npm publishes no version of %s older than %q", spec.Name, latest)
	}
	m.Version = latest
	m.Distribution.Npx.Package = spec.Name + "@" + latest
	dir := t.TempDir()
	idx, _ := json.Marshal(map[string]any{"version": "1.0.0", "agents": []any{m}, "extensions": []any{}})
	regPath := filepath.Join(dir, "registry.json")
	if err := os.WriteFile(regPath, idx, 0o644); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(dir, "project")
	outside := filepath.Join(dir, "elsewhere")
	for _, d := range []string{filepath.Join(proj, "src"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home-1")
	acp := func(cwd string, args ...string) string {
		t.Helper()
		cmd := exec.Command(os.Args[0], args...)
		cmd.Dir = cwd
		cmd.Env = append(os.Environ(), "ACP_TEST_MAIN=1", "ACP_HOME="+home, "ACP_REGISTRY="+regPath)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("acp %s (in %s): %v\n%s", strings.Join(args, " "), cwd, err, stderr.String())
		}
		return stdout.String()
	}
	acp(proj, "add", "pi-acp@"+older)
	acp(proj, "lock")
	lock, _ := os.ReadFile(filepath.Join(proj, "acp.lock"))
	if !strings.Contains(string(lock), `"version": "`+older+`"`) || !strings.Contains(string(lock), `"integrity": "sha512-`) {
		t.Fatalf("acp.lock:\n%s", lock)
	}

	home = filepath.Join(dir, "home-2") // a fresh machine with the repository
	acp(proj, "install")
	entries, _ := os.ReadDir(filepath.Join(home, "agents", "pi-acp"))
	var versions []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			versions = append(versions, e.Name())
		}
	}
	if len(versions) != 1 || versions[0] != older {
		t.Fatalf("acp install in the project installed %v, want exactly [%s]", versions, older)
	}

	resolve := func(cwd string) installer.LaunchSpec {
		var s installer.LaunchSpec
		out := acp(cwd, "resolve", "pi-acp", "--json")
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("resolve --json: %v\n%s", err, out)
		}
		return s
	}
	in := resolve(filepath.Join(proj, "src")) // a subfolder: acp.json is found in a parent
	if in.Version != older {
		t.Fatalf("resolve in the project launched %s, want the pinned %s", in.Version, older)
	}
	e2e.InitializeWithoutPath(ctx, t, in.Command, in.Args, in.Env)

	out := resolve(outside)
	if out.Version != latest {
		t.Fatalf("resolve outside the project launched %s, want the registry's %s", out.Version, latest)
	}
	e2e.InitializeWithoutPath(ctx, t, out.Command, out.Args, out.Env)
}
