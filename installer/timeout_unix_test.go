//go:build !windows

package installer

import (
	"context"
	"errors"
	"io"
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
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	opened, gone := childLifeline(t, filepath.Join(dir, "lifeline"))
	npm := filepath.Join(dir, "npm")
	// The child holds the lifeline's write end for as long as it lives.
	os.WriteFile(npm, []byte("#!/bin/sh\necho 'npm http fetch GET 200 https://registry.npmjs.org/x'\nsleep 60 > "+filepath.Join(dir, "lifeline")+" &\necho $! > "+pidFile+"\nwait\n"), 0o755)
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
	select {
	case <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("the fake npm did not start its child")
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		data, _ := os.ReadFile(pidFile)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		if pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("npm's child %d outlived the stopped install", pid)
	}
}

// childLifeline makes a FIFO at p and reads it: opened is closed once a
// child opened it for writing, gone once every writer has exited (the
// kernel closes a process's files as it dies, zombie or not).
func childLifeline(t *testing.T, p string) (opened, gone chan struct{}) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	opened, gone = make(chan struct{}), make(chan struct{})
	go func() {
		f, err := os.Open(p) // returns once a writer opens it
		close(opened)
		if err == nil {
			io.Copy(io.Discard, f)
			f.Close()
		}
		close(gone)
	}()
	t.Cleanup(func() {
		// Wake the reader if no child ever came.
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-gone
	})
	return opened, gone
}
