package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/e2e"

	"github.com/agentclientprotocol/acp-registry-go/installer"
)

// TestE2EInstallClaudeAgent is README's main command on a fresh machine:
// this repository's registry (agents/, what the binary embeds; .ci/run runs
// the command itself, which reaches it through the CDN's failure) and a
// real npm install from the npm registry. Set ACP_E2E=1 to run it.
func TestE2EInstallClaudeAgent(t *testing.T) {
	e2e.RequireNPM(t)
	home := t.TempDir()
	acp := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "ACP_TEST_MAIN=1", "ACP_HOME="+home,
			"ACP_REGISTRY="+filepath.Join("..", "..", "agents"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("acp %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	acp("install", "claude-agent")
	out, _ := acp("--offline", "resolve", "claude-agent", "--json")
	var spec installer.LaunchSpec
	if err := json.Unmarshal([]byte(out), &spec); err != nil {
		t.Fatalf("resolve --json: %v\n%s", err, out)
	}
	if spec.Distribution != "npx" || spec.ID != "claude-agent" {
		t.Fatalf("spec = %+v", spec)
	}
	if _, err := os.Stat(spec.Command); err != nil {
		t.Fatalf("resolved command does not exist: %v", err)
	}
	checkStatedSize(t, filepath.Join(home, "agents", "claude-agent", spec.Version))
}

// checkStatedSize keeps README's disk-use claim ("takes about N MB
// installed") true: the install measured here is within a third of N.
func checkStatedSize(t *testing.T, dir string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`takes about\s+(\d+) MB installed`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README no longer says what claude-agent takes installed (\"takes about N MB installed\")")
	}
	stated, _ := strconv.ParseFloat(string(m[1]), 64)
	var size int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	mb := float64(size) / 1e6
	t.Logf("claude-agent installed: %.0f MB; README states about %.0f MB", mb, stated)
	if mb < stated*2/3 || mb > stated*4/3 {
		t.Errorf("claude-agent takes %.0f MB installed; README says about %.0f MB: measure again and update README and docs/developers.md", mb, stated)
	}
}

// BenchmarkResolveInstalled is what an editor pays (in process, without
// process start-up) on every agent start: resolve of an installed agent.
// bench/resolve.sh measures the whole process.
func BenchmarkResolveInstalled(b *testing.B) {
	r, err := newRegistryServer()
	if err != nil {
		b.Fatal(err)
	}
	defer r.srv.Close()
	b.Setenv("ACP_HOME", b.TempDir())
	b.Setenv("ACP_REGISTRY", r.URL())
	b.Setenv("ACP_PLATFORM", "linux-x86_64")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"install", "fake"}, nil, &stdout, &stderr); code != 0 {
		b.Fatalf("install: %s", stderr.String())
	}
	r.srv.Close() // resolve must not need it
	b.ResetTimer()
	for b.Loop() {
		stdout.Reset()
		if code := run(context.Background(), []string{"resolve", "fake", "--json"}, nil, &stdout, &stderr); code != 0 {
			b.Fatalf("resolve: %s", stderr.String())
		}
	}
}
