package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// Issue 26, item 5: npm's own refusals, with the real npm and a loopback
// npm registry, under the user's real settings (~/.npmrc, npm_config_*):
// code npm-policy naming the setting (and, for the date policies, when
// the version was published), never remembered: once the user lifts the
// setting, the next install works. A postinstall script that cannot
// reach its own host is named, not blamed on npm's registry.
func TestNpmRefusalsNamed(t *testing.T) {
	published := time.Now().Add(-10 * 24 * time.Hour).UTC()
	reg := testkit.NewNpmRegistry(t,
		testkit.NpmPackage{Published: published, Files: map[string]string{
			"package.json": `{"name":"fresh","version":"1.0.0","bin":{"fresh":"index.js"},"engines":{"node":">=99"}}`,
			"index.js":     "#!/usr/bin/env node\n"}},
		testkit.NpmPackage{Published: published, Files: map[string]string{
			"package.json": `{"name":"elsewhere","version":"1.0.0","bin":{"elsewhere":"index.js"},"os":["aix"]}`,
			"index.js":     "#!/usr/bin/env node\n"}},
		testkit.NpmPackage{Published: published, Files: map[string]string{
			"package.json": `{"name":"fetcher","version":"1.0.0","bin":{"fetcher":"index.js"},"scripts":{"postinstall":"node download.js"}}`,
			"download.js":  "require('http').get('http://127.0.0.1:9/agent-binary', () => {}).on('error', e => { console.error('download failed:', e.message); process.exit(1) })\n",
			"index.js":     "#!/usr/bin/env node\n"}},
	)
	realNpm(t, reg)
	t.Setenv("ACP_MANAGED_RUNTIMES", "0") // node 20 stays: engine-strict's case
	npx := func(id string) map[string]any {
		return map[string]any{"id": id, "distribution": map[string]any{"npx": map[string]any{"package": id + "@1.0.0"}}}
	}
	r := "--registry=" + folderRegistry(t, npx("fresh"), npx("elsewhere"), npx("fetcher"))
	npmrc := filepath.Join(os.Getenv("HOME"), ".npmrc")

	os.WriteFile(npmrc, []byte("min-release-age=90\n"), 0o644)
	e := acpJSON(t, cli.CodeNpmPolicy, r, "install", "fresh", "--json")
	day := published.Format("2006-01-02")
	if !strings.Contains(e.Message, "min-release-age=90 ("+npmrc+")") || !strings.Contains(e.Message, "fresh@1.0.0 was published "+day) || !strings.Contains(e.Hint, "npm_config_min_release_age=0") {
		t.Errorf("min-release-age: %+v", e)
	}
	os.WriteFile(npmrc, nil, 0o644)
	t.Setenv("npm_config_before", "2020-01-01")
	e = acpJSON(t, cli.CodeNpmPolicy, r, "install", "fresh", "--json")
	if !strings.Contains(e.Message, "before=2020-01-01 (the environment's npm_config_before)") || !strings.Contains(e.Message, "was published "+day) {
		t.Errorf("before: %+v", e)
	}
	t.Setenv("npm_config_before", "")
	os.Unsetenv("npm_config_before")
	os.WriteFile(npmrc, []byte("engine-strict=true\n"), 0o644)
	e = acpJSON(t, cli.CodeNpmPolicy, r, "install", "fresh", "--json")
	if !strings.Contains(e.Message, "engine-strict=true") || !strings.Contains(e.Message, `{"node":">=99"}`) {
		t.Errorf("engine-strict: %+v", e)
	}
	// Lifted: installed at once, not the remembered refusal.
	os.WriteFile(npmrc, nil, 0o644)
	acpOK(t, r, "install", "fresh")

	e = acpJSON(t, cli.CodeNpmPolicy, r, "install", "elsewhere", "--json")
	if !strings.Contains(e.Message, "EBADPLATFORM") || !strings.Contains(e.Message, "aix") {
		t.Errorf("platform: %+v", e)
	}

	e = acpJSON(t, cli.CodeNetwork, r, "install", "fetcher", "--json")
	if !strings.Contains(e.Message, "the package's install script (node download.js) failed; it could not reach 127.0.0.1:9") || strings.Contains(e.Hint, "npm could not reach its registry") || !strings.Contains(e.Hint, "127.0.0.1:9") {
		t.Errorf("postinstall: %+v", e)
	}
}
