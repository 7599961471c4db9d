package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/platform"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"

	"github.com/agentclientprotocol/acp-registry-go/registry"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/verify"
)

// fakeAgentArchive is a tar.gz holding this test binary as the agent
// executable: the Go fake agent, so the tests run on every OS. It is
// built once (the binary is large) and compressed for speed.
var fakeAgentArchive = sync.OnceValues(func() ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	body, err := os.ReadFile(exe)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: agentExe, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(body))}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(body); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
})

var agentExe = "agent" + map[bool]string{true: ".exe"}[runtime.GOOS == "windows"]

// verifyTree writes a registry whose binary agents download the fake
// agent from a loopback server, each with a behaviour in its env; npx
// and uvx entries have no runner (PATH is emptied), so they are skipped.
func verifyTree(t *testing.T) string {
	t.Helper()
	archive, err := fakeAgentArchive()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(archive) }))
	t.Cleanup(srv.Close)
	t.Setenv("ACP_PLATFORM", "")
	plat, err := platform.Current()
	if err != nil {
		t.Skip(err)
	}
	other := registry.Platform("darwin-aarch64")
	if plat == other {
		other = "linux-x86_64"
	}

	root := t.TempDir()
	write := func(id string, dist map[string]any) {
		m := map[string]any{"id": id, "name": id, "version": "1.0.0", "description": "test agent", "distribution": dist}
		data, _ := json.Marshal(m)
		os.MkdirAll(filepath.Join(root, id), 0o755)
		if err := os.WriteFile(filepath.Join(root, id, "agent.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := func(behaviour string) map[string]any {
		return map[string]any{string(plat): map[string]any{"archive": srv.URL + "/agent.tar.gz", "cmd": agentExe, "env": map[string]string{"ACP_FAKE_AGENT": behaviour}}}
	}
	write("good", map[string]any{"binary": bin(fakeagent.Sessions), "npx": map[string]any{"package": "good@1.0.0"}})
	write("envonly", map[string]any{"binary": bin(fakeagent.EnvVarOnly)})
	write("crash", map[string]any{"binary": bin(fakeagent.ExitNow)})
	write("held", map[string]any{"binary": bin(fakeagent.Valid)})
	write("macos", map[string]any{"binary": map[string]any{string(other): map[string]any{"archive": srv.URL + "/a.tar.gz", "cmd": "agent"}}})
	os.WriteFile(filepath.Join(root, "quarantine.json"), []byte(`{"held": "hangs on CI, issue #7"}`), 0o644)
	t.Setenv("ACP_PLATFORM", string(plat))
	t.Setenv("PATH", t.TempDir())
	t.Setenv("GITHUB_ACTIONS", "") // text by default, also on CI
	return root
}

func TestVerifyCommand(t *testing.T) {
	root := verifyTree(t)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"verify", root, "--json", "--jobs", "3", "--timeout", "10s"}, strings.NewReader(""), &stdout, &stderr)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (a failing agent)\n%s", code, stderr.String())
	}
	var rep verify.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, stdout.String())
	}
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.ID+"/"+string(r.Distribution)+" "+string(r.Status)+": "+r.Reason)
	}
	want := []string{
		"crash/binary fail: agent exited with status 1 before answering initialize; stderr: fatal: cannot find configuration",
		"envonly/binary fail: no auth method of type agent or terminal (methods: env_var OPENAI_API_KEY)",
		"good/binary pass: ",
		"good/npx skip: good 1.0.0 cannot be installed here: npx distribution needs Node.js (node and npm): install it from https://nodejs.org",
		"held/binary skip: quarantined: hangs on CI, issue #7",
		"macos/binary skip: macos 1.0.0 cannot be installed here: no binary for " + os.Getenv("ACP_PLATFORM") + " (binaries exist for " + string(otherPlatform()) + ")",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep.Summary != (verify.Summary{Pass: 1, Fail: 2, Skip: 3, Quarantined: 1}) {
		t.Errorf("summary %+v", rep.Summary)
	}
	good := rep.Results[2]
	if string(good.ProtocolVersion) != "1" || good.AgentInfo == nil || good.AgentInfo.Version != "1.2.3" || len(good.AuthMethods) != 2 || good.AuthMethods[0].Type != "terminal" {
		t.Errorf("good result %+v", good)
	}

	// --agent and --type narrow the run; text output ends with the summary.
	stdout.Reset()
	code = run(context.Background(), []string{"verify", root, "--agent", "good", "--type", "binary", "--auth-check"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 || !strings.HasPrefix(stdout.String(), "pass  good (binary): auth terminal terminal-login, env_var api-key") || !strings.HasSuffix(stdout.String(), "1 passed, 0 failed, 0 skipped\n") {
		t.Errorf("exit %d:\n%s", code, stdout.String())
	}
}

func otherPlatform() registry.Platform {
	if os.Getenv("ACP_PLATFORM") == "darwin-aarch64" {
		return "linux-x86_64"
	}
	return "darwin-aarch64"
}

func TestVerifyUsage(t *testing.T) {
	root := verifyTree(t)
	for _, args := range [][]string{
		{"verify", root, "--agent", "nope"},
		{"verify", root, "--type", "docker"},
		{"verify", root, "--jobs", "0"},
		{"verify", root, "--install-jobs", "0"},
		{"verify", root, "--format", "yaml"},
		{"verify", root, "--json", "--format", "text"},
		{"verify", filepath.Join(root, "missing")},
		{"verify", root, "--sandbox", filepath.Join(root, "quarantine.json")},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		// With --json the one thing on stdout is the usage error document.
		wantOut := ""
		if slices.Contains(args, "--json") {
			wantOut = `"code": "usage"`
		}
		if code != 2 || (wantOut == "" && stdout.Len() != 0) || !strings.Contains(stdout.String(), wantOut) {
			t.Errorf("%v: exit %d, stdout %q, want 2 and %q\n%s", args, code, stdout.String(), wantOut, stderr.String())
		}
	}
}

func TestMatrixCommand(t *testing.T) {
	root := verifyTree(t)
	out := filepath.Join(t.TempDir(), "matrix")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"matrix", root, "--out", out, "--timeout", "10s", "--rpc-timeout", "1s"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	today := time.Now().UTC().Format("2006-01-02")
	wantOut := []string{filepath.Join(out, "snapshots", today+".json"), filepath.Join(out, "snapshots", today+".md"),
		filepath.Join(out, verify.MatrixLatestJSON), filepath.Join(out, verify.MatrixLatestMarkdown)}
	if stdout.String() != strings.Join(wantOut, "\n")+"\n" {
		t.Errorf("stdout %q", stdout.String())
	}
	md, err := os.ReadFile(filepath.Join(out, verify.MatrixLatestMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	// The good agent opens sessions; the others never answer session calls.
	if !regexp.MustCompile(`(?m)^good +1\.0\.0 +binary +ok +env_var, terminal +ok +loadSession, session/list, session/resume, logout +Y/yes +N/yes +Y/yes +N/n/a +Y/yes *$`).Match(md) {
		t.Errorf("matrix lacks the good agent's row:\n%s", md)
	}
	// A quarantined agent is no row (upstream leaves it out); stderr names
	// it with its reason and counts it.
	if strings.Contains(string(md), "| held |") || !strings.Contains(stderr.String(), "skip held: quarantined: hangs on CI, issue #7") ||
		!strings.Contains(stderr.String(), "1 quarantined") {
		t.Errorf("quarantined agent: stderr %q\n%s", stderr.String(), md)
	}
	// --previous: nothing changed, so every row is reused and no agent runs.
	out2 := filepath.Join(t.TempDir(), "matrix")
	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"matrix", root, "--out", out2, "--date", "2026-08-21", "--previous", filepath.Join(out, verify.MatrixLatestJSON)}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	mx, err := verify.ReadMatrix(filepath.Join(out2, "snapshots", "2026-08-21.json"))
	if err != nil {
		t.Fatal(err)
	}
	if mx.Summary.AgentsReused != len(mx.Agents) || mx.Summary.AgentsProbedThisRun != 0 || !mx.ChangedOnly {
		t.Errorf("second run summary %+v, want every row reused", mx.Summary)
	}
}

// Ctrl-C while agents install or answer: no verdicts, a plain sentence,
// and not the bare "context canceled".
func TestVerifyInterrupted(t *testing.T) {
	root := verifyTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"verify", root, "--json"}, strings.NewReader(""), &stdout, &stderr)
	// --json: no verdicts, only the error document.
	if code != 1 || !strings.Contains(stdout.String(), `"code": "interrupted"`) || strings.Contains(stdout.String(), "results") ||
		!strings.Contains(stderr.String(), "acp-registry: interrupted (context canceled); no verdict was given") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// One broken manifest must not stop verifying the agents asked for, and
// when it is among them the error names the file in the registry's terms.
func TestVerifyBrokenManifestElsewhere(t *testing.T) {
	root := verifyTree(t)
	os.MkdirAll(filepath.Join(root, "broken"), 0o755)
	os.WriteFile(filepath.Join(root, "broken", "agent.json"), []byte(`{"id": "broken", "authors": [{"name": "x"}]}`), 0o644)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"verify", root, "--agent", "good,good", "--type", "binary"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 || !strings.HasSuffix(stdout.String(), "1 passed, 0 failed, 0 skipped\n") {
		t.Errorf("--agent good: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"verify", root}, strings.NewReader(""), &stdout, &stderr)
	want := "cannot verify " + filepath.Join(root, "broken", "agent.json") + ": it does not match the manifest schema: fix it (acp-registry validate shows where), or verify the others with --agent"
	if code != 1 || stdout.Len() != 0 || !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "Go struct") {
		t.Errorf("whole tree: exit %d, stderr %q", code, stderr.String())
	}
}

// A quarantine entry for an agent that no longer exists is named on
// stderr; a syntax error in quarantine.json has a position.
func TestVerifyQuarantineMessages(t *testing.T) {
	root := verifyTree(t)
	os.WriteFile(filepath.Join(root, "quarantine.json"), []byte(`{"held": "hangs", "renamed": "old id"}`), 0o644)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"verify", root, "--agent", "macos"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 || !strings.Contains(stderr.String(), `quarantine.json names "renamed", which is not an agent of this registry: remove the entry`) || strings.Contains(stderr.String(), `"held"`) {
		t.Errorf("stale entry: exit %d, stderr %q", code, stderr.String())
	}
	os.WriteFile(filepath.Join(root, "quarantine.json"), []byte("{\"held\": \"hangs\",\n}"), 0o644)
	stderr.Reset()
	code = run(context.Background(), []string{"verify", root, "--agent", "macos"}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "quarantine.json: line 1, column 17: trailing comma") {
		t.Errorf("syntax error: exit %d, stderr %q", code, stderr.String())
	}
}

// verify installs untrusted packages, and npm runs their install scripts
// before any handshake: those see the sandbox too, not the job's tokens.
func TestVerifyInstallToolsRunSandboxed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm's package bin is a #!/bin/sh script, which the installer rightly refuses where there is no /bin/sh")
	}
	bin := filepath.Dir(testkit.FakeNPM(t))
	testkit.FakeTool{}.Put(t, filepath.Join(bin, "node")) // a node that says nothing
	t.Setenv("PATH", bin+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
	t.Setenv("GITHUB_TOKEN", "ghs_secret")
	t.Setenv("NPM_TOKEN", "npm_secret")
	m := &registry.Manifest{ID: "demo", Version: "1.0.0", Distribution: registry.Distribution{
		Npx: &registry.Package{Package: "@acp-test/fake-agent@1.0.0"},
	}}
	dir := t.TempDir()
	spec, err := sandboxInstall(cli.Streams{Err: io.Discard}, "linux-x86_64")(context.Background(), m, registry.KindNpx, dir)
	if err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(filepath.Join(dir, "agents", "demo", "1.0.0", "env.txt"))
	if err != nil {
		t.Fatalf("%v (spec %+v)", err, spec)
	}
	for _, secret := range []string{"ghs_secret", "npm_secret"} {
		if strings.Contains(string(env), secret) {
			t.Errorf("%s reached npm:\n%s", secret, env)
		}
	}
	if !strings.Contains(string(env), "HOME="+filepath.Join(dir, ".home")+"\n") {
		t.Errorf("npm did not run with the sandbox HOME:\n%s", env)
	}
}

// Under GitHub Actions verify annotates each failure on its manifest and
// appends a summary table to the step summary.
func TestVerifyGitHubFormat(t *testing.T) {
	root := verifyTree(t)
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"verify", root, "--agent", "crash,good", "--type", "binary"}, strings.NewReader(""), &stdout, &stderr)
	want := "::error file=" + safetext.AnnotationProperty(filepath.ToSlash(filepath.Join(root, "crash", "agent.json"))) + ",title=verify crash (binary)::agent exited with status 1 before answering initialize; stderr: fatal: cannot find configuration\n"
	if code != 3 || !strings.Contains(stdout.String(), want) || !strings.Contains(stdout.String(), "pass  good (binary)") {
		t.Errorf("exit %d, stdout:\n%s\nwant the line %q", code, stdout.String(), want)
	}
	md, _ := os.ReadFile(summary)
	if !strings.Contains(string(md), "## ACP registry verify\n\n1 passed, 1 failed, 0 skipped\n") || !strings.Contains(string(md), "| crash | binary | fail | agent exited with status 1") {
		t.Errorf("step summary:\n%s", md)
	}
}

// verify --shard I/N on each runner, then --merge: the report and exit
// status of one run over every agent (timings aside). matrix likewise,
// into the same files.
func TestVerifyAndMatrixShards(t *testing.T) {
	root := verifyTree(t)
	timings := regexp.MustCompile(`"(installMs|handshakeMs)": [0-9]+|"durationSeconds": [0-9.]+|"(generatedAt|probedAt)": "[^"]*"`)
	runIt := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	sandbox := t.TempDir()
	code, whole, errs := runIt("verify", root, "--json", "--timeout", "10s", "--sandbox", sandbox)
	if code != 3 {
		t.Fatalf("unsharded: exit %d\n%s", code, errs)
	}
	var files []string
	for i := 1; i <= 3; i++ {
		_, out, errs := runIt("verify", root, "--json", "--timeout", "10s", "--sandbox", sandbox, "--shard", fmt.Sprintf("%d/3", i))
		if !strings.Contains(out, `"results"`) {
			t.Fatalf("shard %d: %s", i, errs)
		}
		p := filepath.Join(t.TempDir(), "verify.json")
		os.WriteFile(p, []byte(out), 0o644)
		files = append(files, p)
	}
	code, merged, errs := runIt("verify", root, "--json", "--merge", strings.Join(files, ","))
	if code != 3 || timings.ReplaceAllString(merged, "") != timings.ReplaceAllString(whole, "") {
		t.Errorf("merged: exit %d\n%s\nwant\n%s\n%s", code, merged, whole, errs)
	}
	if code, _, errs := runIt("verify", root, "--shard", "4/3"); code != 2 || !strings.Contains(errs, "--shard") {
		t.Errorf("--shard 4/3: exit %d %s", code, errs)
	}
	// Part of a run, a shard twice, the whole run's output, or a registry
	// that lacks the shards' agents: no merge (exit 2), rather than a
	// report that passes with agents left out or added.
	wholeFile := filepath.Join(t.TempDir(), "whole.json")
	os.WriteFile(wholeFile, []byte(whole), 0o644)
	lacking := t.TempDir()
	os.MkdirAll(filepath.Join(lacking, "good"), 0o755)
	os.WriteFile(filepath.Join(lacking, "good", "agent.json"), []byte(`{"id": "good"}`), 0o644)
	for _, c := range []struct {
		root, files, want string
	}{
		{root, files[0] + "," + files[1], "shard 3/3 is missing"},
		{root, files[0] + "," + files[1] + "," + files[1], "shard 2/3 is given twice"},
		{root, wholeFile + "," + files[1], "not written with --shard"},
		{lacking, strings.Join(files, ","), "which the registry does not have"},
	} {
		if code, out, errs := runIt("verify", c.root, "--merge", c.files); code != 2 || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("verify --merge %s: exit %d, stdout %q, stderr %s; want exit 2 saying %q", c.files, code, out, errs, c.want)
		}
	}

	outWhole := filepath.Join(t.TempDir(), "m")
	if code, _, errs := runIt("matrix", root, "--out", outWhole, "--date", "2026-08-20", "--rpc-timeout", "1s", "--sandbox", sandbox); code != 0 {
		t.Fatalf("matrix: %d %s", code, errs)
	}
	var latest []string
	for i := 1; i <= 2; i++ {
		o := filepath.Join(t.TempDir(), "m")
		if code, _, errs := runIt("matrix", root, "--out", o, "--date", "2026-08-20", "--rpc-timeout", "1s", "--sandbox", sandbox, "--shard", fmt.Sprintf("%d/2", i)); code != 0 {
			t.Fatalf("matrix shard %d: %d %s", i, code, errs)
		}
		latest = append(latest, filepath.Join(o, "latest.json"))
	}
	// One shard of two, or a registry without the shards' agents: nothing
	// written.
	for _, c := range []struct{ root, files, want string }{
		{root, latest[0], "shard 2/2 is missing"},
		{lacking, strings.Join(latest, ","), "which the registry does not have"},
	} {
		o := filepath.Join(t.TempDir(), "m")
		if code, _, errs := runIt("matrix", c.root, "--merge", c.files, "--out", o); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("matrix --merge %s: exit %d %s; want exit 2 saying %q", c.files, code, errs, c.want)
		}
		if _, err := os.Stat(o); err == nil {
			t.Errorf("matrix --merge %s wrote %s", c.files, o)
		}
	}
	outMerged := filepath.Join(t.TempDir(), "m")
	code, out, errs := runIt("matrix", root, "--merge", strings.Join(latest, ","), "--out", outMerged)
	if code != 0 || !strings.Contains(out, filepath.Join(outMerged, "snapshots", "2026-08-20.json")) {
		t.Fatalf("matrix merge: %d %s %s", code, out, errs)
	}
	for _, name := range []string{"latest.json", filepath.Join("snapshots", "2026-08-20.json")} {
		g, _ := os.ReadFile(filepath.Join(outMerged, name))
		w, _ := os.ReadFile(filepath.Join(outWhole, name))
		if len(w) == 0 || timings.ReplaceAllString(string(g), "") != timings.ReplaceAllString(string(w), "") {
			t.Errorf("%s of the merged shards differs:\n%s\nwant\n%s", name, g, w)
		}
	}
}

// A manifest's env that names the runner, the host or credentials
// (GITHUB_TOKEN, AWS_*, CI, SSH_*: the public registry drops them from
// every launch, whatever their case) never reaches the agent under
// verify; each dropped name is a warning, and the agent's own variables
// still arrive.
func TestVerifyDropsRunnerEnv(t *testing.T) {
	root := verifyTree(t)
	var good map[string]any
	data, _ := os.ReadFile(filepath.Join(root, "good", "agent.json"))
	json.Unmarshal(data, &good)
	bin := good["distribution"].(map[string]any)["binary"].(map[string]any)
	var target map[string]any
	for _, v := range bin {
		target = v.(map[string]any)
	}
	rec := filepath.Join(t.TempDir(), "env.json")
	target["env"] = map[string]string{"ACP_FAKE_AGENT": fakeagent.Valid, "ACP_FAKE_RECORD": rec, "MY_AGENT_MODE": "fast",
		"GITHUB_TOKEN": "ghs_manifest", "AWS_REGION": "us-east-1", "ci": "true", "SSH_AUTH_SOCK": "/tmp/agent.sock"}
	m := map[string]any{"id": "envy", "name": "envy", "version": "1.0.0", "description": "test agent", "distribution": map[string]any{"binary": bin}}
	out, _ := json.Marshal(m)
	os.MkdirAll(filepath.Join(root, "envy"), 0o755)
	os.WriteFile(filepath.Join(root, "envy", "agent.json"), out, 0o644)

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"verify", root, "--agent", "envy", "--json", "--timeout", "10s"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	var got struct{ Env []string }
	data, err := os.ReadFile(rec)
	if err != nil || json.Unmarshal(data, &got) != nil {
		t.Fatalf("the agent did not record its env: %v", err)
	}
	env := strings.Join(got.Env, "\n")
	for _, bad := range []string{"ghs_manifest", "us-east-1", "ci=true", "/tmp/agent.sock"} {
		if strings.Contains(env, bad) {
			t.Errorf("%s reached the agent:\n%s", bad, env)
		}
	}
	if !strings.Contains(env, "MY_AGENT_MODE=fast") {
		t.Errorf("the agent's own variable was dropped:\n%s", env)
	}
	for _, name := range []string{"AWS_REGION", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "ci"} {
		if !strings.Contains(stderr.String(), "warning: envy: env "+name+" is not passed to the agent") {
			t.Errorf("no warning for %s:\n%s", name, stderr.String())
		}
	}
}

// A pull request's manifest (verify runs before any review) whose env
// sets tool hooks: a bash function named git, git's external diff, a
// TLS key log, a Perl -M, a less preprocessor. None reaches the agent
// under verify; each is a warning naming its class.
func TestVerifyDropsToolHooks(t *testing.T) {
	root := verifyTree(t)
	var good map[string]any
	data, _ := os.ReadFile(filepath.Join(root, "good", "agent.json"))
	json.Unmarshal(data, &good)
	bin := good["distribution"].(map[string]any)["binary"].(map[string]any)
	var target map[string]any
	for _, v := range bin {
		target = v.(map[string]any)
	}
	rec := filepath.Join(t.TempDir(), "env.json")
	hooks := map[string]string{"BASH_FUNC_git%%": "shell function export", "GIT_EXTERNAL_DIFF": "git or go hook",
		"SSLKEYLOGFILE": "TLS key log", "PERL5OPT": "loader or interpreter hook", "LESSOPEN": "pager, editor or preprocessor hook",
		"GOFLAGS": "git or go hook", "SHELLOPTS": "shell function export"}
	env := map[string]string{"ACP_FAKE_AGENT": fakeagent.Valid, "ACP_FAKE_RECORD": rec, "MY_AGENT_MODE": "fast"}
	for name := range hooks {
		env[name] = "hook-value-" + name
	}
	target["env"] = env
	m := map[string]any{"id": "hooky", "name": "hooky", "version": "1.0.0", "description": "test agent", "distribution": map[string]any{"binary": bin}}
	out, _ := json.Marshal(m)
	os.MkdirAll(filepath.Join(root, "hooky"), 0o755)
	os.WriteFile(filepath.Join(root, "hooky", "agent.json"), out, 0o644)

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"verify", root, "--agent", "hooky", "--json", "--timeout", "10s"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	var got struct{ Env []string }
	data, err := os.ReadFile(rec)
	if err != nil || json.Unmarshal(data, &got) != nil {
		t.Fatalf("the agent did not record its env: %v", err)
	}
	all := strings.Join(got.Env, "\n")
	if strings.Contains(all, "hook-value-") {
		t.Errorf("a hook reached the agent:\n%s", all)
	}
	if !strings.Contains(all, "MY_AGENT_MODE=fast") {
		t.Errorf("the agent's own variable was dropped:\n%s", all)
	}
	for name, class := range hooks {
		if !strings.Contains(stderr.String(), "warning: hooky: env "+name+" is not passed to the agent: it is a "+class) {
			t.Errorf("no warning naming %s and its class %q:\n%s", name, class, stderr.String())
		}
	}
}

// --merge with an empty list (a CI step whose shard artifacts were not
// downloaded: --merge "$FILES") is a usage error: it must not fall back
// to installing and running every agent on the merge runner, nor
// overwrite the matrix's latest.json with a fresh probe.
func TestMergeOfNothingIsRefused(t *testing.T) {
	root := verifyTree(t)
	for _, args := range [][]string{
		{"verify", root, "--merge", "", "--sandbox", t.TempDir(), "--timeout", "10s"},
		{"matrix", root, "--merge", "", "--out", filepath.Join(t.TempDir(), "m"), "--sandbox", t.TempDir(), "--rpc-timeout", "1s"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "--merge") {
			t.Errorf("%s --merge '': exit %d, stdout %q, stderr %q", args[0], code, stdout.String(), stderr.String())
		}
	}
}
