package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// setupFake points acp at a fresh loopback registry and home.
func setupFake(t *testing.T) *registryServer {
	t.Helper()
	r, err := newRegistryServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.srv.Close)
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_REGISTRY", r.URL())
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	return r
}

func acpOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("acp %q: exit %d\n%s", args, code, stderr.String())
	}
	return stdout.String()
}

// Which version resolve launches: the one the current marker names, even
// an older one; without the marker, the highest installed.
func TestResolveFollowsCurrentMarkerElseHighest(t *testing.T) {
	r := setupFake(t)
	acpOK(t, "install", "fake")
	if err := r.publish("1.3.0"); err != nil {
		t.Fatal(err)
	}
	acpOK(t, "--registry", r.URL()+"?fresh", "install", "fake@1.3.0") // a new URL: no cached copy
	marker := filepath.Join(os.Getenv("ACP_HOME"), "agents", "fake", "current")
	version := func() string {
		out := acpOK(t, "resolve", "fake", "--json")
		i := strings.Index(out, `"version": "`)
		return strings.SplitN(out[i+len(`"version": "`):], `"`, 2)[0]
	}
	if v := version(); v != "1.3.0" {
		t.Fatalf("after installing 1.3.0: resolve gives %s", v)
	}
	if err := os.WriteFile(marker, []byte("1.2.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := version(); v != "1.2.0" {
		t.Fatalf("marker says 1.2.0: resolve gives %s", v)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	if v := version(); v != "1.3.0" {
		t.Fatalf("no marker: resolve gives %s, want the highest installed, 1.3.0", v)
	}
}

// The real `acp run` of a terminal: acp replaces itself with the agent
// (exec), so the editor's signals reach the agent itself. Proof: SIGTERM
// to the process kills it by the signal; had acp stayed as the parent,
// it would have caught the signal and exited normally with 143.
func TestRunExecsTheAgent(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no exec: acp stays the parent (TestRunForwardsWithoutExec)")
	}
	setupFake(t)
	acpOK(t, "install", "fake")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "run", "fake")
	cmd.Env = append(os.Environ(), "ACP_TEST_MAIN=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n"))
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"agentInfo":{"name":"fake-agent"`) {
		t.Fatalf("no initialize answer through acp run: %q, %v; stderr:\n%s", line, err, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent outlived SIGTERM")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("wait: %v", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("exit %v: acp stayed between the editor and the agent instead of exec'ing it", ee)
	}
}

func TestVersion(t *testing.T) {
	out := acpOK(t, "--version")
	if !strings.HasPrefix(out, "acp version ") || !strings.HasSuffix(out, "\n") {
		t.Fatalf("acp --version = %q", out)
	}
}

// Completion: agent ids (installed and from the local registry copy, with
// no request), installed versions after ID@, and flag values.
func TestCompletion(t *testing.T) {
	r := setupFake(t)
	acpOK(t, "install", "fake")
	before := r.hits("/registry.json")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "resolve", ""}, []string{"fake\tinstalled 1.2.0", "other-agent\tOther Helper"}},
		{[]string{"__complete", "run", "oth"}, []string{"other-agent\tOther Helper"}},
		{[]string{"__complete", "uninstall", ""}, []string{"fake\tinstalled 1.2.0"}},
		{[]string{"__complete", "install", "fake@"}, []string{"fake@1.2.0"}},
		{[]string{"__complete", "install", "--dist", ""}, []string{"binary", "npx", "uvx"}},
		{[]string{"__complete", "install", "fake", "--dist", ""}, []string{"binary"}},
		{[]string{"__complete", "resolve", "other-agent", "--dist", ""}, []string{"npx"}},
		{[]string{"__complete", "list", "--progress", ""}, []string{"auto", "plain", "json", "none"}},
		{[]string{"__complete", "resolve", "fake", "--shell", ""}, []string{"sh", "cmd", "powershell"}},
	} {
		out := acpOK(t, c.args...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		got := lines[:len(lines)-1] // the last line is cobra's directive
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("acp %q: %q, want %q", c.args, got, c.want)
		}
	}
	if n := r.hits("/registry.json"); n != before {
		t.Errorf("completion made %d registry requests", n-before)
	}
}

// --offline installs nothing, but what is installed still works.
func TestOfflineKeepsWhatIsInstalled(t *testing.T) {
	r := setupFake(t)
	acpOK(t, "install", "fake")
	r.srv.Close() // no network from here on
	t.Setenv("ACP_OFFLINE", "1")
	if out := acpOK(t, "install", "fake"); !strings.HasPrefix(out, "already installed fake 1.2.0") {
		t.Errorf("offline install of an installed agent: %q", out)
	}
	if out := acpOK(t, "resolve", "fake", "--json"); !strings.Contains(out, `"version": "1.2.0"`) {
		t.Errorf("offline resolve: %q", out)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"install", "fake", "--force"}, strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "--force reinstalls from the network") {
		t.Errorf("offline --force: exit %d\n%s", code, stderr.String())
	}
}
