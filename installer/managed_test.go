package installer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

// newNodeMirror serves nodejs.org's /dist layout on loopback: index.json,
// vX/SHASUMS256.txt and vX/<archive> for each archive given (version ->
// archive bytes); lts names the LTS versions. It counts requests.
func newNodeMirror(t *testing.T, archives map[string][]byte, lts map[string]bool, badSum bool) *server {
	t.Helper()
	plat, ext, key, ok := runtimes.NodeBuild(runtime.GOOS, runtime.GOARCH)
	if !ok {
		t.Skip("no official Node.js build for this platform")
	}
	m := newServer(t)
	files := map[string][]byte{}
	var index []string
	for v, data := range archives {
		name := "node-" + v + "-" + plat + ext
		files["/"+v+"/"+name] = data
		sum := sha256.Sum256(data)
		if badSum {
			sum[0] ^= 0xff
		}
		files["/"+v+"/SHASUMS256.txt"] = []byte(fmt.Sprintf("%064x  node-%s-other.tar.gz\n%s  %s\n", 0, v, hex.EncodeToString(sum[:]), name))
		l := "false"
		if lts[v] {
			l = `"Test"`
		}
		index = append(index, fmt.Sprintf(`{"version":%q,"files":[%q,"src"],"lts":%s}`, v, key, l))
	}
	files["/index.json"] = []byte("[" + strings.Join(index, ",") + "]")
	m.addAll(files)
	return m
}

// fakeNodeBuild is an archive shaped like an official build
// (node-vX-<plat>/bin/node, bin/npm) whose node is the test binary (a
// fake node answering version) and whose npm is the given script.
func fakeNodeBuild(t *testing.T, version, npmScript string) []byte {
	t.Helper()
	plat, _, _, _ := runtimes.NodeBuild(runtime.GOOS, runtime.GOARCH)
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	top := "node-" + version + "-" + plat + "/"
	return testarchive.TarGz(
		testarchive.File{Name: top + "bin/node", Body: string(self)},
		testarchive.File{Name: top + "bin/npm", Body: npmScript},
		testarchive.File{Name: top + "LICENSE", Body: "MIT\n"})
}

// managedInstaller has no node or npm on the machine (PATH, the usual
// places) unless nodes are given, and brings its own from mirror.
func managedInstaller(t *testing.T, mirror string, toolEnv []string, nodes ...string) *Installer {
	in := newInstaller(t)
	in.LookPath = nil
	in.nodeSearch = append([]string{}, nodes...)
	in.ManageRuntimes = true
	in.NodeMirror = mirror
	in.ToolEnv = toolEnv
	return in
}

// npmScript is an npm (a shell script) that installs a package shaped
// like claude-agent (engines.node >=95) into --prefix: it runs shapedNPM's,
// which keeps its description beside it (testkit.FakeTool).
func npmScript(t *testing.T) string {
	return "#!/bin/sh\nexec '" + shapedNPM(t, claudeShaped(">=95"), "") + "' \"$@\"\n"
}

// With no node and no npm on the machine, acp installs the official
// build that fits engines.node (the newest of the LTS lines first),
// installs the package with its npm, and launches with its node.
func TestManagedNodeWhenNoneIsHere(t *testing.T) {
	home, toolEnv := fakeHome(t)
	npm := npmScript(t)
	mirror := newNodeMirror(t, map[string][]byte{
		"v95.1.0": fakeNodeBuild(t, "v95.1.0", npm),
		"v96.0.0": fakeNodeBuild(t, "v96.0.0", npm), // newer, not LTS
		"v94.9.0": fakeNodeBuild(t, "v94.9.0", npm), // LTS, too old
	}, map[string]bool{"v95.1.0": true, "v94.9.0": true}, false)
	in := managedInstaller(t, mirror.URL+"/", toolEnv)
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)
	spec, err := in.Resolve(context.Background(), Request{Agent: claudeManifest()}, InstallIfMissing)
	if err != nil {
		t.Fatalf("%v\n%s", err, events.String())
	}
	node := filepath.Join(in.Root, "runtimes", "node", "v95.1.0", "bin", "node")
	if spec.Command != node || len(spec.Warnings) != 0 {
		t.Fatalf("spec = %+v, want command %s", spec, node)
	}
	cmd := exec.Command(spec.Command, spec.Args...)
	cmd.Env = []string{"PATH=/nonexistent", "HOME=" + home}
	if out, err := cmd.Output(); err != nil || !strings.HasPrefix(string(out), "fake-node v95.1.0 ") {
		t.Errorf("launch: %q %v", out, err)
	}
	r, err := in.Current("claude-agent")
	if err != nil || r.Runtime == nil || !r.Runtime.Managed || r.Runtime.Path != node {
		t.Errorf("receipt runtime = %+v %v", r.Runtime, err)
	}
	if !strings.Contains(events.String(), `"phase":"download"`) || !strings.Contains(events.String(), `"phase":"verify"`) {
		t.Errorf("the node download showed no progress: %s", events.String())
	}
	rts, err := in.ManagedRuntimes()
	if err != nil || len(rts) != 1 || rts[0].Version != "v95.1.0" || strings.Join(rts[0].UsedBy, ",") != "claude-agent@0.101.0" {
		t.Errorf("managed runtimes = %+v %v", rts, err)
	}

	// A resolve of the installed agent asks the mirror nothing.
	before := mirror.requests()
	if _, err := in.Resolve(context.Background(), Request{Agent: claudeManifest()}, InstallIfMissing); err != nil || mirror.requests() != before {
		t.Errorf("resolve again: %v, %d requests", err, mirror.requests()-before)
	}

	// gc keeps the runtime while an install uses it, removes it after.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Dir(filepath.Dir(node)), old, old)
	if rep, err := in.GCAll(context.Background()); err != nil || len(rep.Removed) != 0 {
		t.Fatalf("gc with the agent installed: %+v %v", rep, err)
	}
	if _, err := in.Remove(context.Background(), "claude-agent"); err != nil {
		t.Fatal(err)
	}
	rep, err := in.GCAll(context.Background())
	if err != nil || len(rep.Removed) != 1 || !strings.Contains(rep.Removed[0].Why, "node v95.1.0") {
		t.Fatalf("gc after uninstall: %+v %v", rep, err)
	}
	if _, err := os.Stat(node); !os.IsNotExist(err) {
		t.Error("gc left the unused runtime")
	}
}

// With only an older node here, the managed one is chosen and nothing
// warns (the machine's npm installs).
func TestManagedNodeOverAnOldOne(t *testing.T) {
	home, toolEnv := fakeHome(t)
	old := testkit.LinkSelf(t, filepath.Join(home, ".nvm/versions/node/v90.0.0/bin/node"))
	mirror := newNodeMirror(t, map[string][]byte{"v95.1.0": fakeNodeBuild(t, "v95.1.0", "#!/bin/sh\nexit 1\n")}, map[string]bool{"v95.1.0": true}, false)
	// nvm's layout: npm beside node.
	if err := os.Symlink(shapedNPM(t, claudeShaped(">=95"), ""), filepath.Join(filepath.Dir(old), "npm")); err != nil {
		t.Fatal(err)
	}
	in := managedInstaller(t, mirror.URL, toolEnv, old)
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)
	spec, err := in.Resolve(context.Background(), Request{Agent: claudeManifest()}, InstallIfMissing)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Command != filepath.Join(in.Root, "runtimes", "node", "v95.1.0", "bin", "node") || len(spec.Warnings) != 0 || strings.Contains(events.String(), `"warning"`) {
		t.Errorf("spec = %+v\nevents: %s", spec, events.String())
	}
	// Turned off, the old node is used as before, with its warning.
	in2 := managedInstaller(t, mirror.URL, toolEnv, old)
	in2.ManageRuntimes = false
	spec, err = in2.Resolve(context.Background(), Request{Agent: claudeManifest()}, InstallIfMissing)
	if err != nil || spec.Command != old || len(spec.Warnings) != 1 {
		t.Errorf("opted out: %+v %v", spec, err)
	}
}

// A mirror whose archive does not match its SHASUMS256.txt installs
// nothing: no runtime, no agent.
func TestManagedNodeWrongChecksum(t *testing.T) {
	_, toolEnv := fakeHome(t)
	mirror := newNodeMirror(t, map[string][]byte{"v95.1.0": fakeNodeBuild(t, "v95.1.0", npmScript(t))}, map[string]bool{"v95.1.0": true}, true)
	in := managedInstaller(t, mirror.URL, toolEnv)
	_, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("err = %v, want a checksum error", err)
	}
	for _, p := range []string{filepath.Join(in.Root, "runtimes", "node", "v95.1.0"), filepath.Join(in.Root, "agents", "claude-agent", "0.101.0")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after a failed checksum", p)
		}
	}
	if rts, _ := in.ManagedRuntimes(); len(rts) != 0 {
		t.Errorf("runtimes = %+v", rts)
	}
}

// Offline, only runtimes already present are used: none here is
// runtime-missing without a request to the mirror.
func TestManagedNodeOffline(t *testing.T) {
	_, toolEnv := fakeHome(t)
	mirror := newNodeMirror(t, map[string][]byte{"v95.1.0": fakeNodeBuild(t, "v95.1.0", npmScript(t))}, map[string]bool{"v95.1.0": true}, false)
	in := managedInstaller(t, mirror.URL, toolEnv)
	in.Offline = true
	_, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()})
	if !errors.Is(err, ErrRuntimeMissing) || mirror.requests() != 0 {
		t.Fatalf("offline without a runtime: %v, %d requests", err, mirror.requests())
	}
	in.Offline = false
	if _, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Remove(context.Background(), "claude-agent"); err != nil {
		t.Fatal(err)
	}
	in.Offline = true
	hits := mirror.requests()
	r, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()})
	if err != nil || !r.Runtime.Managed || mirror.requests() != hits {
		t.Errorf("offline with the runtime present: %+v %v, %d requests", r, err, mirror.requests()-hits)
	}
}
