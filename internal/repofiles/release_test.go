package repofiles

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The release as people get it (issue 22): build.sh writes one archive per
// platform with both programs, install.sh and SHA256SUMS; install.sh,
// served as a release is, installs both after checking the sum and
// refuses an archive that does not match; the Action runs the
// acp-registry of the same archive. Built for this machine's platform
// only (ACP_RELEASE_PLATFORMS); .ci/run builds all six.
func TestReleaseInstallsAndRuns(t *testing.T) {
	if testing.Short() || runtime.GOOS == "windows" {
		t.Skip("builds the release for this platform (a minute) and runs POSIX shell scripts")
	}
	for _, tool := range []string{"bash", "curl", "tar", "gzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	out := filepath.Join(t.TempDir(), "release")
	build := exec.Command(filepath.Join(Root(), ".github", "release", "build.sh"), out, "v9.9.9")
	build.Env = append(os.Environ(), "ACP_RELEASE_PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, b)
	}
	archive := "acp-" + runtime.GOOS + "-" + runtime.GOARCH + ".tar.gz"
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"SHA256SUMS", archive, "install.sh"}; !slices.Equal(names, want) {
		t.Fatalf("release files %v, want %v", names, want)
	}
	sums, _ := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if !strings.Contains(string(sums), "  "+archive+"\n") || !strings.Contains(string(sums), "  install.sh\n") {
		t.Errorf("SHA256SUMS:\n%s", sums)
	}

	files := http.FileServer(http.Dir(out))
	mux := http.NewServeMux()
	mux.Handle("/owner/repo/releases/download/v9.9.9/", http.StripPrefix("/owner/repo/releases/download/v9.9.9/", files))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	install := func(version string) (string, string, error) {
		dir := filepath.Join(t.TempDir(), "bin")
		cmd := exec.Command("sh", filepath.Join(out, "install.sh"))
		cmd.Env = append(os.Environ(), "ACP_RELEASES_URL="+srv.URL+"/owner/repo/releases", "ACP_INSTALL_DIR="+dir, "ACP_VERSION="+version)
		b, err := cmd.CombinedOutput()
		return dir, string(b), err
	}
	// "": the release's own copy installs that release.
	for _, version := range []string{"v9.9.9", ""} {
		dir, log, err := install(version)
		if err != nil {
			t.Fatalf("install.sh (ACP_VERSION=%q): %v\n%s", version, err, log)
		}
		for _, prog := range []string{"acp", "acp-registry"} {
			v, err := exec.Command(filepath.Join(dir, prog), "--version").CombinedOutput()
			if err != nil || !strings.Contains(string(v), "v9.9.9") {
				t.Errorf("installed %s --version: %q %v", prog, v, err)
			}
		}
		if !strings.Contains(log, "sha256 ") {
			t.Errorf("install.sh does not say it checked the sum:\n%s", log)
		}
	}

	// The Action takes acp-registry from the same archive.
	r := runAction(t, map[string]string{
		"ACP_ACTION_REF":        "v9.9.9",
		"ACP_ACTION_REPOSITORY": "owner/repo",
		"ACP_RELEASES_URL":      srv.URL + "/owner/repo/releases/download",
		"ACP_PATH":              filepath.Join(Root(), "agents"),
		"ACP_SKIP_URLS":         "true",
	})
	if r.code != 0 || !strings.Contains(r.out, "using acp-registry of "+archive+", release v9.9.9 (sha256 ") {
		t.Errorf("the Action on the built release: exit %d\n%s", r.code, r.out)
	}

	// A path: that names no registry fails the job (exit 2, an error
	// annotation), rather than passing every pull request.
	for _, path := range []string{t.TempDir(), Root()} {
		r = runAction(t, map[string]string{
			"ACP_ACTION_REF":        "v9.9.9",
			"ACP_ACTION_REPOSITORY": "owner/repo",
			"ACP_RELEASES_URL":      srv.URL + "/owner/repo/releases/download",
			"ACP_PATH":              path,
			"ACP_SKIP_URLS":         "true",
		})
		if r.code != 2 || r.output != "exit-code=2\n" || !strings.Contains(r.out, "::error title=acp-registry validate::no agents found in") {
			t.Errorf("the Action on %s, which holds no agent: exit %d, output %q\n%s", path, r.code, r.output, r.out)
		}
	}

	// A tampered archive is refused, and nothing is installed.
	if err := os.WriteFile(filepath.Join(out, archive), []byte("not the archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, log, err := install("v9.9.9")
	if err == nil || !strings.Contains(log, "refusing to install it") {
		t.Errorf("install.sh took a tampered archive: %v\n%s", err, log)
	}
	if _, err := os.Stat(filepath.Join(dir, "acp")); err == nil {
		t.Errorf("install.sh installed acp from a tampered archive")
	}
}
