package repofiles

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

// installRelease is release v1.2.3 for this machine as build.sh lays it
// out, with programs that print their names; sums rewrites SHA256SUMS.
func installRelease(t *testing.T, sums func(string) string) map[string]string {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh is for Linux and macOS")
	}
	for _, tool := range []string{"sh", "curl", "tar", "gzip", "mktemp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	asset := "acp-" + runtime.GOOS + "-" + runtime.GOARCH + ".tar.gz"
	archive := string(testarchive.TarGz(
		testarchive.File{Name: "acp", Body: "#!/bin/sh\necho new acp\n"},
		testarchive.File{Name: "acp-registry", Body: "#!/bin/sh\necho new acp-registry\n"}))
	d := sha256.Sum256([]byte(archive))
	list := hex.EncodeToString(d[:]) + "  " + asset + "\n"
	if sums != nil {
		list = sums(list)
	}
	return map[string]string{"v1.2.3/" + asset: archive, "v1.2.3/SHA256SUMS": list}
}

// runInstall runs install.sh with env, installing into dir.
func runInstall(t *testing.T, dir string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join(Root(), ".github", "release", "install.sh"))
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ACP_") || strings.EqualFold(k, "http_proxy") || strings.EqualFold(k, "https_proxy") || strings.EqualFold(k, "all_proxy") || strings.EqualFold(k, "no_proxy") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "ACP_INSTALL_DIR="+dir, "ACP_VERSION=v1.2.3")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A shared install folder where someone planted .acp.new as a link to a
// file of the installing user: install.sh must write its own new file
// (mktemp), never through a name another user could have prepared.
func TestInstallShIgnoresAPlantedLink(t *testing.T) {
	srv := newReleaseServer(t, installRelease(t, nil))
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".acp.new", ".acp-registry.new"} {
		if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	out, err := runInstall(t, dir, "ACP_RELEASES_URL="+srv.URL+"/owner/repo/releases")
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
		t.Errorf("install.sh wrote through the planted link: the link's target now holds %q", got)
	}
	for _, prog := range []string{"acp", "acp-registry"} {
		got, err := exec.Command(filepath.Join(dir, prog)).Output()
		if err != nil || string(got) != "new "+prog+"\n" {
			t.Errorf("%s after the install: %q %v", prog, got, err)
		}
	}
	// Nothing of its own is left beside the programs.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		switch e.Name() {
		case "acp", "acp-registry", ".acp.new", ".acp-registry.new":
		default:
			t.Errorf("install.sh left %s in the install folder", e.Name())
		}
	}
}

// Plain http is for a loopback mirror only, and the host that counts is
// the one curl connects to: in http://localhost:80@otherhost/ the part
// before @ is a user name and password. A proxy on loopback stands for
// the network: a request reaching it is a download from otherhost.
func TestInstallShLoopbackCheckReadsTheHost(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.String())
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer proxy.Close()
	installRelease(t, nil) // the skips
	for _, url := range []string{"http://localhost:80@otherhost.example/releases", "http://127.0.0.1@otherhost.example/releases", "http://otherhost.example/localhost/releases"} {
		dir := filepath.Join(t.TempDir(), "bin")
		out, err := runInstall(t, dir, "ACP_RELEASES_URL="+url, "http_proxy="+proxy.URL, "HTTP_PROXY="+proxy.URL, "no_proxy=", "NO_PROXY=")
		if err == nil {
			t.Errorf("%s: install.sh succeeded\n%s", url, out)
		}
		if !strings.Contains(out, "http") {
			t.Errorf("%s: the refusal does not say why:\n%s", url, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "acp")); err == nil {
			t.Errorf("%s: acp was installed", url)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) > 0 {
		t.Errorf("install.sh fetched over plain http from a host that is not loopback: %v", asked)
	}
}

// sha256sum prints lower case; a SHA256SUMS written by another tool may
// use upper case. The digest is the same.
func TestInstallShAcceptsUpperCaseSums(t *testing.T) {
	srv := newReleaseServer(t, installRelease(t, func(list string) string {
		sum, rest, _ := strings.Cut(list, " ")
		return strings.ToUpper(sum) + " " + rest
	}))
	dir := t.TempDir()
	out, err := runInstall(t, dir, "ACP_RELEASES_URL="+srv.URL+"/owner/repo/releases")
	if err != nil {
		t.Fatalf("install.sh refused an upper-case digest: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "acp")); err != nil {
		t.Errorf("acp not installed: %v", err)
	}
}
