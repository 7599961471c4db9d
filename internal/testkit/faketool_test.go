package testkit

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func init() { RunFakeTool() }

// FakeNPM run as npm is: the package and its bin under --prefix, the
// environment it ran with in env.txt; with nothing printed.
func TestFakeNPMInstallsUnderPrefix(t *testing.T) {
	prefix := t.TempDir()
	cmd := exec.Command(FakeNPM(t), "install", "--prefix", prefix, "--", "@acp-test/fake-agent@1.0.0")
	cmd.Env = []string{"FAKE_NPM_TEST=seen"}
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("npm: %v, output %q", err, out)
	}
	pkg := filepath.Join(prefix, "node_modules", "@acp-test", "fake-agent")
	if data, _ := os.ReadFile(filepath.Join(pkg, "package.json")); string(data) != `{"name":"@acp-test/fake-agent","bin":{"fake-agent":"bin.js"}}`+"\n" {
		t.Errorf("package.json = %q", data)
	}
	if fi, err := os.Stat(filepath.Join(pkg, "bin.js")); err != nil || (runtime.GOOS != "windows" && fi.Mode()&0o100 == 0) {
		t.Errorf("bin.js: %v %v", fi, err)
	}
	if data, err := os.ReadFile(filepath.Join(prefix, "node_modules", ".bin", "fake-agent")); err != nil || string(data) != "#!/bin/sh\n" {
		t.Errorf(".bin/fake-agent: %q %v", data, err)
	}
	if env, _ := os.ReadFile(filepath.Join(prefix, "env.txt")); !strings.Contains(string(env), "FAKE_NPM_TEST=seen\n") {
		t.Errorf("env.txt = %q", env)
	}
}

// A tool prints, answers --version, expands what the tests name, puts
// another tool, and exits with its status.
func TestFakeToolDoesWhatItSays(t *testing.T) {
	dir := t.TempDir()
	tool := FakeTool{
		Version: "tool 1.2.3", Stdout: "out $args\n", Stderr: "err $FAKE_TOOL_VAR\n", Exit: 3,
		Steps: []FakeStep{
			{Write: filepath.Join(dir, "rec"), Text: "cwd: $cwd\n"},
			{Append: filepath.Join(dir, "rec"), Text: "prefix: $prefix\n"},
			{Put: filepath.Join(dir, "inner"), Tool: &FakeTool{Stdout: "inner $args\n"}},
		},
	}.Put(t, filepath.Join(dir, "tool"))
	if out, err := exec.Command(tool, "--version").Output(); err != nil || string(out) != "tool 1.2.3\n" {
		t.Errorf("--version: %q %v", out, err)
	}
	cmd := exec.Command(tool, "a", "--prefix", "p")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FAKE_TOOL_VAR=v")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || string(out) != "out a --prefix p\n" || stderr.String() != "err v\n" {
		t.Errorf("run: %q %q %v", out, stderr.String(), err)
	}
	if rec, _ := os.ReadFile(filepath.Join(dir, "rec")); string(rec) != "cwd: "+dir+"\nprefix: p\n" {
		t.Errorf("record = %q", rec)
	}
	if out, err := exec.Command(exeName(filepath.Join(dir, "inner")), "x").Output(); err != nil || string(out) != "inner x\n" {
		t.Errorf("inner: %q %v", out, err)
	}
}
