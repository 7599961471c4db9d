package installer

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
)

// Issue 26, item 4: a Node.js build is checked before acp keeps it. A
// mirror's build without npm, or whose top folder is a link, is refused
// and leaves no runtime behind (it was kept, called ok by doctor, reused
// by install --force and kept by gc).
func TestManagedNodeBuildCheckedBeforeKept(t *testing.T) {
	_, toolEnv := fakeHome(t)
	plat, _, _, _ := runtimes.NodeBuild(runtime.GOOS, runtime.GOARCH)
	top := "node-v95.1.0-" + plat
	for name, build := range map[string][]byte{
		"no npm": makeTar(t, []entry{exe(top+"/bin/node", scriptNode("v95.1.0")), file(top+"/LICENSE", "MIT\n")}, "gz"),
		"top folder a link": makeTar(t, []entry{
			exe("real/bin/node", scriptNode("v95.1.0")), exe("real/bin/npm", npmScript(t)),
			{Name: top, Type: tar.TypeSymlink, Link: "real"},
		}, "gz"),
	} {
		mirror := newNodeMirror(t, map[string][]byte{"v95.1.0": build}, map[string]bool{"v95.1.0": true}, false)
		in := managedInstaller(t, mirror.URL+"/", toolEnv)
		_, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()})
		if err == nil || !strings.Contains(err.Error(), "is not a usable build") {
			t.Errorf("%s: installed, or another error: %v", name, err)
		}
		if _, err := os.Lstat(filepath.Join(in.Root, "runtimes", "node", "v95.1.0")); !os.IsNotExist(err) {
			t.Errorf("%s: the build was kept (%v)", name, err)
		}
	}
}

// A broken runtime already there (an older acp kept a build without
// npm): doctor's list says so, install --force replaces it with a whole
// build, and gc removes a broken one even while a receipt names it.
func TestBrokenManagedNodeReplacedAndRemoved(t *testing.T) {
	_, toolEnv := fakeHome(t)
	plat, _, _, _ := runtimes.NodeBuild(runtime.GOOS, runtime.GOARCH)
	top := "node-v95.1.0-" + plat
	build := makeTar(t, []entry{exe(top+"/bin/node", scriptNode("v95.1.0")), exe(top+"/bin/npm", npmScript(t))}, "gz")
	mirror := newNodeMirror(t, map[string][]byte{"v95.1.0": build}, map[string]bool{"v95.1.0": true}, false)
	in := managedInstaller(t, mirror.URL+"/", toolEnv)
	if _, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(in.Root, "runtimes", "node", "v95.1.0")
	npm := filepath.Join(dir, "bin", "npm")
	os.Remove(npm) // broken after the fact
	rts, err := in.ManagedRuntimes()
	if err != nil || len(rts) != 1 || !strings.Contains(rts[0].Problem, "holds no npm") {
		t.Fatalf("managed runtimes = %+v %v, want the missing npm named", rts, err)
	}
	if _, _, err := in.Install(context.Background(), Request{Agent: claudeManifest(), Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(npm); err != nil {
		t.Fatalf("install --force kept the broken runtime: %v", err)
	}
	os.Remove(npm)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(dir, old, old)
	rep, err := in.GCAll(context.Background())
	if err != nil || len(rep.Removed) != 1 || !strings.Contains(rep.Removed[0].Why, "broken") {
		t.Fatalf("gc = %+v %v", rep, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("gc kept the broken runtime")
	}
}

// scriptNode is a node as small as a shell script (fakeHome's tests run
// on Unix only): it answers --version, which is all a check asks. The
// archives stay a few hundred bytes, not a copy of the test binary.
func scriptNode(version string) string {
	return "#!/bin/sh\necho " + version + "\n"
}
