package installer

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func phases(t *testing.T, events string) []string {
	var out []string
	for _, e := range decodeEvents(t, events) {
		if e.Event == "progress" && (len(out) == 0 || out[len(out)-1] != e.Phase) {
			out = append(out, e.Agent+":"+e.Phase)
		}
	}
	return out
}

// An editor reading --progress json sees each install's phases, ending in
// done, for binaries and npm alike.
func TestProgressEvents(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	in := newInstaller(t)
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)
	if _, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", srv.add("/a.tgz", body), "agent", sha(body))}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(phases(t, events.String()), " "); !strings.HasPrefix(got, "demo:download") || !strings.HasSuffix(got, "demo:done") {
		t.Errorf("binary phases = %s", got)
	}

	home, toolEnv := fakeHome(t)
	testkit.LinkSelf(t, filepath.Join(home, ".nvm/versions/node/v92.0.0/bin/node"))
	in = npxInstaller(t, shapedNPM(t, claudeShaped(">=22"), ""), toolEnv)
	events.Reset()
	in.Progress = progress.NewJSON(&events)
	if _, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(phases(t, events.String()), " "); got != "claude-agent:npm claude-agent:done" {
		t.Errorf("npx phases = %s\n%s", got, events.String())
	}
	// Already installed: nothing to report.
	events.Reset()
	if _, already, err := in.Install(context.Background(), Request{Agent: claudeManifest()}); err != nil || !already || events.Len() != 0 {
		t.Errorf("second install: already=%v err=%v events=%s", already, err, events.String())
	}
}

// Offline nothing is fetched: a binary is not downloaded (not-installed),
// npm and uv run with their own --offline.
func TestOffline(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	url := srv.add("/a.tgz", body)
	in := newInstaller(t)
	in.Offline = true
	_, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", sha(body))})
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "offline") || srv.count("/a.tgz") != 0 {
		t.Errorf("err = %v, downloads %d", err, srv.count("/a.tgz"))
	}

	home, toolEnv := fakeHome(t)
	testkit.LinkSelf(t, filepath.Join(home, ".nvm/versions/node/v92.0.0/bin/node"))
	in = npxInstaller(t, shapedNPM(t, claudeShaped(">=22"), ""), toolEnv)
	in.Offline = true
	in.CacheDir = t.TempDir()
	r, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()})
	if err != nil {
		t.Fatal(err)
	}
	call, _ := os.ReadFile(filepath.Join(r.Dir, "npm-call.txt"))
	for _, want := range []string{
		"cwd: " + filepath.Dir(r.Dir), // the install's temporary folder, renamed since
		" --offline ",
		" -- @agentclientprotocol/claude-agent-acp@0.101.0\n",
		"cache: " + filepath.Join(in.CacheDir, "npm") + "\n",
	} {
		if !strings.Contains(string(call), want) {
			t.Errorf("npm was run as\n%s\nwant %q", call, want)
		}
	}
	if strings.Contains(string(call), "cwd: "+r.Dir+"\n") || !strings.Contains(string(call), "cwd: "+filepath.Join(filepath.Dir(r.Dir), ".tmp-0.101.0-")) {
		t.Errorf("npm did not run in the install's own folder:\n%s", call)
	}

	uv, record := fakeUV(t, false)
	in = newInstaller(t)
	in.LookPath = runners("uv")
	in.UV, in.Offline, in.CacheDir, in.ToolEnv = uv, true, t.TempDir(), toolEnv
	if _, _, err := in.Install(context.Background(), Request{Agent: uvxManifest("0.4.1")}); err != nil {
		t.Fatal(err)
	}
	rec, _ := os.ReadFile(record)
	if !strings.Contains(string(rec), "args: tool install --offline -- fast-agent-mcp[acp]==0.4.1\n") || !strings.Contains(string(rec), "cache: "+filepath.Join(in.CacheDir, "uv")+"\n") {
		t.Errorf("uv was run as\n%s", rec)
	}
}

// When the preferred binary cannot be fetched, the agent's npx
// distribution is tried, and the reporter says so.
func TestFallbackToNextDistribution(t *testing.T) {
	srv := newServer(t)
	url := srv.handle("/a.tgz", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusBadGateway) })
	home, toolEnv := fakeHome(t)
	testkit.LinkSelf(t, filepath.Join(home, ".nvm/versions/node/v92.0.0/bin/node"))
	in := npxInstaller(t, shapedNPM(t, claudeShaped(">=22"), ""), toolEnv)
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)
	m := claudeManifest()
	m.Distribution.Binary = binaryManifest("claude-agent", "0.101.0", url, "agent", "").Distribution.Binary
	r, _, err := in.Install(context.Background(), Request{Agent: m})
	if err != nil {
		t.Fatal(err)
	}
	if r.Distribution != registry.KindNpx || srv.count("/a.tgz") == 0 {
		t.Errorf("installed %s after %d downloads", r.Distribution, srv.count("/a.tgz"))
	}
	if !strings.Contains(events.String(), "the binary distribution could not be fetched") || !strings.Contains(events.String(), "trying npx") {
		t.Errorf("the fallback was not said:\n%s", events.String())
	}
}

// A failed install is remembered for a few minutes: the next command gets
// the same error at once, without a download; --force tries again.
func TestFailureRemembered(t *testing.T) {
	srv := newServer(t)
	url := srv.handle("/a.tgz", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) })
	in := newInstaller(t)
	in.CacheDir = t.TempDir()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	in.Now = func() time.Time { return now }
	m := binaryManifest("demo", "1.0.0", url, "agent", "")
	_, _, err := in.Install(context.Background(), Request{Agent: m})
	if !errors.Is(err, ErrDownload) {
		t.Fatalf("err = %v", err)
	}
	hits := srv.count("/a.tgz")
	now = now.Add(2 * time.Minute)
	_, err2 := in.Resolve(context.Background(), Request{Agent: m}, InstallIfMissing)
	if !errors.Is(err2, ErrDownload) || !strings.Contains(err2.Error(), "this failed 2m0s ago") || !strings.Contains(err2.Error(), "acp install demo --force") || srv.count("/a.tgz") != hits {
		t.Errorf("second attempt: %v (downloads %d, before %d)", err2, srv.count("/a.tgz"), hits)
	}
	if _, _, err := in.Install(context.Background(), Request{Agent: m, Force: true}); err == nil || srv.count("/a.tgz") == hits {
		t.Errorf("--force did not try again")
	}
	hits = srv.count("/a.tgz")
	now = now.Add(6 * time.Minute)
	in.Install(context.Background(), Request{Agent: m})
	if srv.count("/a.tgz") == hits {
		t.Errorf("not tried again after the memory expired")
	}
	// Success forgets the failure.
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	m = binaryManifest("demo", "1.0.0", srv.add("/b.tgz", body), "agent", "")
	if _, _, err := in.Install(context.Background(), Request{Agent: m, Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(in.CacheDir, "failed", "demo@1.0.0.json")); !os.IsNotExist(err) {
		t.Errorf("the failure is still remembered after a success: %v", err)
	}
}

// npm that cannot reach its registry is a network failure too: the
// agent's uvx distribution is tried next.
func TestFallbackFromNpmToUv(t *testing.T) {
	home, toolEnv := fakeHome(t)
	node := testkit.LinkSelf(t, filepath.Join(home, ".nvm/versions/node/v92.0.0/bin/node"))
	npm := shapedNPM(t, nil, "npm error code ENOTFOUND\nnpm error network request to https://registry.npmjs.org/x failed")
	uv, _ := fakeUV(t, false)
	in := npxInstaller(t, npm, toolEnv)
	in.UV = uv
	in.LookPath = func(name string) (string, error) {
		return map[string]string{"node": node, "npm": npm, "uv": uv}[name], nil
	}
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)
	m := uvxManifest("0.4.1")
	m.Distribution.Npx = &registry.Package{Package: "fast-agent-npm@0.4.1"}
	r, _, err := in.Install(context.Background(), Request{Agent: m})
	if err != nil {
		t.Fatal(err)
	}
	if r.Distribution != registry.KindUvx || !strings.Contains(events.String(), "trying uvx") {
		t.Errorf("installed %s; events:\n%s", r.Distribution, events.String())
	}
}

// Offline, an installed agent is simply there.
func TestOfflineInstalled(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	m := binaryManifest("demo", "1.0.0", srv.add("/a.tgz", body), "agent", sha(body))
	in := newInstaller(t)
	if _, _, err := in.Install(context.Background(), Request{Agent: m}); err != nil {
		t.Fatal(err)
	}
	in.Offline = true
	if _, already, err := in.Install(context.Background(), Request{Agent: m}); err != nil || !already {
		t.Errorf("offline install of an installed agent: already=%v err=%v", already, err)
	}
	if _, err := in.Resolve(context.Background(), Request{Agent: m}, InstallIfMissing); err != nil {
		t.Errorf("offline resolve: %v", err)
	}
}

// A binary install reports download (with its bytes), verify (the sha256
// check), extract and done, in that order, and never shows a password
// from the archive's URL.
func TestBinaryProgressPhases(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript), file("big.bin", strings.Repeat("x", 600<<10))}, "")
	url := strings.Replace(srv.add("/a.tar", body), "http://", "http://user:s3cret@", 1)
	in := newInstaller(t)
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)
	if _, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", sha(body))}); err != nil {
		t.Fatal(err)
	}
	var seq []string
	var lastBytes, total int64
	for _, e := range decodeEvents(t, events.String()) {
		if e.Event != "progress" || e.Agent != "demo" {
			t.Errorf("unexpected event %+v", e)
			continue
		}
		if e.Bytes > 0 {
			if e.Phase != progress.Download || e.Bytes <= lastBytes {
				t.Errorf("bytes event %+v out of place", e)
			}
			lastBytes, total = e.Bytes, e.Total
		}
		if len(seq) == 0 || seq[len(seq)-1] != e.Phase {
			seq = append(seq, e.Phase)
		}
	}
	if got := strings.Join(seq, " "); got != "download verify extract done" {
		t.Errorf("phases = %s\n%s", got, events.String())
	}
	if lastBytes != int64(len(body)) || total != int64(len(body)) {
		t.Errorf("last bytes event %d of %d, want %d", lastBytes, total, len(body))
	}
	if strings.Contains(events.String(), "s3cret") {
		t.Errorf("a password reached the events:\n%s", events.String())
	}

	// Without a sha256 nothing is verified, and no verify phase claims it.
	events.Reset()
	m := binaryManifest("other", "1.0.0", srv.add("/b.tar", body), "agent", "")
	if _, _, err := in.Install(context.Background(), Request{Agent: m}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(events.String(), `"phase":"verify"`) {
		t.Errorf("verify phase without a sha256:\n%s", events.String())
	}
}

// A failed install reports no done: the error is the end, and an editor
// that sees done would show the agent as ready.
func TestFailedInstallReportsNoDone(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	m := binaryManifest("demo", "1.0.0", srv.add("/a.tgz", body), "agent", strings.Repeat("0", 64))
	if _, _, err := in.Install(context.Background(), Request{Agent: m}); !errors.Is(err, ErrChecksum) {
		t.Fatalf("Install = %v, want a checksum failure", err)
	}
	for _, p := range phases(t, events.String()) {
		if p == "demo:done" {
			t.Fatalf("a failed install reported done:\n%s", events.String())
		}
	}
}
