package installer

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

// A mirror URL with a password in it (ACP_NODE_MIRROR=https://me:pw@…)
// never shows the password, whatever the mirror gets wrong.
func TestManagedNodeMirrorPasswordNotPrinted(t *testing.T) {
	_, toolEnv := fakeHome(t)
	good := newNodeMirror(t, map[string][]byte{"v95.1.0": fakeNodeBuild(t, "v95.1.0", npmScript(t))}, map[string]bool{"v95.1.0": true}, false)
	notJSON := newServer(t)
	notJSON.add("/index.json", []byte("<html>login</html>"))
	noLine := newNodeMirror(t, map[string][]byte{"v95.1.0": fakeNodeBuild(t, "v95.1.0", npmScript(t))}, map[string]bool{"v95.1.0": true}, false)
	noLine.add("/v95.1.0/SHASUMS256.txt", []byte("nothing here\n"))
	empty := newServer(t)
	empty.add("/index.json", []byte("[]"))
	for name, url := range map[string]string{"not a URL": good.URL + "/\x01", "space in host": "http://127.0.0.1 /",
		"not JSON": notJSON.URL, "no sha line": noLine.URL, "no release": empty.URL, "fine": good.URL + "/missing"} {
		withPW := strings.Replace(url, "http://", "http://me:s3cret@", 1)
		in := managedInstaller(t, withPW, toolEnv)
		_, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()})
		if err == nil {
			t.Errorf("%s: installed", name)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the mirror's password: %v", name, err)
		}
	}
}

// A mirror's index.json of many megabytes (nodejs.org's is under one) is
// refused before it is read into memory, with a sentence naming it.
func TestManagedNodeHugeIndexRefused(t *testing.T) {
	_, toolEnv := fakeHome(t)
	huge := newServer(t)
	huge.add("/index.json", append(bytes.Repeat([]byte(" "), 40<<20), "[]"...))
	in := managedInstaller(t, huge.URL, toolEnv)
	_, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()})
	if err == nil || !strings.Contains(err.Error(), "index.json") || !strings.Contains(err.Error(), "16 MiB") {
		t.Fatalf("err = %v, want index.json refused as too large", err)
	}
}

// A uv .sha256 of many megabytes is not uv's (one line): it is refused
// before it is read into memory, and nothing is installed.
func TestManagedUVHugeSumRefused(t *testing.T) {
	mirror, srv := uvRelease(t, false)
	target, ext, _ := runtimes.UVTarget(runtime.GOOS, runtime.GOARCH)
	p := "/" + runtimes.DefaultUVVersion + "/uv-" + target + ext + ".sha256"
	srv.mu.Lock()
	srv.files[p] = append(srv.files[p], bytes.Repeat([]byte("\n"), 40<<20)...)
	srv.mu.Unlock()
	in := managedUVInstaller(t, mirror)
	_, _, err := in.Install(context.Background(), Request{Agent: uvxManifest("0.4.1")})
	if err == nil || !strings.Contains(err.Error(), ".sha256") || !strings.Contains(err.Error(), "4 KiB") {
		t.Fatalf("err = %v, want the .sha256 refused as too large", err)
	}
}

// An archive whose bin/node is a link out of it (to /bin/sh) installs
// nothing: acp would run a program that is not the build's.
func TestManagedNodeLinkOutRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("node.exe sits at the build's top on Windows; links in zips are refused alike")
	}
	_, toolEnv := fakeHome(t)
	plat, _, _, _ := runtimes.NodeBuild(runtime.GOOS, runtime.GOARCH)
	top := "node-v95.1.0-" + plat + "/"
	for name, e := range map[string]testarchive.Entry{
		"absolute":      {Type: tar.TypeSymlink, Link: "/bin/sh"},
		"relative":      {Type: tar.TypeSymlink, Link: "../../../../../../../../../../bin/sh"},
		"hard absolute": {Type: tar.TypeLink, Link: "/bin/sh"},
		"hard relative": {Type: tar.TypeLink, Link: "../../../../../../../../../../bin/sh"},
	} {
		e.Name = top + "bin/node"
		link := e.Link
		archive := testarchive.HostileTar(t, []testarchive.Entry{
			{Name: top + "bin/", Type: tar.TypeDir, Mode: 0o755},
			e,
			testarchive.Executable(top+"bin/npm", npmScript(t)),
		}, "gz")
		mirror := newNodeMirror(t, map[string][]byte{"v95.1.0": archive}, map[string]bool{"v95.1.0": true}, false)
		in := managedInstaller(t, mirror.URL, toolEnv)
		_, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()})
		if err == nil {
			t.Errorf("%s: installed with bin/node a link to %s", name, link)
		}
		if _, serr := os.Lstat(filepath.Join(in.Root, "runtimes", "node", "v95.1.0")); serr == nil {
			t.Errorf("%s: the build was put in place (%v)", name, err)
		}
	}
}

// A mirror's SHASUMS256.txt (or uv's .sha256) whose digest is not hex is
// the mirror's fault, a checksum error: not a bad manifest the user is
// told to fix, and nothing is downloaded against it.
func TestManagedRuntimeNonHexSumIsTheMirrors(t *testing.T) {
	_, toolEnv := fakeHome(t)
	notHex := strings.Repeat("z", 64)
	plat, ext, _, _ := runtimes.NodeBuild(runtime.GOOS, runtime.GOARCH)
	node := newNodeMirror(t, map[string][]byte{"v95.1.0": fakeNodeBuild(t, "v95.1.0", npmScript(t))}, map[string]bool{"v95.1.0": true}, false)
	node.add("/v95.1.0/SHASUMS256.txt", []byte(notHex+"  node-v95.1.0-"+plat+ext+"\n"))
	in := managedInstaller(t, node.URL, toolEnv)
	if _, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()}); !errors.Is(err, ErrChecksum) || strings.Contains(err.Error(), "manifest") {
		t.Errorf("node: err = %v, want the mirror's checksum error", err)
	}
	uvMirror, srv := uvRelease(t, false)
	target, uext, _ := runtimes.UVTarget(runtime.GOOS, runtime.GOARCH)
	srv.add("/"+runtimes.DefaultUVVersion+"/uv-"+target+uext+".sha256", []byte(notHex+" *uv-"+target+uext+"\n"))
	uin := managedUVInstaller(t, uvMirror)
	if _, _, err := uin.Install(context.Background(), Request{Agent: uvxManifest("0.4.1")}); !errors.Is(err, ErrChecksum) || strings.Contains(err.Error(), "manifest") {
		t.Errorf("uv: err = %v, want the mirror's checksum error", err)
	}
}

// An index.json with no release for this machine says so in a sentence
// (no "needs Node.js , and" when the package names no engines.node).
func TestManagedNodeEmptyIndexSentence(t *testing.T) {
	_, toolEnv := fakeHome(t)
	empty := newServer(t)
	empty.add("/index.json", []byte("[]"))
	in := managedInstaller(t, empty.URL, toolEnv)
	_, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()})
	if err == nil || strings.Contains(err.Error(), "Node.js ,") || !strings.Contains(err.Error(), "lists no release") {
		t.Errorf("err = %v", err)
	}
}

// A mirror that streams an endless index.json is cut off at the index's
// bound while it streams: it neither fills the disk up to the 4 GiB
// download bound nor holds the install until the stall timeout.
func TestManagedNodeEndlessIndexCutOff(t *testing.T) {
	_, toolEnv := fakeHome(t)
	endless := newServer(t)
	endless.handle("/index.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("["))
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	in := managedInstaller(t, endless.URL, toolEnv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a bound on failure only
	defer cancel()
	_, _, err := in.Install(ctx, Request{Agent: claudeManifest()})
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "index.json") || !strings.Contains(err.Error(), "16 MiB") {
		t.Fatalf("err = %v, want index.json cut off at its bound", err)
	}
}
