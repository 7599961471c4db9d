package installer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/store"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// The test binary is also a fake node: run under the name node (or
// node.exe), it answers --version with the version its path names
// (…/v22.3.0/bin/node) and otherwise prints its version and arguments, as
// a launch would run the agent's script. testkit.LinkSelf puts it at a
// path named node.
func init() {
	base := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if base == "native-agent" {
		// A native executable an install script put in a package.
		fmt.Println("native-agent " + strings.Join(os.Args[1:], " "))
		os.Exit(0)
	}
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

// fakeHome makes an empty HOME with no node anywhere reachable: PATH is
// /nonexistent, as a desktop editor's may be. It returns HOME and the PATH
// npm's shell script needs (given through ToolEnv).
func fakeHome(t *testing.T) (home string, toolEnv []string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake nodes sit where node managers put them on Unix (~/.nvm, ~/.volta)")
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

// shapedNPM puts an npm (testkit.FakeTool) that "installs" the given
// packages (path under node_modules -> content) into --prefix, records its
// working directory and arguments in <prefix>/npm-call.txt, and fails with
// message when it is not empty.
func shapedNPM(t *testing.T, files pkgFiles, fail string) string {
	t.Helper()
	npm := filepath.Join(t.TempDir(), "npm")
	if fail != "" {
		return testkit.FakeTool{Stdout: "npm warn something harmless\n", Stderr: fail + "\n", Exit: 1}.Put(t, npm)
	}
	src := t.TempDir()
	for name, body := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return testkit.FakeTool{Steps: []testkit.FakeStep{
		{Copy: "$prefix/node_modules", From: src},
		{Write: "$prefix/npm-call.txt", Text: "cwd: $cwd\nargs: $args\ncache: $npm_config_cache\n"},
	}}.Put(t, npm)
}

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
	testkit.LinkSelf(t, filepath.Join(home, ".nvm/versions/node/v90.1.0/bin/node"))
	want := testkit.LinkSelf(t, filepath.Join(home, ".nvm/versions/node/v92.3.0/bin/node"))
	testkit.LinkSelf(t, filepath.Join(home, ".volta/tools/image/node/v91.0.0/bin/node"))
	in := npxInstaller(t, shapedNPM(t, claudeShaped(">=22"), ""), toolEnv)
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)

	spec, err := in.Resolve(context.Background(), Request{Agent: claudeManifest()}, InstallIfMissing)
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
	first := testkit.LinkSelf(t, filepath.Join(home, ".nvm/versions/node/v92.1.0/bin/node"))
	npm := shapedNPM(t, claudeShaped(">=22"), "")
	in := npxInstaller(t, npm, toolEnv)
	m := claudeManifest()
	if _, err := in.Resolve(context.Background(), Request{Agent: m}, InstallIfMissing); err != nil {
		t.Fatal(err)
	}
	newer := testkit.LinkSelf(t, filepath.Join(home, ".volta/tools/image/node/v93.0.0/bin/node"))
	in.NPM = filepath.Join(t.TempDir(), "no-npm") // a reinstall would fail
	spec, err := in.Resolve(context.Background(), Request{Agent: m}, InstallIfMissing)
	if err != nil || spec.Command != first {
		t.Fatalf("with the recorded node still there: %+v %v, want %s", spec, err, first)
	}
	os.Remove(first)
	spec, err = in.Resolve(context.Background(), Request{Agent: m}, InstallIfMissing)
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
	old := testkit.LinkSelf(t, filepath.Join(home, ".volta/tools/image/node/v94.0.0/bin/node"))
	in := npxInstaller(t, shapedNPM(t, claudeShaped(">=95"), ""), toolEnv)
	if _, err := in.Resolve(context.Background(), Request{Agent: claudeManifest()}, InstallIfMissing); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "node-runs")
	t.Setenv("FAKE_NODE_LOG", log)
	fresh := npxInstaller(t, filepath.Join(t.TempDir(), "no-npm"), toolEnv)
	fresh.Root = in.Root
	spec, err := fresh.Resolve(context.Background(), Request{Agent: claudeManifest()}, NoInstall)
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
	old := testkit.LinkSelf(t, filepath.Join(home, ".volta/tools/image/node/v94.0.0/bin/node"))
	in := npxInstaller(t, shapedNPM(t, claudeShaped(">=95"), ""), toolEnv)
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)
	spec, err := in.Resolve(context.Background(), Request{Agent: claudeManifest()}, InstallIfMissing)
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
	_, err = in.Resolve(context.Background(), Request{Agent: claudeManifest()}, NoInstall)
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
	for _, p := range runtimes.NodeSearch(runtime.GOOS, "/nonexistent-home", func(string) string { return "" }) {
		if m, _ := filepath.Glob(p); len(m) > 0 {
			return true
		}
	}
	return false
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
	node := testkit.LinkSelf(t, filepath.Join(home, ".nvm/versions/node/v92.0.0/bin/node"))
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
	os.Remove(filepath.Join(r.Dir, store.ReceiptFile))
	if err := store.WriteReceipt(filepath.Join(r.Dir, store.ReceiptFile), &legacy); err != nil {
		t.Fatal(err)
	}
	in.NPM = filepath.Join(t.TempDir(), "no-npm") // a reinstall would fail
	spec, err := in.Resolve(context.Background(), Request{Agent: m}, InstallIfMissing)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Command != node || len(spec.Args) != 2 || spec.Args[0] != script || spec.Args[1] != "--acp" {
		t.Errorf("spec = %+v", spec)
	}
}
