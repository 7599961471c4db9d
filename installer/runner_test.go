package installer

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// npmPackage writes a package with two executables and packs it with the
// real npm, returning the tarball's path.
func npmPackage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	pkg := filepath.Join(dir, "pkg")
	os.MkdirAll(pkg, 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@acp-test/fake-agent","version":"1.0.0","bin":{"fake-agent":"bin.js","fake-helper":"helper.js"}}`), 0o644)
	os.WriteFile(filepath.Join(pkg, "bin.js"), []byte("#!/usr/bin/env node\nconsole.log('npm-agent ' + process.argv.slice(2).join(' ') + ' ' + (process.env.AGENT_MODE||''))\n"), 0o755)
	os.WriteFile(filepath.Join(pkg, "helper.js"), []byte("#!/usr/bin/env node\n"), 0o755)
	cmd := exec.Command("npm", "pack", "--pack-destination", dir)
	cmd.Dir = pkg
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm pack: %v\n%s", err, out)
	}
	tgz := filepath.Join(dir, "acp-test-fake-agent-1.0.0.tgz")
	if _, err := os.Stat(tgz); err != nil {
		t.Fatal(err)
	}
	return tgz
}

func npxManifest(spec string) *registry.Manifest {
	return &registry.Manifest{ID: "demo", Version: "1.0.0", Distribution: registry.Distribution{
		Npx: &registry.Package{Package: spec, Args: []string{"--acp"}, Env: map[string]string{"AGENT_MODE": "acp"}},
	}}
}

// A real npm installs a real package from a local tarball; the launch spec
// runs the package's executable directly, without npx.
// realNpm is an Installer that runs the real npm offline on a local
// package tarball (skipped in -short and without npm), npm's output in log.
func realNpm(t *testing.T) (in *Installer, tgz string, log *strings.Builder) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real npm (seconds)")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm not installed")
	}
	tgz = npmPackage(t)
	in = newInstaller(t)
	in.LookPath = exec.LookPath
	in.CacheDir = t.TempDir()
	in.Offline = true // the tarball is local: nothing is fetched
	log = &strings.Builder{}
	in.Stderr = log
	return in, tgz, log
}

func TestInstallNpx(t *testing.T) {
	in, tgz, log := realNpm(t)
	// The caller's directory is a hostile clone: a package.json whose
	// scripts would run on "npm install" there, and an .npmrc that would
	// send npm's logs into it. Neither is read.
	hostile := t.TempDir()
	marker := filepath.Join(hostile, "pwned")
	os.WriteFile(filepath.Join(hostile, "package.json"), []byte(`{"name":"victim","version":"1.0.0","scripts":{"preinstall":"touch `+marker+`","prepare":"touch `+marker+`","postinstall":"touch `+marker+`"}}`), 0o644)
	os.WriteFile(filepath.Join(hostile, ".npmrc"), []byte("logs-dir="+filepath.Join(hostile, "logs")+"\n"), 0o644)
	t.Chdir(hostile)
	m := npxManifest("@acp-test/fake-agent@1.0.0")
	r, _, err := in.Install(context.Background(), Request{Agent: m, PackageOverride: tgz})
	if err != nil {
		t.Fatalf("%v\nnpm output:\n%s", err, log.String())
	}
	for _, p := range []string{marker, filepath.Join(hostile, "logs"), filepath.Join(hostile, "node_modules")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("npm ran in the caller's directory: %s exists", p)
		}
	}
	if _, err := os.Stat(filepath.Join(in.CacheDir, "npm")); err != nil {
		t.Errorf("npm's cache is not under acp's cache directory: %v", err)
	}
	script := filepath.Join(in.Root, "agents", "demo", "1.0.0", "node_modules", "@acp-test", "fake-agent", "bin.js")
	if !filepath.IsAbs(r.Launch.Command) || strings.TrimSuffix(filepath.Base(r.Launch.Command), ".exe") != "node" || len(r.Launch.Args) != 2 || r.Launch.Args[0] != script ||
		r.Distribution != registry.KindNpx || r.Package != "@acp-test/fake-agent@1.0.0" {
		t.Errorf("receipt = %+v", r)
	}
	if runtime.GOOS != "windows" {
		cmd := exec.Command(r.Launch.Command, r.Launch.Args...)
		cmd.Env = []string{"PATH=/nonexistent", "AGENT_MODE=" + r.Launch.Env["AGENT_MODE"]}
		out, err := cmd.Output()
		if err != nil || string(out) != "npm-agent --acp acp\n" {
			t.Errorf("running the installed package: %q %v", out, err)
		}
	}
	leftovers(t, filepath.Join(in.Root, "agents", "demo"))

	// Failure: npm's own words reach the error; nothing is left.
	m2 := npxManifest("@acp-test/fake-agent@2.0.0")
	m2.Version = "2.0.0"
	_, _, err = in.Install(context.Background(), Request{Agent: m2, PackageOverride: filepath.Join(t.TempDir(), "missing.tgz")})
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "npm install @acp-test/fake-agent@2.0.0 failed offline") || !strings.Contains(err.Error(), "last lines") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(in.Root, "agents", "demo", "2.0.0")); !os.IsNotExist(err) {
		t.Errorf("failed npm install left its folder")
	}
	leftovers(t, filepath.Join(in.Root, "agents", "demo"))
}

// fakeUV puts a uv that records its arguments and environment and
// creates the entry point where UV_TOOL_DIR says.
func fakeUV(t *testing.T, fail bool) (uvPath, record string) {
	dir := t.TempDir()
	record = filepath.Join(dir, "record")
	return uvTool(record, fail).Put(t, filepath.Join(dir, "uv")), record
}

// uvTool is fakeUV's uv, recording into record.
func uvTool(record string, fail bool) testkit.FakeTool {
	uv := testkit.FakeTool{
		Stderr: "Resolved 3 packages\n",
		Steps:  []testkit.FakeStep{{Write: record, Text: "args: $args\ntool_dir: $UV_TOOL_DIR\nbin_dir: $UV_TOOL_BIN_DIR\ncache: $UV_CACHE_DIR\n"}},
	}
	if fail {
		uv.Stderr += "error: No solution found when resolving dependencies\n"
		uv.Exit = 2
		return uv
	}
	// As uv does: the entry point in the tool's environment, a link to it
	// in the bin folder.
	entry := uvEntryIn("$UV_TOOL_DIR")
	uv.Steps = append(uv.Steps,
		testkit.FakeStep{Put: entry, Tool: &testkit.FakeTool{Stdout: "uv-agent $args\n"}},
		testkit.FakeStep{Link: filepath.Join("$UV_TOOL_BIN_DIR", filepath.Base(entry)), Target: entry},
		testkit.FakeStep{Append: record, Text: "cwd: $cwd\n"})
	return uv
}

// uvEntryIn is where uv puts fast-agent-acp's entry point in tools:
// bin/fast-agent-acp, Scripts\fast-agent-acp.exe on Windows.
func uvEntryIn(tools string) string {
	if runtime.GOOS == "windows" {
		return filepath.Join(tools, "fast-agent-mcp", "Scripts", "fast-agent-acp.exe")
	}
	return filepath.Join(tools, "fast-agent-mcp", "bin", "fast-agent-acp")
}

func uvxManifest(version string) *registry.Manifest {
	return &registry.Manifest{ID: "demo", Version: version, Distribution: registry.Distribution{
		Uvx: &registry.Package{Package: "fast-agent-mcp[acp]@" + version, Cmd: "fast-agent-acp", Args: []string{"serve"}},
	}}
}

func TestInstallUvx(t *testing.T) {
	uv, record := fakeUV(t, false)
	in := newInstaller(t)
	in.LookPath = runners("uv")
	in.UV = uv
	r, _, err := in.Install(context.Background(), Request{Agent: uvxManifest("0.4.1")})
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := os.ReadFile(record)
	agentDir := filepath.Join(in.Root, "agents", "demo")
	toolDir := filepath.Join(agentDir, r.ToolDir)
	for _, want := range []string{
		"args: tool install -- fast-agent-mcp[acp]==0.4.1\n",
		"cwd: " + toolDir + "\n",
		"tool_dir: " + filepath.Join(toolDir, "tools") + "\n",
		"bin_dir: " + filepath.Join(toolDir, "bin") + "\n",
	} {
		if !strings.Contains(string(rec), want) {
			t.Errorf("uv was called with\n%s\nwant %q", rec, want)
		}
	}
	if r.Launch.Command != uvEntryIn(filepath.Join(toolDir, "tools")) {
		t.Errorf("launch = %s", r.Launch.Command)
	}
	out, err := exec.Command(r.Launch.Command, r.Launch.Args...).Output()
	if err != nil || string(out) != "uv-agent serve\n" {
		t.Errorf("run: %q %v", out, err)
	}
	// GC keeps the previous version's tool environment for rollback, and
	// removes it with the version once that is older still.
	for _, v := range []string{"0.5.0", "0.6.0"} {
		if _, _, err := in.Install(context.Background(), Request{Agent: uvxManifest(v)}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(toolDir); err != nil {
			t.Fatalf("after installing %s: %v", v, err)
		}
	}
	if removed, err := gcVersions(in, "demo"); err != nil || len(removed) != 1 || removed[0] != "0.4.1" {
		t.Errorf("gc = %v %v", removed, err)
	}
	if prev, err := in.Previous("demo"); err != nil || prev.Version != "0.5.0" {
		t.Errorf("previous = %+v %v", prev, err)
	} else if _, err := os.Stat(prev.Launch.Command); err != nil {
		t.Errorf("gc broke the previous install kept for rollback: %v", err)
	}
	if _, err := os.Stat(toolDir); !os.IsNotExist(err) {
		t.Errorf("gc kept the old tool environment %s", toolDir)
	}
	cur, _ := in.Current("demo")
	if _, err := os.Stat(cur.Launch.Command); err != nil {
		t.Errorf("gc broke the current install: %v", err)
	}
}

func TestInstallUvxFailure(t *testing.T) {
	uv, _ := fakeUV(t, true)
	in := newInstaller(t)
	in.LookPath = runners("uv")
	in.UV = uv
	var log strings.Builder
	in.Stderr = &log
	_, _, err := in.Install(context.Background(), Request{Agent: uvxManifest("0.4.1")})
	if err == nil || !strings.Contains(err.Error(), "No solution found") || !strings.Contains(err.Error(), "install demo 0.4.1") {
		t.Fatalf("err = %v", err)
	}
	// uv's output is shown once: in the error, not also on Stderr.
	if n := strings.Count(log.String()+err.Error(), "Resolved 3 packages"); n != 1 || !errors.Is(err, ErrInstallFailed) {
		t.Errorf("uv's output shown %d times (stderr %q, err %v)", n, log.String(), err)
	}
	entries, _ := os.ReadDir(filepath.Join(in.Root, "agents", "demo"))
	if len(entries) != 0 {
		t.Errorf("failed uv install left %v", entries)
	}
}

func TestRunnerMissing(t *testing.T) {
	in := newInstaller(t)
	_, _, err := in.Install(context.Background(), Request{Agent: uvxManifest("0.4.1")})
	if !errors.Is(err, ErrRunnerMissing) || !strings.Contains(err.Error(), "install it from https://docs.astral.sh/uv") {
		t.Errorf("err = %v", err)
	}
}

// Ctrl-C during npm install: the error says so in words (not "context
// canceled"), still matches context.Canceled, and nothing is left behind.
func TestInterruptedNpmInstall(t *testing.T) {
	// The interrupt comes once npm runs: it says so by connecting, and
	// runs until killed (or the connection closes).
	started, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { started.Close() })
	in := newInstaller(t)
	in.NPM = testkit.FakeTool{Notify: started.Addr().String(), Hang: true}.Put(t, filepath.Join(t.TempDir(), "npm"))
	in.LookPath = func(name string) (string, error) { return "/usr/bin/" + name, nil } // node "is there"
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		if c, err := started.Accept(); err == nil {
			t.Cleanup(func() { c.Close() })
		}
		cancel(errors.New("interrupt signal received"))
	}()
	_, _, err = in.Install(ctx, Request{Agent: npxManifest("@acp-test/fake-agent@1.0.0")})
	if !errors.Is(err, context.Canceled) || !strings.HasSuffix(err.Error(), "npm install @acp-test/fake-agent@1.0.0: interrupt signal received") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(in.Root, "agents", "demo")); !os.IsNotExist(err) {
		t.Errorf("an interrupted first install left agents/demo behind")
	}
}

// ToolEnv is all npm sees: an install under a sandbox environment (verify)
// does not hand the host's tokens to the package's install scripts.
func TestToolEnvReachesNpm(t *testing.T) {
	t.Setenv("ACP_TEST_SECRET_TOKEN", "s3cret")
	in := newInstaller(t)
	in.NPM = testkit.FakeNPM(t)
	in.Node = testkit.LinkSelf(t, filepath.Join(t.TempDir(), "v92.0.0", "node")) // the launch's, on every OS
	in.LookPath = func(name string) (string, error) { return "/usr/bin/" + name, nil }
	in.ToolEnv = []string{"PATH=" + os.Getenv("PATH"), "HOME=/sandbox/home"}
	r, _, err := in.Install(context.Background(), Request{Agent: npxManifest("@acp-test/fake-agent@1.0.0")})
	if err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(filepath.Join(r.Dir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "s3cret") || !strings.Contains(string(env), "HOME=/sandbox/home\n") {
		t.Errorf("npm ran with:\n%s", env)
	}

	// Without ToolEnv, npm runs as npx would: in the caller's environment.
	in.ToolEnv = nil
	r, _, err = in.Install(context.Background(), Request{Agent: npxManifest("@acp-test/fake-agent@1.0.0"), Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if env, _ := os.ReadFile(filepath.Join(r.Dir, "env.txt")); !strings.Contains(string(env), "ACP_TEST_SECRET_TOKEN=s3cret") {
		t.Errorf("without ToolEnv npm did not get the caller's environment:\n%s", env)
	}
}

// A user's npm configuration that would install globally, or not at all
// (global, dry-run in ~/.npmrc or the environment), does not change where
// acp's install goes: it is always local to the version's folder.
func TestInstallNpxIgnoresGlobalAndDryRun(t *testing.T) {
	in, tgz, log := realNpm(t) // npm pack, before dry-run is set
	t.Setenv("npm_config_global", "true")
	t.Setenv("npm_config_dry_run", "true")
	if _, _, err := in.Install(context.Background(), Request{Agent: npxManifest("@acp-test/fake-agent@1.0.0"), PackageOverride: tgz}); err != nil {
		t.Fatalf("%v\nnpm output:\n%s", err, log.String())
	}
}

// npm is never started for a refused package.
func TestRefusedPackageRunsNoNpm(t *testing.T) {
	in := newInstaller(t)
	in.NPM = filepath.Join(t.TempDir(), "npm-that-must-not-run")
	in.LookPath = runners("node", "npm")
	if _, _, err := in.Install(context.Background(), Request{Agent: npxManifest("--global@1.0.0")}); err == nil || !strings.Contains(err.Error(), `starts with "-"`) {
		t.Errorf("err = %v", err)
	}
}
