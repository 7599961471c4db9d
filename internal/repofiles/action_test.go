package repofiles

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

// fakeRegistry stands in for a released acp-registry: it answers --help
// with the flag lines cobra prints, writes its arguments one per line to
// $FAKE_ARGS and exits with $FAKE_EXIT.
const fakeRegistry = `#!/bin/sh
if [ "$2" = "--help" ]; then
	case $1 in
	validate) printf '  -h, --help              help for %s\n      --format string     output format\n      --skip-urls         skip network checks\n      --strict            count warnings as errors\n' "$1" ;;
	matrix) printf '  -h, --help              help for %s\n      --out string        folder\n' "$1" ;;
	site) printf '  -h, --help              help for %s\n      --matrix string     snapshot\n      --out string        folder\n      --skip-urls         skip network checks\n' "$1" ;;
	*) printf '  -h, --help              help for %s\n      --format string     output format\n      --skip-urls         skip network checks\n' "$1" ;;
	esac
	exit 0
fi
for a in "$@"; do printf '%s\n' "$a"; done > "$FAKE_ARGS"
exit "${FAKE_EXIT:-0}"
`

// releaseServer serves files under /owner/repo/releases/download/ and
// records the paths asked for.
type releaseServer struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string]string
	asked []string
}

func newReleaseServer(t *testing.T, files map[string]string) *releaseServer {
	s := &releaseServer{files: files}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.asked = append(s.asked, r.URL.Path)
		s.mu.Unlock()
		body, ok := s.files[strings.TrimPrefix(r.URL.Path, "/owner/repo/releases/download/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *releaseServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asked)
}

// release is a fake release of tag for linux/amd64, as build.sh lays one
// out: the archive with both programs, and a SHA256SUMS that lists it
// with sum (its true digest when sum is "").
func release(tag, sum string) map[string]string {
	archive := string(testarchive.TarGz(testarchive.File{Name: "acp", Body: "#!/bin/sh\nexit 9\n"}, testarchive.File{Name: "acp-registry", Body: fakeRegistry}))
	if sum == "" {
		d := sha256.Sum256([]byte(archive))
		sum = hex.EncodeToString(d[:])
	}
	other := strings.Repeat("0", 64)
	return map[string]string{
		tag + "/acp-linux-amd64.tar.gz": archive,
		tag + "/SHA256SUMS": other + "  acp-linux-arm64.tar.gz\n" +
			sum + "  acp-linux-amd64.tar.gz\n" +
			other + "  acp-windows-amd64.zip\n" +
			other + "  install.sh\n",
	}
}

type actionRun struct {
	code   int
	out    string
	args   []string // the fake's arguments; nil when it never ran
	output string   // $GITHUB_OUTPUT
	dir    string   // the working directory it ran in
}

// runAction runs the action's script as action.yml does, with env as the
// step's environment on a Linux x64 runner.
func runAction(t *testing.T, env map[string]string) actionRun {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the action's script runs under bash; Windows runners use Git Bash, not tested here")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	runnerTemp := filepath.Join(tmp, "runner-temp")
	for _, d := range []string{work, runnerTemp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	argsFile := filepath.Join(tmp, "args")
	outputFile := filepath.Join(tmp, "output")
	cmd := exec.Command("bash", filepath.Join(Root(), ".github", "action", "run.sh"))
	cmd.Dir = work
	// The test's own environment less anything the script reads, so a
	// developer's or CI's GITHUB_* settings cannot change the outcome.
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || strings.HasPrefix(k, "ACP_") || strings.HasPrefix(k, "FAKE_") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "RUNNER_OS=Linux", "RUNNER_ARCH=X64", "RUNNER_TEMP="+runnerTemp,
		"GITHUB_OUTPUT="+outputFile, "FAKE_ARGS="+argsFile)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	r := actionRun{out: string(out), dir: work}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run.sh: %v", err)
		}
		r.code = ee.ExitCode()
	}
	if b, err := os.ReadFile(argsFile); err == nil {
		r.args = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	if b, err := os.ReadFile(outputFile); err == nil {
		r.output = string(b)
	}
	if left, _ := filepath.Glob(filepath.Join(runnerTemp, "*")); len(left) > 0 {
		t.Errorf("run.sh left %v in RUNNER_TEMP", left)
	}
	return r
}

func TestActionRunsCheckedReleaseWithInputsAsArguments(t *testing.T) {
	srv := newReleaseServer(t, release("v1.2.3", ""))
	hostile := `my agents/$(touch pwned); touch pwned2 "x`
	r := runAction(t, map[string]string{
		"ACP_ACTION_REF":        "v1.2.3",
		"ACP_ACTION_REPOSITORY": "owner/repo",
		"ACP_RELEASES_URL":      srv.URL + "/owner/repo/releases/download",
		"ACP_COMMAND":           "validate",
		"ACP_PATH":              hostile,
		"ACP_SKIP_URLS":         "true",
		"ACP_STRICT":            "true",
		"ACP_ARGS":              "--agent a,b\n  --jobs 2 *",
		"FAKE_EXIT":             "3",
	})
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (the command's own status)\n%s", r.code, r.out)
	}
	want := []string{"validate", "--format", "github", "--skip-urls", "--strict", "--agent", "a,b", "--jobs", "2", "*", "--", hostile}
	if !slices.Equal(r.args, want) {
		t.Errorf("acp-registry ran with\n %q\nwant\n %q", r.args, want)
	}
	for _, f := range []string{"pwned", "pwned2"} {
		if _, err := os.Stat(filepath.Join(r.dir, f)); err == nil {
			t.Errorf("an input ran as shell code: %s was created", f)
		}
	}
	if r.output != "exit-code=3\n" {
		t.Errorf("GITHUB_OUTPUT = %q, want exit-code=3", r.output)
	}
	if !strings.Contains(r.out, "sha256") || !strings.Contains(r.out, "checked") {
		t.Errorf("the log does not say the checksum was checked:\n%s", r.out)
	}
}

// command: matrix and command: site run with out and matrix as one
// argument each, whatever they hold; matrix is refused for any other
// command, and an input the command has no flag for is exit 2.
func TestActionRunsMatrixAndSite(t *testing.T) {
	srv := newReleaseServer(t, release("v1.2.3", ""))
	base := map[string]string{"ACP_ACTION_REF": "v1.2.3", "ACP_ACTION_REPOSITORY": "owner/repo",
		"ACP_RELEASES_URL": srv.URL + "/owner/repo/releases/download"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		code int
		want []string
	}{
		{"matrix", map[string]string{"ACP_COMMAND": "matrix", "ACP_OUT": "protocol matrix", "ACP_PATH": "agents"}, 0,
			[]string{"matrix", "--out", "protocol matrix", "--", "agents"}},
		{"site", map[string]string{"ACP_COMMAND": "site", "ACP_OUT": "_site", "ACP_MATRIX": "m/$(x) latest.json", "ACP_SKIP_URLS": "true"}, 0,
			[]string{"site", "--skip-urls", "--out", "_site", "--matrix", "m/$(x) latest.json"}},
		{"matrix input for validate", map[string]string{"ACP_COMMAND": "validate", "ACP_MATRIX": "latest.json"}, 2, nil},
		{"strict for site", map[string]string{"ACP_COMMAND": "site", "ACP_STRICT": "true"}, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := maps.Clone(base)
			maps.Copy(env, tc.env)
			r := runAction(t, env)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r.out)
			}
			if !slices.Equal(r.args, tc.want) {
				t.Errorf("acp-registry ran with %q, want %q", r.args, tc.want)
			}
			if tc.code != 0 && !strings.Contains(r.out, "::error") {
				t.Errorf("no error annotation:\n%s", r.out)
			}
		})
	}
}

func TestActionReadsRefAndRepositoryFromItsPath(t *testing.T) {
	// Composite actions are not always given github.action_ref and
	// action_repository; the runner's checkout path names both.
	srv := newReleaseServer(t, release("v1.2.3", ""))
	r := runAction(t, map[string]string{
		"ACP_ACTION_PATH":  filepath.Join(t.TempDir(), "_actions", "owner", "repo", "v1.2.3"),
		"ACP_RELEASES_URL": srv.URL + "/owner/repo/releases/download",
	})
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.out)
	}
	if want := []string{"validate", "--format", "github"}; !slices.Equal(r.args, want) {
		t.Errorf("acp-registry ran with %q, want %q", r.args, want)
	}
	if got := srv.requests(); !slices.Contains(got, "/owner/repo/releases/download/v1.2.3/SHA256SUMS") {
		t.Errorf("asked the server for %v, want v1.2.3's SHA256SUMS", got)
	}
}

func TestActionRefusesABinaryThatDoesNotMatchSHA256SUMS(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"mismatch": release("v1.2.3", strings.Repeat("ab", 32)),
		"unlisted": {
			"v1.2.3/acp-linux-amd64.tar.gz": release("v1.2.3", "")["v1.2.3/acp-linux-amd64.tar.gz"],
			"v1.2.3/SHA256SUMS":             strings.Repeat("0", 64) + "  acp-linux-arm64.tar.gz\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			srv := newReleaseServer(t, files)
			r := runAction(t, map[string]string{
				"ACP_ACTION_REF":        "v1.2.3",
				"ACP_ACTION_REPOSITORY": "owner/repo",
				"ACP_RELEASES_URL":      srv.URL + "/owner/repo/releases/download",
			})
			if r.code != 1 {
				t.Errorf("exit %d, want 1\n%s", r.code, r.out)
			}
			if r.args != nil {
				t.Errorf("the unchecked binary ran with %q", r.args)
			}
			if !strings.Contains(r.out, "::error") || !strings.Contains(r.out, "refusing to run it") {
				t.Errorf("no error annotation that says why:\n%s", r.out)
			}
		})
	}
}

func TestActionRejectsBadInputs(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"command": {"ACP_COMMAND": "publish"},
		"strict":  {"ACP_STRICT": "maybe"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := newReleaseServer(t, release("v1.2.3", ""))
			env["ACP_ACTION_REF"] = "v1.2.3"
			env["ACP_ACTION_REPOSITORY"] = "owner/repo"
			env["ACP_RELEASES_URL"] = srv.URL + "/owner/repo/releases/download"
			r := runAction(t, env)
			if r.code != 2 || r.args != nil || !strings.Contains(r.out, "::error") {
				t.Errorf("exit %d, ran %q; want exit 2 with an error annotation and nothing run\n%s", r.code, r.args, r.out)
			}
		})
	}
}

func TestActionFindsTheReleaseOfAMovingTag(t *testing.T) {
	// uses: owner/repo@v1 — v1 is moved to each v1.x.y release; the
	// release to download is the vX.Y.Z tag on the same commit. A
	// registry's dated tag on that commit has no binaries and is passed over.
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("commit", "-q", "--allow-empty", "-m", "one")
	git("tag", "v1.2.2")
	git("commit", "-q", "--allow-empty", "-m", "two")
	git("tag", "-a", "-m", "release", "v1.2.3")
	git("tag", "v1")
	git("tag", "v2026.11.23-abc1234")

	files := release("v1.2.3", "")
	for k, v := range release("v1.2.2", strings.Repeat("ab", 32)) {
		files[k] = v // a wrong release, to catch picking the older tag
	}
	// The moving tag, and the commit itself (uses: owner/repo@<sha>).
	for _, ref := range []string{"v1", git("rev-parse", "HEAD")} {
		srv := newReleaseServer(t, files)
		r := runAction(t, map[string]string{
			"ACP_ACTION_REF":        ref,
			"ACP_ACTION_REPOSITORY": "owner/repo",
			"ACP_RELEASES_URL":      srv.URL + "/owner/repo/releases/download",
			"ACP_GIT_URL":           repo,
		})
		if r.code != 0 || r.args == nil {
			t.Fatalf("@%s: exit %d, ran %q; want the v1.2.3 binary to run\n%s", ref, r.code, r.args, r.out)
		}
		if got := srv.requests(); !slices.Contains(got, "/owner/repo/releases/download/v1.2.3/acp-linux-amd64.tar.gz") {
			t.Errorf("@%s: asked the server for %v, want v1.2.3's binary", ref, got)
		}
	}
}

func TestActionBuildsFromItsSourceWhenTheRefHasNoRelease(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	// A stand-in module at the action's path, so the test builds a tiny
	// program instead of the whole of acp-registry.
	src := filepath.Join(t.TempDir(), "_actions", "owner", "repo", "main")
	write := func(name, body string) {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/fake\n\ngo 1.21\n")
	write("cmd/acp-registry/main.go", `package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	if len(os.Args) > 2 && os.Args[2] == "--help" {
		fmt.Println("      --skip-urls   skip network checks")
		return
	}
	os.WriteFile(os.Getenv("FAKE_ARGS"), []byte(strings.Join(os.Args[1:], "\n")+"\n"), 0o644)
	os.Exit(5)
}
`)
	srv := newReleaseServer(t, nil)
	r := runAction(t, map[string]string{
		"ACP_ACTION_PATH":       src,
		"ACP_ACTION_REF":        "main",
		"ACP_ACTION_REPOSITORY": "owner/repo",
		"ACP_RELEASES_URL":      srv.URL + "/owner/repo/releases/download",
		"ACP_GIT_URL":           filepath.Join(t.TempDir(), "no-such-repo"),
		"ACP_COMMAND":           "build",
		"ACP_SKIP_URLS":         "yes",
		"ACP_PATH":              "agents",
	})
	if r.code != 5 {
		t.Fatalf("exit %d, want 5 (the built program's status)\n%s", r.code, r.out)
	}
	// This program has no --format: none is passed.
	if want := []string{"build", "--skip-urls", "--", "agents"}; !slices.Equal(r.args, want) {
		t.Errorf("ran with %q, want %q", r.args, want)
	}

	// uses: ./ in the action's own repository: no release is looked up.
	r = runAction(t, map[string]string{
		"GITHUB_WORKSPACE":      filepath.Dir(src),
		"ACP_ACTION_PATH":       src,
		"ACP_ACTION_REF":        "v9.9.9", // whatever the runner says, the checkout wins
		"ACP_ACTION_REPOSITORY": "owner/repo",
		"ACP_RELEASES_URL":      srv.URL + "/owner/repo/releases/download",
		"ACP_GIT_URL":           filepath.Join(t.TempDir(), "no-such-repo"),
	})
	if r.code != 5 {
		t.Fatalf("uses: ./ — exit %d, want 5\n%s", r.code, r.out)
	}
	if got := srv.requests(); len(got) != 0 {
		t.Errorf("uses: ./ asked the release server for %v; want nothing (the checkout is the source)", got)
	}
}

// The Action's downloads: plain http only from loopback, judged on the
// host curl connects to (http://localhost:80@otherhost/ is otherhost; a
// proxy on loopback stands for the network), and SHA256SUMS digests in
// either case.
func TestActionDownloadChecks(t *testing.T) {
	var asked []string
	var mu sync.Mutex
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.String())
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer proxy.Close()
	r := runAction(t, map[string]string{
		"ACP_ACTION_REF":        "v1.2.3",
		"ACP_ACTION_REPOSITORY": "owner/repo",
		"ACP_RELEASES_URL":      "http://localhost:80@otherhost.example/owner/repo/releases/download",
		"http_proxy":            proxy.URL,
		"no_proxy":              "",
		"GOPROXY":               "off", // the fallback to go install must not reach the internet either
	})
	mu.Lock()
	if len(asked) > 0 || r.args != nil || r.code != 1 {
		t.Errorf("plain http to otherhost: exit %d, ran %q, the proxy saw %v\n%s", r.code, r.args, asked, r.out)
	}
	mu.Unlock()

	files := release("v1.2.3", "")
	sums := files["v1.2.3/SHA256SUMS"]
	var upper []string
	for _, line := range strings.SplitAfter(sums, "\n") {
		sum, rest, _ := strings.Cut(line, " ")
		upper = append(upper, strings.ToUpper(sum)+" "+rest)
	}
	files["v1.2.3/SHA256SUMS"] = strings.Join(upper, "")
	if files["v1.2.3/SHA256SUMS"] == sums {
		t.Fatal("the digests did not change case")
	}
	srv := newReleaseServer(t, files)
	r = runAction(t, map[string]string{
		"ACP_ACTION_REF":        "v1.2.3",
		"ACP_ACTION_REPOSITORY": "owner/repo",
		"ACP_RELEASES_URL":      srv.URL + "/owner/repo/releases/download",
	})
	if r.code != 0 || r.args == nil {
		t.Errorf("upper-case SHA256SUMS: exit %d, ran %q\n%s", r.code, r.args, r.out)
	}
}
