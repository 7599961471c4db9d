// Package e2e gates the end-to-end tests: the only tests that reach beyond
// loopback (to the npm registry). They run when ACP_E2E=1, as .ci/run sets
// it, and skip with a message otherwise, so `go test ./...` on a machine
// without network stays green.
package e2e

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
)

// Require skips t unless ACP_E2E=1.
func Require(t testing.TB) {
	t.Helper()
	if os.Getenv("ACP_E2E") != "1" {
		t.Skip("end-to-end: set ACP_E2E=1 (needs the npm registry)")
	}
}

// RequireNPM skips t unless ACP_E2E=1 and npm is installed.
func RequireNPM(t testing.TB) {
	t.Helper()
	Require(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
}

// InitializeWithoutPath starts command with args under PATH=/nonexistent,
// a fresh HOME and working folder, and env added, and fails t unless the
// agent answers initialize with its agentInfo before ctx ends: what the
// installer resolves must launch without a PATH, as from a desktop editor.
func InitializeWithoutPath(ctx context.Context, t *testing.T, command string, args []string, env map[string]string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Env = []string{"PATH=/nonexistent", "HOME=" + t.TempDir()}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = t.TempDir()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	c := acpclient.New(stdin, stdout, stderr, acpclient.Options{})
	res, err := c.Initialize(ctx, acpclient.Implementation{Name: "acp-registry-go-e2e", Version: "0"})
	if err != nil {
		t.Fatalf("initialize with PATH=/nonexistent: %v\nstderr: %s", err, c.StderrTail())
	}
	if res.AgentInfo == nil || res.AgentInfo.Name == "" {
		t.Errorf("initialize answered without agentInfo: %+v", res)
	}
}
