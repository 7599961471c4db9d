//go:build !windows

package installer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// npm that stalls is stopped after InstallTimeout with install-failed, and
// what it started (a lifecycle script's child) is gone with it.
func TestInstallTimeoutKillsTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	npm := filepath.Join(t.TempDir(), "npm")
	os.WriteFile(npm, []byte("#!/bin/sh\necho 'npm http fetch GET 200 https://registry.npmjs.org/x'\nsleep 60 &\necho $! > "+pidFile+"\nwait\n"), 0o755)
	in := newInstaller(t)
	in.NPM = npm
	in.Node = testkit.LinkSelf(t, filepath.Join(t.TempDir(), "v92.0.0", "node"))
	in.LookPath = runners("node", "npm")
	in.InstallTimeout = 500 * time.Millisecond
	start := time.Now()
	_, _, err := in.Install(context.Background(), Request{Agent: npxManifest("@acp-test/fake-agent@1.0.0")})
	if !errors.Is(err, ErrInstallFailed) || !strings.Contains(err.Error(), "stopped after 500ms") || !strings.Contains(err.Error(), "npm http fetch") {
		t.Fatalf("err = %v", err)
	}
	t.Logf("install took %s", time.Since(start))
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
	data, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if pid == 0 {
		t.Fatal("the fake npm did not start its child")
	}
	deadline := time.Now().Add(2 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("npm's child %d outlived the stopped install", pid)
	}
}

// alive reports whether pid runs; a zombie waiting for init to reap it
// does not.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc (macOS): kill says it exists
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
