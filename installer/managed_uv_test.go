package installer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

// uvRelease serves uv's release layout on loopback
// (<version>/uv-<target>.tar.gz and its .sha256) with program as uv: a
// fake (testkit.FakeTool) that does what uv's documented CLI does for
// `uv tool install` and `uv --version`. A wrong sha256 when bad; requests are counted.
func uvRelease(t *testing.T, bad bool) (string, *server) {
	t.Helper()
	target, ext, ok := runtimes.UVTarget(runtime.GOOS, runtime.GOARCH)
	if !ok {
		t.Skip("uv publishes no build for this platform")
	}
	uv := uvTool(filepath.Join(t.TempDir(), "record"), false)
	uv.Version = "uv " + runtimes.DefaultUVVersion
	put := uv.Put(t, filepath.Join(t.TempDir(), "uv"))
	prog, err := os.ReadFile(put)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := os.ReadFile(testkit.DescribedAt(put))
	if err != nil {
		t.Fatal(err)
	}
	archive := testarchive.TarGz(
		testarchive.File{Name: "uv-" + target + "/uv", Body: string(prog)},
		testarchive.File{Name: "uv-" + target + "/uv.fake.json", Body: string(desc)},
		testarchive.File{Name: "uv-" + target + "/uvx", Body: "#!/bin/sh\nexit 2\n"})
	if ext == ".zip" { // Windows: no top folder
		archive = testarchive.Zip(
			testarchive.File{Name: "uv.exe", Body: string(prog)},
			testarchive.File{Name: "uv.fake.json", Body: string(desc)})
	}
	sum := sha256.Sum256(archive)
	if bad {
		sum[0] ^= 1
	}
	name := "uv-" + target + ext
	files := map[string][]byte{
		"/" + runtimes.DefaultUVVersion + "/" + name:             archive,
		"/" + runtimes.DefaultUVVersion + "/" + name + ".sha256": []byte(hex.EncodeToString(sum[:]) + " *" + name + "\n"),
	}
	srv := newServer(t)
	srv.addAll(files)
	return srv.URL, srv
}

func managedUVInstaller(t *testing.T, mirror string) *Installer {
	in := newInstaller(t)
	in.ManageRuntimes = true
	in.UVMirror = mirror
	in.nodeSearch = []string{}
	return in
}

// With no uv here, acp installs uv's release (checked against its
// .sha256) into runtimes/uv/<version>/, installs the uvx agent with it,
// records it, and gc removes it once no install uses it.
func TestManagedUV(t *testing.T) {
	mirror, hits := uvRelease(t, false)
	in := managedUVInstaller(t, mirror)
	r, _, err := in.Install(context.Background(), Request{Agent: uvxManifest("0.4.1")})
	if err != nil {
		t.Fatal(err)
	}
	uv := filepath.Join(in.Root, "runtimes", "uv", runtimes.DefaultUVVersion, "uv")
	if runtime.GOOS == "windows" {
		uv += ".exe"
	}
	if r.UV != uv {
		t.Errorf("receipt uv = %q, want %s", r.UV, uv)
	}
	if out, err := exec.Command(r.Launch.Command, r.Launch.Args...).Output(); err != nil || string(out) != "uv-agent serve\n" {
		t.Errorf("run: %q %v", out, err)
	}
	if v, err := VersionOf(context.Background(), uv); err != nil || v != "uv "+runtimes.DefaultUVVersion {
		t.Errorf("uv --version = %q %v", v, err)
	}
	// A second agent shares it, without a request.
	before := hits.requests()
	m2 := uvxManifest("0.4.1")
	m2.ID = "demo2"
	if r2, _, err := in.Install(context.Background(), Request{Agent: m2}); err != nil || r2.UV != uv || hits.requests() != before {
		t.Errorf("second agent: %+v %v, %d requests", r2, err, hits.requests()-before)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Dir(uv), old, old)
	for _, id := range []string{"demo", "demo2"} {
		if rep, err := in.GCAll(context.Background()); err != nil || len(rep.Removed) != 0 {
			t.Fatalf("gc while %s uses uv: %+v %v", id, rep, err)
		}
		if _, err := in.Remove(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := in.GCAll(context.Background())
	if err != nil || len(rep.Removed) != 1 || !strings.Contains(rep.Removed[0].Why, "uv "+runtimes.DefaultUVVersion) {
		t.Fatalf("gc after uninstalls: %+v %v", rep, err)
	}
}

// A release whose .sha256 does not match installs nothing; offline
// without a uv already brought is runtime-missing with no request; opted
// out, too.
func TestManagedUVRefusals(t *testing.T) {
	mirror, _ := uvRelease(t, true)
	in := managedUVInstaller(t, mirror)
	_, _, err := in.Install(context.Background(), Request{Agent: uvxManifest("0.4.1")})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("err = %v, want a checksum error", err)
	}
	if rts, _ := in.ManagedRuntimes(); len(rts) != 0 {
		t.Errorf("runtimes after a checksum failure: %+v", rts)
	}
	good, hits := uvRelease(t, false)
	in = managedUVInstaller(t, good)
	in.Offline = true
	if _, _, err := in.Install(context.Background(), Request{Agent: uvxManifest("0.4.1")}); !errors.Is(err, ErrRuntimeMissing) || hits.requests() != 0 {
		t.Errorf("offline: %v, %d requests", err, hits.requests())
	}
	in.Offline, in.ManageRuntimes = false, false
	if _, _, err := in.Install(context.Background(), Request{Agent: uvxManifest("0.4.1")}); !errors.Is(err, ErrRuntimeMissing) || hits.requests() != 0 {
		t.Errorf("opted out: %v, %d requests", err, hits.requests())
	}
}
