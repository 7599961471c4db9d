package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// writeInstall puts a finished install (its files and receipt.json) under
// ACP_HOME, as acp install leaves it.
func writeInstall(t *testing.T, home string, r installer.Receipt, files map[string]string) {
	t.Helper()
	dir := filepath.Join(home, "agents", r.ID, r.Version)
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := json.Marshal(r)
	if err := os.WriteFile(filepath.Join(dir, "receipt.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, "agents", r.ID, "current"), []byte(r.Version+"\n"), 0o644)
}

// doctor looks at every installed agent: a node older than the package
// asks for is a warning, an install whose command was deleted a failure
// with the repair, in text and JSON.
func TestDoctorChecksInstalls(t *testing.T) {
	home := t.TempDir()
	t.Setenv("ACP_HOME", home)
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	t.Setenv("ACP_OFFLINE", "1")
	// Only the fake node: no other node on PATH or in the usual places
	// under HOME.
	bin := filepath.Join(t.TempDir(), "v16.0.0", "bin")
	node := testkit.LinkSelf(t, filepath.Join(bin, "node")) // answers v16.0.0 (faketools_test.go)
	t.Setenv("PATH", bin)
	t.Setenv("HOME", t.TempDir())

	dir := func(id, v string) string { return filepath.Join(home, "agents", id, v) }
	writeInstall(t, home, installer.Receipt{
		ID: "old-node", Version: "1.0.0", Distribution: "npx", Package: "old-node@1.0.0",
		Launch:  installer.LaunchSpec{Command: node, Args: []string{filepath.Join(dir("old-node", "1.0.0"), "index.js")}},
		Runtime: &installer.Runtime{Path: node, Version: "v16.0.0", Requires: ">=99"},
	}, map[string]string{"index.js": "console.log(1)\n"})
	writeInstall(t, home, installer.Receipt{
		ID: "fine", Version: "2.0.0", Distribution: "binary", Target: "linux-x86_64",
		Launch: installer.LaunchSpec{Command: filepath.Join(dir("fine", "2.0.0"), "agent")},
	}, map[string]string{"agent": "#!/bin/sh\nexit 0\n"})
	writeInstall(t, home, installer.Receipt{
		ID: "gone-cmd", Version: "3.0.0", Distribution: "binary", Target: "linux-x86_64",
		Launch: installer.LaunchSpec{Command: filepath.Join(dir("gone-cmd", "3.0.0"), "agent")},
	}, map[string]string{"agent": "#!/bin/sh\nexit 0\n"})
	os.Remove(filepath.Join(dir("gone-cmd", "3.0.0"), "agent"))
	// Issue 26: a receipt damaged after the install had no line at all.
	writeInstall(t, home, installer.Receipt{
		ID: "bad-receipt", Version: "4.0.0", Distribution: "binary", Target: "linux-x86_64",
		Launch: installer.LaunchSpec{Command: filepath.Join(dir("bad-receipt", "4.0.0"), "agent")},
	}, map[string]string{"agent": "#!/bin/sh\nexit 0\n"})
	os.WriteFile(filepath.Join(dir("bad-receipt", "4.0.0"), "receipt.json"), []byte(`{"id":"bad-rec`), 0o644)

	code, out, errOut := acpText(t, "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
		t.Fatalf("doctor --json = %d, %v:\n%s\nstderr:\n%s", code, err, out, errOut)
	}
	got := map[string]check{}
	for _, c := range rep.Checks {
		got[c.Name] = c
	}
	if c := got["agent old-node"]; c.Status != statusWarn || !strings.Contains(c.Detail, ">=99") {
		t.Errorf("old node: %+v", c)
	}
	if c := got["agent fine"]; c.Status != statusOK || !strings.Contains(c.Detail, "2.0.0 binary") {
		t.Errorf("fine: %+v", c)
	}
	if c := got["agent gone-cmd"]; c.Status != statusFail || !strings.Contains(c.Detail, "is missing") || !strings.Contains(c.Detail, "acp install gone-cmd --force") {
		t.Errorf("deleted command: %+v", c)
	}

	if c := got["agent bad-receipt"]; c.Status != statusFail || !strings.Contains(c.Detail, "4.0.0 is broken (its receipt.json cannot be used") || !strings.Contains(c.Detail, "acp install bad-receipt --force") {
		t.Errorf("broken receipt: %+v", c)
	}

	// What becomes of an agent acp run started when acp is killed.
	how := "exec"
	if runtime.GOOS == "windows" {
		how = "job object" // no exec there
	}
	if c := got["run"]; c.Status != statusOK || !strings.Contains(c.Detail, how) {
		t.Errorf("run: %+v", c)
	}

	code, out, _ = acpText(t, "doctor")
	for _, want := range []string{"agent old-node  warn", "agent gone-cmd  fail"} {
		if code != 1 || !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("doctor text lacks %q (exit %d):\n%s", want, code, out)
		}
	}
}

// doctor lists the runtimes acp brought, with the installs that use
// them; gc removes the one no install uses.
func TestDoctorListsManagedRuntimes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("ACP_HOME", home)
	t.Setenv("ACP_OFFLINE", "1")
	t.Setenv("HOME", t.TempDir())
	// The test binary answers as node v99.1.0 there (faketools_test.go).
	// Node's own layouts: bin/node and bin/npm, or node.exe and npm.cmd
	// at the top of the folder on Windows.
	nodeRel, npmName := filepath.Join("bin", "node"), "npm"
	if runtime.GOOS == "windows" {
		nodeRel, npmName = "node.exe", "npm.cmd"
	}
	used := testkit.LinkSelf(t, filepath.Join(home, "runtimes", "node", "v99.1.0", nodeRel))
	os.WriteFile(filepath.Join(filepath.Dir(used), npmName), []byte("#!/bin/sh\n"), 0o755)
	unused := filepath.Join(home, "runtimes", "uv", "0.10.10")
	os.MkdirAll(unused, 0o755)
	os.WriteFile(filepath.Join(unused, "uv"), nil, 0o755) // never run
	old := time.Now().Add(-time.Hour)
	os.Chtimes(unused, old, old)
	fi, _ := os.Stat(used)
	script := filepath.Join(home, "agents", "demo", "1.0.0", "index.js")
	writeInstall(t, home, installer.Receipt{
		ID: "demo", Version: "1.0.0", Distribution: "npx", Package: "demo@1.0.0",
		Launch:  installer.LaunchSpec{Command: used, Args: []string{script}},
		Runtime: &installer.Runtime{Path: used, Version: "99.1.0", Size: fi.Size(), ModTime: fi.ModTime(), Managed: true},
	}, map[string]string{"index.js": "console.log(1)\n"})

	_, out, errOut := acpText(t, "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errOut)
	}
	got := map[string]check{}
	for _, c := range rep.Checks {
		got[c.Name] = c
	}
	if c := got["runtime node v99.1.0"]; c.Status != statusOK || !strings.Contains(c.Detail, "used by demo@1.0.0") {
		t.Errorf("node: %+v", c)
	}
	// An empty file for uv: it does not run, and doctor says so (issue 26).
	if c := got["runtime uv 0.10.10"]; c.Status != statusFail || !strings.Contains(c.Detail, "is broken") || !strings.Contains(c.Detail, "acp gc removes it") {
		t.Errorf("uv: %+v", c)
	}
	if c := got["agent demo"]; c.Status != statusOK || !strings.Contains(c.Detail, "node 99.1.0") {
		t.Errorf("agent: %+v", c)
	}
	code, out, errOut := acpText(t, "gc", "--json")
	if code != 0 || !strings.Contains(out, "managed runtime uv 0.10.10") || strings.Contains(out, "v99.1.0") {
		t.Errorf("gc = %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(unused); !os.IsNotExist(err) {
		t.Error("gc left the unused uv")
	}
}

// A mirror's URL may carry a password (https://user:token@mirror/...):
// doctor's registry line never prints it, whether the registry answers
// or not.
func TestDoctorHidesTheRegistryPassword(t *testing.T) {
	r, err := newRegistryServer()
	if err != nil {
		t.Fatal(err)
	}
	defer r.srv.Close()
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	t.Setenv("PATH", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	for _, reg := range []string{r.URL(), "http://127.0.0.1:1/registry.json"} {
		t.Setenv("ACP_REGISTRY", strings.Replace(reg, "http://", "http://mirror-user:s3cret@", 1))
		_, out, errOut := runAcp(t, "doctor")
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "registry ") {
				line = l
			}
		}
		if strings.Contains(out+errOut, "s3cret") || !strings.Contains(line, "mirror-user:xxxxx@") {
			t.Errorf("%s: registry line %q (stderr %q), want the URL with its password hidden", reg, line, errOut)
		}
	}
}
