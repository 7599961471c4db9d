package store

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// Re-run as a running agent, this test binary lives until its stdin ends.
func init() {
	if os.Getenv("ACP_STORE_TEST_RUN_UNTIL_EOF") == "1" {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
}

// What Windows refuses decides what uninstall, install --force and
// upgrade say about a running agent (deleteFailed): the folder of a
// version whose .exe runs can be neither moved aside nor deleted, --force
// or not. This records it on the GitHub Windows runner; Wine, whose files
// are Unix files, may let it go.
func TestWindowsRefusesToMoveARunningProgram(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	version := filepath.Join(t.TempDir(), "agents", "demo", "1.0.0")
	exe := filepath.Join(version, "bin", "agent.exe")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	agent := exec.Command(exe)
	agent.Env = append(os.Environ(), "ACP_STORE_TEST_RUN_UNTIL_EOF=1")
	stdin, err := agent.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		agent.Wait()
	}()

	moved := os.Rename(version, version+"-moved")
	t.Logf("rename of the folder of a running .exe: %v", moved)
	if moved == nil {
		testkit.SkipUnderWine(t, "moves the folder of a running program, which Windows refuses")
		t.Fatal("Windows moved the folder of a running program: deleteFailed's sentence (and docs/security.md) must change")
	}
	err = RemoveDir(context.Background(), version)
	if err == nil || !isInUseErr(err) {
		t.Fatalf("RemoveDir of a running program's folder: %v, want a refusal isInUseErr recognises", err)
	}
	msg := deleteFailed("uninstall demo", version, err)
	if !errors.Is(msg, ErrInUse) || !strings.Contains(msg.Error(), "run acp uninstall demo again") || strings.Contains(msg.Error(), "acp gc") {
		t.Errorf("the refusal reads %q", msg)
	}
	// install --force (and an upgrade that reinstalls) moves the old
	// folder aside first: the same refusal, the same way on.
	tmp := filepath.Join(filepath.Dir(version), ".tmp-1.0.0")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	err = ReplaceDir(context.Background(), tmp, version)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "--force cannot either") {
		t.Errorf("ReplaceDir over a running program's folder: %v", err)
	}
	if _, err := os.Stat(exe); err != nil {
		t.Errorf("the refused delete left the running program's folder incomplete: %v", err)
	}
}
