package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/e2e"

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
