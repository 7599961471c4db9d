package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
)

// acpText runs acp in this process and returns its exit status, stdout
// and stderr.
func acpText(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// fakeRegistry gives the test its own loopback registry (the fake agent
// at 1.2.0) and an empty ACP_HOME.
func fakeRegistry(t *testing.T) *registryServer {
	t.Helper()
	r, err := newRegistryServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.srv.Close)
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_REGISTRY", r.URL())
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	t.Setenv("ACP_PROGRESS", "plain")
	return r
}

// startInstalled launches the installed fake agent as an editor would,
// from resolve's spec, and leaves it running (waiting on its stdin).
func startInstalled(t *testing.T, id string) *exec.Cmd {
	t.Helper()
	code, out, errs := acpText(t, "resolve", id, "--json")
	if code != 0 {
		t.Fatalf("resolve: %d\n%s", code, errs)
	}
	var spec struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	if err := json.Unmarshal([]byte(out), &spec); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(spec.Command, spec.Args...)
	c.Env = os.Environ()
	for k, v := range spec.Env {
		c.Env = append(c.Env, k+"="+v)
	}
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); c.Process.Kill(); c.Wait() })
	return c
}

// uninstall keeps a version an editor's agent runs from (found through
// /proc), fails with in-use and says what to do; --force removes it, and
// says what it removed and its size.
func TestUninstallKeepsARunningVersion(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("running processes' files are known on Linux; elsewhere a recent resolve counts")
	}
	fakeRegistry(t)
	if code, _, errs := acpText(t, "install", "fake"); code != 0 {
		t.Fatalf("install: %d\n%s", code, errs)
	}
	agent := startInstalled(t, "fake")
	dir := filepath.Join(os.Getenv("ACP_HOME"), "agents", "fake", "1.2.0")

	e := acpJSON(t, cli.CodeInUse, "uninstall", "fake", "--json")
	if !strings.Contains(e.Message, "in use by process") || !strings.Contains(e.Hint, "--force") {
		t.Errorf("in-use error: %+v", e)
	}
	code, out, errs := acpText(t, "uninstall", "fake")
	if code != cli.ExitFailure || !strings.Contains(errs, "kept 1.2.0 (in use by process") || strings.Contains(out, "uninstalled") {
		t.Errorf("uninstall of a running version: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the running version was removed: %v", err)
	}
	_ = agent
	// Nor does install --force replace its files under it.
	if e := acpJSON(t, cli.CodeInUse, "install", "fake", "--force", "--json"); !strings.Contains(e.Message, "1.2.0") {
		t.Errorf("install --force of a running version: %+v", e)
	}

	code, out, errs = acpText(t, "uninstall", "fake", "--force")
	if code != 0 || !strings.Contains(out, "removed fake 1.2.0 (uninstalled, ") || !strings.Contains(out, "uninstalled fake\n") || !strings.Contains(errs, "freed ") {
		t.Fatalf("uninstall --force: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("uninstall --force left %s: %v", dir, err)
	}
}

// uninstall --json says what was removed, with sizes.
func TestUninstallJSON(t *testing.T) {
	fakeRegistry(t)
	if code, _, errs := acpText(t, "install", "fake"); code != 0 {
		t.Fatalf("install: %d\n%s", code, errs)
	}
	code, out, errs := acpText(t, "uninstall", "fake", "--json")
	var rep struct {
		Removed []struct {
			Agent, Version, Why string
			Bytes               int64
		} `json:"removed"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Removed) != 1 || rep.Removed[0].Version != "1.2.0" || rep.Removed[0].Why != "uninstalled" || rep.Removed[0].Bytes < 1000 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// Uninstalling an npx agent says what it leaves: npm's cache under acp's
// cache folder, shared by every npx agent.
func TestUninstallNamesTheSharedCache(t *testing.T) {
	home := t.TempDir()
	t.Setenv("ACP_HOME", home)
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	dir := filepath.Join(home, "agents", "npx-agent", "1.0.0")
	writeInstall(t, home, installer.Receipt{
		ID: "npx-agent", Version: "1.0.0", Distribution: "npx", Package: "npx-agent@1.0.0",
		Launch: installer.LaunchSpec{Command: "/usr/bin/node", Args: []string{filepath.Join(dir, "index.js")}},
	}, map[string]string{"index.js": "console.log(1)\n"})
	code, out, errOut := acpText(t, "uninstall", "npx-agent")
	want := "npm's download cache " + filepath.Join(home, "cache", "npm") + " is shared by every npx agent and is kept"
	if code != 0 || !strings.Contains(out, "uninstalled npx-agent") || !strings.Contains(errOut, want) {
		t.Errorf("acp uninstall = %d\n%s\nstderr:\n%s", code, out, errOut)
	}
}
