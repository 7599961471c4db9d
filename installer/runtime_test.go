package installer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/progress"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// The test binary is also a fake node: run under the name node (or
// node.exe), it answers --version with the version its path names
// (…/v22.3.0/bin/node) and otherwise prints its version and arguments, as
// a launch would run the agent's script.
func init() {
	base := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if base != "node" {
		return
	}
	m := regexp.MustCompile(`v[0-9]+\.[0-9]+\.[0-9]+`).FindAllString(filepath.ToSlash(os.Args[0]), -1)
	v := "v0.0.1"
	if len(m) > 0 {
		v = m[len(m)-1]
	}
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		if log := os.Getenv("FAKE_NODE_LOG"); log != "" {
			if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(f, os.Args[0])
				f.Close()
			}
		}
		fmt.Println(v)
		os.Exit(0)
	}
	fmt.Println("fake-node", v, strings.Join(os.Args[1:], " "))
	os.Exit(0)
}

// fakeNode puts a node answering version at path (a hard link to the test
// binary, else a copy) and returns path.
func fakeNode(t testing.TB, path string) string {
	t.Helper()
	if runtime.GOOS == "windows" && !strings.HasSuffix(path, ".exe") {
		path += ".exe"
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Link(self, path) == nil {
		return path
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeHome makes an empty HOME with no node anywhere reachable: PATH is
// /nonexistent, as a desktop editor's may be. It returns HOME and the PATH
// npm's shell script needs (given through ToolEnv).
func fakeHome(t *testing.T) (home string, toolEnv []string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm is a shell script")
	}
	// A system node (/usr/bin/node) is found too: the fake nodes are
	// newer than any real one (v90+), so the choices tested still hold.
	home = t.TempDir()
	toolEnv = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	t.Setenv("HOME", home)
	t.Setenv("PATH", "/nonexistent")
	for _, v := range []string{"NVM_DIR", "FNM_DIR", "VOLTA_HOME", "XDG_DATA_HOME", "NVM_HOME", "NVM_SYMLINK"} {
		t.Setenv(v, "")
	}
	return home, toolEnv
}

// pkgFiles is an npm package as a fake npm would unpack it.
type pkgFiles map[string]string

// shapedNPM writes an npm (a shell script) that "installs" the given
// packages (path under node_modules -> content) into --prefix, records its
// working directory and arguments in <prefix>/npm-call.txt, and fails with
// message when it is not empty.
func shapedNPM(t *testing.T, files pkgFiles, fail string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm is a shell script")
	}
	src := t.TempDir()
	for name, body := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh\n"
	if fail != "" {
		script += "echo 'npm warn something harmless'\necho " + shellQuoteTest(fail) + " >&2\nexit 1\n"
	}
	script += `args="$*"
while [ "$1" != "--prefix" ]; do shift; done
mkdir -p "$2/node_modules"
cp -R ` + shellQuoteTest(src) + `/. "$2/node_modules/"
{ echo "cwd: $(pwd)"; echo "args: $args"; echo "cache: $npm_config_cache"; } > "$2/npm-call.txt"
`
	npm := filepath.Join(t.TempDir(), "npm")
	if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return npm
}

func shellQuoteTest(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// claudeShaped is a package shaped like @agentclientprotocol/claude-agent-acp:
// one bin in dist/, engines.node >=22.
func claudeShaped(nodeRange string) pkgFiles {
	return pkgFiles{
		"@agentclientprotocol/claude-agent-acp/package.json":  `{"name":"@agentclientprotocol/claude-agent-acp","version":"0.101.0","bin":{"claude-agent-acp":"dist/index.js"},"engines":{"node":"` + nodeRange + `"}}`,
		"@agentclientprotocol/claude-agent-acp/dist/index.js": "#!/usr/bin/env node\n",
	}
}

func claudeManifest() *registry.Manifest {
	return &registry.Manifest{ID: "claude-agent", Version: "0.101.0", Distribution: registry.Distribution{
		Npx: &registry.Package{Package: "@agentclientprotocol/claude-agent-acp@0.101.0", Args: []string{"--acp"}},
	}}
}

func npxInstaller(t *testing.T, npm string, toolEnv []string) *Installer {
	in := newInstaller(t)
	in.LookPath = nil // the real search: PATH, then the usual places
	in.NPM = npm
	in.ToolEnv = toolEnv
	return in
}

// An editor started from a desktop menu has no node on PATH: the launch
// names the newest node that satisfies engines.node by absolute path, and
// starts the package's script (not node_modules/.bin, whose shebang needs
// node on PATH). It runs with PATH=/nonexistent.
func TestNpxLaunchWithoutPath(t *testing.T) {
	home, toolEnv := fakeHome(t)
	fakeNode(t, filepath.Join(home, ".nvm/versions/node/v90.1.0/bin/node"))
	want := fakeNode(t, filepath.Join(home, ".nvm/versions/node/v92.3.0/bin/node"))
	fakeNode(t, filepath.Join(home, ".volta/tools/image/node/v91.0.0/bin/node"))
	in := npxInstaller(t, shapedNPM(t, claudeShaped(">=22"), ""), toolEnv)
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)

	spec, err := in.Resolve(context.Background(), Request{Agent: claudeManifest()}, false)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(in.Root, "agents", "claude-agent", "0.101.0", "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js")
	if spec.Command != want || len(spec.Args) != 2 || spec.Args[0] != script || spec.Args[1] != "--acp" || len(spec.Warnings) != 0 {
		t.Fatalf("spec = %+v\nwant command %s, args [%s --acp]", spec, want, script)
	}
	out, err := exec.Command(spec.Command, spec.Args...).Output()
	if err != nil || string(out) != "fake-node v92.3.0 "+script+" --acp\n" {
		t.Errorf("launch with PATH=/nonexistent: %q %v", out, err)
	}
	if strings.Contains(events.String(), `"warning"`) {
		t.Errorf("a satisfying node was found, yet: %s", events.String())
	}
	r, err := in.Current("claude-agent")
	if err != nil || r.Runtime == nil || r.Runtime.Path != want || r.Runtime.Version != "92.3.0" || r.Runtime.Requires != ">=22" {
		t.Errorf("receipt runtime = %+v %v", r.Runtime, err)
	}
}

// The receipt's node is used while it exists and satisfies the package,
// even when a newer one appears; when it goes away, another is found at
// resolve, without reinstalling.
func TestResolveRechecksRecordedNode(t *testing.T) {
	home, toolEnv := fakeHome(t)
	first := fakeNode(t, filepath.Join(home, ".nvm/versions/node/v92.1.0/bin/node"))
	npm := shapedNPM(t, claudeShaped(">=22"), "")
	in := npxInstaller(t, npm, toolEnv)
	m := claudeManifest()
	if _, err := in.Resolve(context.Background(), Request{Agent: m}, false); err != nil {
		t.Fatal(err)
	}
	newer := fakeNode(t, filepath.Join(home, ".volta/tools/image/node/v93.0.0/bin/node"))
	in.NPM = filepath.Join(t.TempDir(), "no-npm") // a reinstall would fail
	spec, err := in.Resolve(context.Background(), Request{Agent: m}, false)
	if err != nil || spec.Command != first {
		t.Fatalf("with the recorded node still there: %+v %v, want %s", spec, err, first)
	}
	os.Remove(first)
	spec, err = in.Resolve(context.Background(), Request{Agent: m}, false)
	if err != nil || spec.Command != newer {
		t.Fatalf("after the recorded node went away: %+v %v, want %s", spec, err, newer)
	}
}

// An editor resolves on every launch, each time in a new acp process.
// When the only node is older than the package asks for, the recorded
// one's version is known from the receipt: resolve must not run it again
// (node --version costs more than the rest of resolve) while it is the
// same file.
func TestResolveOldNodeRunsNoNode(t *testing.T) {
	home, toolEnv := fakeHome(t)
	old := fakeNode(t, filepath.Join(home, ".volta/tools/image/node/v94.0.0/bin/node"))
	in := npxInstaller(t, shapedNPM(t, claudeShaped(">=95"), ""), toolEnv)
	if _, err := in.Resolve(context.Background(), Request{Agent: claudeManifest()}, false); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "node-runs")
	t.Setenv("FAKE_NODE_LOG", log)
	fresh := npxInstaller(t, filepath.Join(t.TempDir(), "no-npm"), toolEnv)
	fresh.Root = in.Root
	spec, err := fresh.Resolve(context.Background(), Request{Agent: claudeManifest()}, true)
	if err != nil || spec.Command != old || len(spec.Warnings) != 1 {
		t.Fatalf("spec = %+v, err %v; want %s with a warning", spec, err, old)
	}
	if runs, _ := os.ReadFile(log); len(runs) > 0 {
		t.Errorf("resolve ran the recorded node again:\n%s", runs)
	}
}

// Only an older node than engines.node: used, as npm does, with a warning
// in the spec and on the reporter. No node at all: runtime-missing naming
// the version and the places searched.
func TestNodeTooOldOrMissing(t *testing.T) {
	home, toolEnv := fakeHome(t)
	// engines.node asks for more than any node there is, the fake
	// one is newer than any real one: it is the one chosen.
	old := fakeNode(t, filepath.Join(home, ".volta/tools/image/node/v94.0.0/bin/node"))
	in := npxInstaller(t, shapedNPM(t, claudeShaped(">=95"), ""), toolEnv)
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)
	spec, err := in.Resolve(context.Background(), Request{Agent: claudeManifest()}, false)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Command != old || len(spec.Warnings) != 1 || !strings.Contains(spec.Warnings[0], "asks for node >=95") || !strings.Contains(spec.Warnings[0], "94.0.0") {
		t.Errorf("spec = %+v", spec)
	}
	if !strings.Contains(events.String(), `"event":"warning"`) {
		t.Errorf("no warning event: %s", events.String())
	}
	// doctor says the same.
	r, _ := in.Current("claude-agent")
	if c := in.CheckRuntime(context.Background(), *r); c.Status != "old" || c.Found != "94.0.0" || c.Requires != ">=95" {
		t.Errorf("doctor = %+v", c)
	}

	// The node goes away: resolve says what is missing and where it looked.
	os.RemoveAll(filepath.Join(home, ".volta"))
	looked := []string{"PATH", filepath.Join(home, ".nvm"), filepath.Join(home, ".volta")}
	if systemNode() {
		// This machine's own node would be found: name one that is gone.
		in.Node = filepath.Join(home, "gone", "node")
		looked = []string{in.Node}
	}
	_, err = in.Resolve(context.Background(), Request{Agent: claudeManifest()}, true)
	if !errors.Is(err, ErrRuntimeMissing) || !strings.Contains(err.Error(), "needs Node.js >=95") {
		t.Errorf("err = %v", err)
	}
	for _, w := range looked {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say it looked in %s: %v", w, err)
		}
	}
	if c := in.CheckRuntime(context.Background(), *r); c.Status != "missing" {
		t.Errorf("doctor = %+v", c)
	}
}

func systemNode() bool {
	for _, p := range nodeSearch(runtime.GOOS, "/nonexistent-home", func(string) string { return "" }) {
		if m, _ := filepath.Glob(p); len(m) > 0 {
			return true
		}
	}
	return false
}

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
	win := strings.Join(nodeSearch("windows", `C:\Users\me`, func(k string) string { return env[k] }), "\n")
	for _, want := range []string{filepath.Join(`C:\Program Files`, "nodejs", "node.exe"), filepath.Join(`C:\Users\me\AppData\Roaming`, "nvm", "*", "node.exe")} {
		if !strings.Contains(win, want) {
			t.Errorf("windows search lacks %s:\n%s", want, win)
		}
	}
	mac := strings.Join(nodeSearch("darwin", "/Users/me", func(string) string { return "" }), "\n")
	for _, want := range []string{"/Users/me/.nvm/versions/node/*/bin/node", "/Users/me/Library/Application Support/fnm/node-versions/*/installation/bin/node", "/Users/me/.volta/tools/image/node/*/bin/node", "/opt/homebrew/bin/node", "/usr/local/opt/node*/bin/node"} {
		if !strings.Contains(mac, filepath.FromSlash(want)) {
			t.Errorf("darwin search lacks %s", want)
		}
	}
}

func decodeEvents(t *testing.T, s string) []progress.Event {
	t.Helper()
	var out []progress.Event
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		var e progress.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not a JSON event: %q", line)
		}
		out = append(out, e)
	}
	return out
}

// An install made before launches named node (command
// node_modules/.bin/<x>, whose shebang needs node on PATH) resolves to a
// node and the package's script too, without reinstalling.
func TestLegacyNpxReceipt(t *testing.T) {
	home, toolEnv := fakeHome(t)
	node := fakeNode(t, filepath.Join(home, ".nvm/versions/node/v92.0.0/bin/node"))
	in := npxInstaller(t, shapedNPM(t, claudeShaped(">=22"), ""), toolEnv)
	m := claudeManifest()
	r, _, err := in.Install(context.Background(), Request{Agent: m})
	if err != nil {
		t.Fatal(err)
	}
	script := r.Launch.Args[0]
	legacy := *r
	legacy.Runtime = nil
	legacy.Launch.Command = filepath.Join(r.Dir, "node_modules", ".bin", "claude-agent-acp")
	legacy.Launch.Args = []string{"--acp"}
	os.MkdirAll(filepath.Dir(legacy.Launch.Command), 0o755)
	os.Symlink(script, legacy.Launch.Command)
	os.Remove(filepath.Join(r.Dir, receiptFile))
	if err := writeReceiptFile(filepath.Join(r.Dir, receiptFile), &legacy); err != nil {
		t.Fatal(err)
	}
	in.NPM = filepath.Join(t.TempDir(), "no-npm") // a reinstall would fail
	spec, err := in.Resolve(context.Background(), Request{Agent: m}, false)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Command != node || len(spec.Args) != 2 || spec.Args[0] != script || spec.Args[1] != "--acp" {
		t.Errorf("spec = %+v", spec)
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
		for _, p := range nodeSearch(goos, "home", get) {
			if !absFor(goos, p) {
				t.Errorf("%s searches %s, a relative pattern", goos, p)
			}
		}
	}
}
