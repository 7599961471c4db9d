package runtimes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func TestEngineRanges(t *testing.T) {
	cases := []struct {
		rng, v string
		ok     bool
	}{
		{">=22", "22.0.0", true},
		{">=22", "20.19.0", false},
		{"^20.19.0 || >=22.12.0", "20.19.5", true},
		{"^20.19.0 || >=22.12.0", "22.11.0", false},
		{"^20.19.0 || >=22.12.0", "23.1.0", true},
		{">=18.0.0 <19", "18.20.0", true},
		{">=18.0.0 <19", "20.0.0", false},
		{"18.x", "18.1.0", true},
		{">=22", "23.0.0-nightly2024", true},
		{"", "1.0.0", true},
		{"not a range", "1.0.0", true}, // npm only warns about what it cannot read
	}
	for _, c := range cases {
		v, err := semver.NewVersion(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := satisfiesEngine(engineConstraint(c.rng), v); got != c.ok {
			t.Errorf("%q satisfied by %s = %v, want %v", c.rng, c.v, got, c.ok)
		}
	}
}

func TestNodeSearchLocations(t *testing.T) {
	env := map[string]string{"APPDATA": `C:\Users\me\AppData\Roaming`, "ProgramFiles": `C:\Program Files`}
	win := strings.Join(NodeSearch("windows", `C:\Users\me`, func(k string) string { return env[k] }), "\n")
	for _, want := range []string{filepath.Join(`C:\Program Files`, "nodejs", "node.exe"), filepath.Join(`C:\Users\me\AppData\Roaming`, "nvm", "*", "node.exe")} {
		if !strings.Contains(win, want) {
			t.Errorf("windows search lacks %s:\n%s", want, win)
		}
	}
	mac := strings.Join(NodeSearch("darwin", "/Users/me", func(string) string { return "" }), "\n")
	for _, want := range []string{"/Users/me/.nvm/versions/node/*/bin/node", "/Users/me/Library/Application Support/fnm/node-versions/*/installation/bin/node", "/Users/me/.volta/tools/image/node/*/bin/node", "/opt/homebrew/bin/node", "/usr/local/opt/node*/bin/node"} {
		if !strings.Contains(mac, filepath.FromSlash(want)) {
			t.Errorf("darwin search lacks %s", want)
		}
	}
}

// A relative folder in the environment (XDG_DATA_HOME=., NVM_DIR=x) or a
// relative HOME would search the current folder, a repository's, for a
// node to run: such bases are skipped, as relative XDG folders are
// everywhere else.
func TestNodeSearchSkipsRelativeBases(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": ".", "NVM_DIR": "nvm", "FNM_DIR": "fnm", "VOLTA_HOME": "v", "NVM_HOME": `nvm`, "APPDATA": `x\y`}
	get := func(k string) string { return env[k] }
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, p := range NodeSearch(goos, "home", get) {
			if !AbsFor(goos, p) {
				t.Errorf("%s searches %s, a relative pattern", goos, p)
			}
		}
	}
}

// The executable is chosen as npx chooses it, for packages shaped like the
// registry's: one bin; bins that are aliases of one file (@kilocode/cli's
// kilo and kilocode); the bin named after the package among several.
func TestNpmBinChoice(t *testing.T) {
	dir := t.TempDir()
	write := func(name, bin string, files ...string) {
		p := filepath.Join(dir, "node_modules", filepath.FromSlash(name))
		os.MkdirAll(p, 0o755)
		os.WriteFile(filepath.Join(p, "package.json"), []byte(`{"name":"`+name+`","bin":`+bin+`}`), 0o644)
		for _, f := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(p, f)), 0o755)
			os.WriteFile(filepath.Join(p, f), []byte("#!/usr/bin/env node\n"), 0o755)
		}
	}
	write("@google/gemini-cli", `{"gemini":"dist/index.js"}`, "dist/index.js")
	write("@s/one", `"./cli.js"`, "cli.js")
	write("@kilocode/cli", `{"kilo":"bin/kilo.js","kilocode":"./bin/kilo.js"}`, "bin/kilo.js")
	write("codex-acp", `{"codex-helper":"bin/h.js","codex-acp":"bin/main.js"}`, "bin/h.js", "bin/main.js")
	write("two", `{"a":"a.js","b":"b.js"}`, "a.js", "b.js")
	write("evil", `{"x":"../../../x.js"}`)
	write("badname", `{"../../x":"x.js"}`, "x.js")
	write("gone", `{"gone":"dist/missing.js"}`)
	write("nobin", `{}`)
	cases := []struct{ pkg, cmd, script, err string }{
		{"@google/gemini-cli", "", "dist/index.js", ""},
		{"@s/one", "", "cli.js", ""},
		{"@kilocode/cli", "", "bin/kilo.js", ""},
		{"codex-acp", "", "bin/main.js", ""},
		{"two", "b", "b.js", ""},
		{"two", "", "", "several executables (a, b), none named two"},
		{"two", "c", "", `no executable "c" (it has: a, b)`},
		{"evil", "", "", "points outside the package"},
		{"badname", "", "", "unusable name"},
		{"gone", "", "", "is not a file in the package"},
		{"nobin", "", "", "has no executables"},
		{"absent", "", "", "npm did not install absent"},
	}
	for _, c := range cases {
		info, err := ReadNpmPackage(dir, c.pkg)
		script := ""
		if err == nil {
			_, script, err = info.ChooseBin(c.cmd)
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, kinds.ErrCmdMissing) {
				t.Errorf("%s (cmd %q): err = %v, want %q", c.pkg, c.cmd, err, c.err)
			}
			continue
		}
		if err != nil || script != filepath.FromSlash(c.script) {
			t.Errorf("%s (cmd %q) = %q, %v; want %s", c.pkg, c.cmd, script, err, c.script)
		}
	}
}

// A "node" whose --version leaves a child holding its stdout must not
// keep acp waiting for that child, nor give a node without a version.
func TestNodeProbeDoesNotWaitForItsChildren(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for node")
	}
	dir := t.TempDir()
	node := filepath.Join(dir, "node")
	script := "#!/bin/sh\n(sleep 30) &\necho v22.1.0\n"
	if err := os.WriteFile(node, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h := &Host{}
	type result struct {
		f   NodeFound
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := h.probeNode(context.Background(), node)
		done <- result{f, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || r.f.Version == nil || r.f.Version.String() != "22.1.0" {
			t.Errorf("probe = %v, %v; want 22.1.0", r.f.Version, r.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the probe waited for node's background child")
	}
}

// The package given to npm or uv is exactly a registry name and one
// version: nothing npm or uv would read as an option, an alias, a path, a
// URL or a range.
func TestExactPackage(t *testing.T) {
	bad := []struct {
		kind registry.Kind
		spec string
	}{
		{registry.KindNpx, "--global@1.0.0"},
		{registry.KindNpx, "-g@1.0.0"},
		{registry.KindNpx, "x@npm:other@1.0.0"},
		{registry.KindNpx, "x@file:../y"},
		{registry.KindNpx, "x@latest"},
		{registry.KindNpx, "x@^1.0.0"},
		{registry.KindNpx, "x"},
		{registry.KindNpx, "x@git+https://example.com/x.git"},
		{registry.KindUvx, "x"},
		{registry.KindUvx, "x>=1.0"},
		{registry.KindUvx, "-x==1.0"},
	}
	for _, c := range bad {
		if _, err := ExactPackage(c.kind, c.spec); err == nil {
			t.Errorf("%s %q accepted", c.kind, c.spec)
		}
	}
	for _, c := range []struct {
		kind registry.Kind
		spec string
	}{{registry.KindNpx, "@scope/x@1.2.3-beta.1"}, {registry.KindUvx, "fast-agent-mcp[acp]==0.4.1"}, {registry.KindUvx, "x@2024.1"}} {
		if _, err := ExactPackage(c.kind, c.spec); err != nil {
			t.Errorf("%s %q: %v", c.kind, c.spec, err)
		}
	}
}
