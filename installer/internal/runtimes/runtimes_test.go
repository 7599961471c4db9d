package runtimes

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
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
		v, err := registry.ParseVersion(c.v)
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
		if !strings.Contains(filepath.ToSlash(mac), want) { // macOS paths, slashed on any host
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
	write("up", `{"up":"../dist/language-server.js"}`, "dist/language-server.js")
	write("badname", `{"../../x":"x.js"}`, "x.js")
	write("gone", `{"gone":"dist/missing.js"}`)
	write("nobin", `{}`)
	write("dots", `{"..":"a.js","b":"./././"}`, "a.js")
	write("list", `["bin/first.js","bin/list"]`, "bin/first.js", "bin/list")
	write("win", `{"c:\\tools\\w":"lib\\w.js"}`, "lib/w.js")
	cases := []struct{ pkg, cmd, script, err string }{
		{"@google/gemini-cli", "", "dist/index.js", ""},
		{"@s/one", "", "cli.js", ""},
		{"@kilocode/cli", "", "bin/kilo.js", ""},
		{"codex-acp", "", "bin/main.js", ""},
		{"two", "b", "b.js", ""},
		{"two", "", "", "several executables (a, b), none named two"},
		{"two", "c", "", `no executable "c" (it has: a, b)`},
		// npm resolves a target against the package's root: "../x"
		// cannot leave it, and names are their last element.
		{"evil", "", "", "x (x.js) is not a file in the package"},
		{"up", "", "dist/language-server.js", ""},
		{"badname", "", "x.js", ""},
		{"gone", "", "", "is not a file in the package"},
		{"nobin", "", "", "has no executables"},
		{"dots", "", "", "has no executables"},
		{"list", "", "bin/list", ""},
		{"list", "first.js", "bin/first.js", ""},
		{"win", "w", "lib/w.js", ""},
		{"absent", "", "", "npm did not install absent"},
	}
	for _, c := range cases {
		info, err := ReadNpmPackage(dir, c.pkg)
		script := ""
		if err == nil {
			var b Bin
			b, err = (&Host{}).PackageBin(info, c.cmd)
			script = b.Rel
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
	node := testkit.FakeTool{Stdout: "v22.1.0\n", Linger: true}.Put(t, filepath.Join(t.TempDir(), "node"))
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

// How a bin starts is decided from the file as it is after install
// scripts ran, following links that stay in the package.
func TestClassifyBin(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX interpreters and links")
	}
	pkg := binPackage(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	sh, _ = filepath.Abs(sh)
	cases := []struct {
		rel, cmd string
		args     []string
		err      string
	}{
		{rel: "plain.js", cmd: "/node", args: []string{"plain.js"}},
		{rel: "env.js", cmd: "/node", args: []string{"env.js"}},
		{rel: "opts.js", cmd: "/node", args: []string{"--no-warnings", "opts.js"}},
		{rel: "abs.js", cmd: "/node", args: []string{"abs.js"}},
		{rel: "sh", cmd: "/bin/sh", args: []string{"-e", "sh"}},
		{rel: "envsh", cmd: sh, args: []string{"envsh"}},
		{rel: "elf", cmd: "elf"},
		{rel: "macho", cmd: "macho"},
		{rel: "pe.exe", cmd: "pe.exe"},
		{rel: "bin/link", cmd: "/node", args: []string{"dist/r.js"}},
		{rel: "bin/native", cmd: "elf"},
		{rel: "bin/out", err: "links outside the package"},
		{rel: "nowhere", err: "no-such-interpreter-acp was not found"},
		{rel: "missing.js", err: "is not a file in the package"},
	}
	h := &Host{}
	for _, c := range cases {
		b, err := h.ClassifyBin("pkg", "x", pkg, c.rel)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err = %v, want %q", c.rel, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.rel, err)
			continue
		}
		final := filepath.Join(t.TempDir(), "final") // the launch names where the install will be
		cmd, args := b.Launch(final, "/node")
		want := c.cmd
		if !filepath.IsAbs(want) {
			want = filepath.Join(final, want)
		}
		for i, a := range c.args {
			if strings.HasSuffix(a, ".js") || a == c.rel {
				c.args[i] = filepath.Join(final, a)
			}
		}
		if cmd != want || strings.Join(args, " ") != strings.Join(c.args, " ") {
			t.Errorf("%s: launch = %s %q, want %s %q", c.rel, cmd, args, want, c.args)
		}
	}
}

// binPackage is a package folder holding one file per form a bin may
// take after install scripts ran, and links inside and out of it.
func binPackage(t *testing.T) string {
	t.Helper()
	pkg := filepath.Join(t.TempDir(), "pkg")
	files := map[string]string{
		"plain.js":  "console.log(1)\n",
		"env.js":    "#!/usr/bin/env node\n",
		"opts.js":   "#!/usr/bin/env -S node --no-warnings\r\n",
		"abs.js":    "#!/usr/local/bin/node\n",
		"sh":        "#!/bin/sh -e\necho hi\n",
		"envsh":     "#!/usr/bin/env FOO=1 sh\n",
		"nowhere":   "#!/usr/bin/env no-such-interpreter-acp\n",
		"elf":       "\x7fELF\x02\x01\x01",
		"macho":     "\xcf\xfa\xed\xfe\x07",
		"pe.exe":    "MZ\x90\x00",
		"dist/r.js": "#!/usr/bin/env node\n",
	}
	for f, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(pkg, f)), 0o755)
		if err := os.WriteFile(filepath.Join(pkg, f), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(filepath.Dir(pkg), "outside.js")
	os.WriteFile(outside, []byte("#!/usr/bin/env node\n"), 0o755)
	os.MkdirAll(filepath.Join(pkg, "bin"), 0o755)
	os.Symlink("../dist/r.js", filepath.Join(pkg, "bin", "link"))
	os.Symlink(outside, filepath.Join(pkg, "bin", "out"))
	os.Symlink("../elf", filepath.Join(pkg, "bin", "native"))
	return pkg
}
