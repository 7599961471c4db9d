//go:build !windows

package installer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO planted at a receipt, the current marker or a lock must not hang
// any command: state files are opened only when they are regular files.
func TestFIFOsDoNotHang(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	installVersions(t, in, srv, "1.0.0", "2.0.0")
	agent := filepath.Join(in.Root, "agents", "demo")
	mkfifo := func(p string) {
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	mkfifo(filepath.Join(agent, "current"))
	mkfifo(filepath.Join(agent, "1.0.0", "receipt.json"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		cur, err := in.Current("demo")
		if err != nil || cur.Version != "2.0.0" {
			t.Errorf("current = %+v %v, want 2.0.0 (the only readable install)", cur, err)
		}
		if list, err := in.List(); err != nil || len(list) != 1 {
			t.Errorf("list = %+v %v", list, err)
		}
		lock := filepath.Join(in.Root, "locks", "demo.lock")
		os.Remove(lock)
		mkfifo(lock)
		_, _, err = in.Install(context.Background(), Request{Agent: binaryManifest("demo", "3.0.0", "https://example.invalid/a.tgz", "agent", "")})
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("install with a FIFO lock: %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO hung the installer")
	}
}
