package installer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// syncBuilder is a strings.Builder that the lock's timer goroutine may
// write to while the test reads it.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// holdLock takes agent id's lock as another process would.
func holdLock(t *testing.T, in *Installer, id string) {
	t.Helper()
	p := filepath.Join(in.Root, "locks", id+".lock")
	os.MkdirAll(filepath.Dir(p), 0o755)
	fl := flock.New(p)
	if err := fl.Lock(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fl.Unlock(); fl.Close() })
}

// Waiting on another process's lock is said after a second, and bounded
// by LockWait (resolve and run set one).
func TestLockWaitIsSaidAndBounded(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	url := srv.add("/a.tgz", body)
	in := newInstaller(t)
	holdLock(t, in, "demo")
	var log syncBuilder
	in.Stderr = &log
	in.LockWait = 1500 * time.Millisecond
	start := time.Now()
	_, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", sha(body))})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "another acp has held the lock on demo") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("LockWait 1.5s took %s", d)
	}
	if !strings.Contains(log.String(), "waiting for another acp that is installing or removing demo") {
		t.Errorf("stderr = %q, want the wait said", log.String())
	}
	if srv.count("/a.tgz") != 0 {
		t.Errorf("downloaded without the lock")
	}
}

// Ctrl-C ends a wait on the lock at once, whatever LockWait says.
func TestLockWaitHonoursCancel(t *testing.T) {
	in := newInstaller(t)
	holdLock(t, in, "demo")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(200*time.Millisecond, func() { cancel(errors.New("interrupt signal received")) })
	start := time.Now()
	_, _, err := in.Install(ctx, Request{Agent: binaryManifest("demo", "1.0.0", "https://example.invalid/a.tgz", "agent", "")})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupt signal received") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %s", d)
	}
}
