package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/gofrs/flock"
)

// lockAgent takes the agent's install lock as another acp installing it
// would, until the returned function is called.
func lockAgent(t *testing.T, id string) func() {
	t.Helper()
	p := filepath.Join(os.Getenv("ACP_HOME"), "locks", id+".lock")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	fl := flock.New(p)
	if err := fl.Lock(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	unlock := func() { once.Do(func() { fl.Unlock(); fl.Close() }) }
	t.Cleanup(unlock)
	return unlock
}

// resolve (what an editor calls on every launch) waits a bounded time for
// another acp's install of the agent, says so after a second, and then
// fails with install-failed and a hint; install waits until its turn.
func TestResolveWaitsBoundedOnALock(t *testing.T) {
	fakeRegistry(t)
	t.Setenv("ACP_LOCK_WAIT", "1500ms")
	unlock := lockAgent(t, "fake")

	// The wait is said from a timer's goroutine: a buffer safe for that.
	var stdout bytes.Buffer
	stderr := &syncBuffer{}
	start := time.Now()
	code := run(context.Background(), []string{"resolve", "fake", "--json"}, strings.NewReader(""), &stdout, stderr)
	took := time.Since(start)
	var doc cli.ErrorDoc
	if code != cli.ExitFailure || json.Unmarshal(stdout.Bytes(), &doc) != nil || doc.Error.Code != cli.CodeInstallFailed {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(doc.Error.Message, "another acp has held the lock on fake") || !strings.Contains(doc.Error.Hint, "run the command again") {
		t.Errorf("error: %+v", doc.Error)
	}
	if !strings.Contains(stderr.String(), "waiting for another acp that is installing or removing fake") {
		t.Errorf("the wait was not said:\n%s", stderr.String())
	}
	if took > 10*time.Second {
		t.Errorf("resolve waited %s on the lock; ACP_LOCK_WAIT is 1.5s", took)
	}

	// install waits past ACP_LOCK_WAIT, and installs once the lock is free.
	type result struct {
		code         int
		out, errText string
	}
	done := make(chan result, 1)
	go func() {
		var stdout bytes.Buffer
		stderr := &syncBuffer{}
		code := run(context.Background(), []string{"install", "fake"}, strings.NewReader(""), &stdout, stderr)
		done <- result{code, stdout.String(), stderr.String()}
	}()
	select {
	case r := <-done:
		t.Fatalf("install did not wait for the lock: exit %d\n%s%s", r.code, r.out, r.errText)
	case <-time.After(2500 * time.Millisecond):
	}
	unlock()
	r := <-done
	if r.code != 0 || !strings.Contains(r.out, "installed fake 1.2.0") {
		t.Fatalf("install after the lock: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errText)
	}
}

// startAcp starts acp as a child process with args and env added.
func startAcp(t *testing.T, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *syncBuffer) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no SIGINT to send to a process")
	}
	c := exec.Command(os.Args[0], args...)
	c.Env = append(append(os.Environ(), "ACP_TEST_MAIN=1"), env...)
	var stdout bytes.Buffer
	stderr := &syncBuffer{}
	c.Stdout, c.Stderr = &stdout, stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c, &stdout, stderr
}

type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // signalled on every write (waitFor)
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written == nil {
		b.written = make(chan struct{}, 1)
	}
	defer wake(b.written)
	return b.b.Write(p)
}

// changed is signalled after each write.
func (b *syncBuffer) changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written == nil {
		b.written = make(chan struct{}, 1)
	}
	return b.written
}

// wake wakes a waiter on c without blocking: c holds one pending wake-up.
func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitFor checks cond each time changed is signalled, until it holds;
// 10 s without it fails the test.
func waitFor(t *testing.T, what string, changed <-chan struct{}, cond func() bool) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// waitExit waits up to d for c and returns its exit status.
func waitExit(t *testing.T, c *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	select {
	case <-done:
		return c.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("acp did not end within %s of Ctrl-C", d)
		return 0
	}
}

// endedByInterrupt: after two Ctrl-C, acp ends with 1 (the first one
// stopped it), 130 (the second one ended it at once), or by SIGINT itself
// when the second arrives after acp stopped catching them, on its way out.
func endedByInterrupt(c *exec.Cmd, code int) bool {
	if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGINT {
		return true
	}
	return code == cli.ExitFailure || code == 130
}

// Ctrl-C ends an acp that waits on another's lock or on a registry that
// never answers: the first at once with the code interrupted, and two in
// a row, as an impatient user presses them, just as promptly.
func TestInterruptEndsWaits(t *testing.T) {
	r := fakeRegistry(t)
	t.Setenv("ACP_LOCK_WAIT", "1h")
	lockAgent(t, "fake")

	t.Run("lock, once", func(t *testing.T) {
		c, stdout, stderr := startAcp(t, nil, "resolve", "fake", "--json")
		waitFor(t, "the wait on the lock to be said", stderr.changed(), func() bool { return strings.Contains(stderr.String(), "waiting for another acp") })
		c.Process.Signal(os.Interrupt)
		code := waitExit(t, c, 5*time.Second)
		if code != cli.ExitFailure || !strings.Contains(stdout.String(), `"code": "interrupted"`) || !strings.Contains(stderr.String(), "interrupt signal received") {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
		}
	})
	t.Run("lock, twice", func(t *testing.T) {
		c, _, stderr := startAcp(t, nil, "install", "fake")
		waitFor(t, "the wait on the lock to be said", stderr.changed(), func() bool { return strings.Contains(stderr.String(), "waiting for another acp") })
		c.Process.Signal(os.Interrupt)
		c.Process.Signal(os.Interrupt)
		if code := waitExit(t, c, 5*time.Second); !endedByInterrupt(c, code) {
			t.Errorf("exit %d\nstderr:\n%s", code, stderr.String())
		}
	})
	t.Run("registry never answers, twice", func(t *testing.T) {
		r.setMode("hang")
		before := r.hits("/registry.json")
		// No cache and the full 10 s budget: only Ctrl-C ends it early.
		c, _, stderr := startAcp(t, []string{"ACP_HOME=" + t.TempDir()}, "list")
		waitFor(t, "the registry request", r.requested, func() bool { return r.hits("/registry.json") > before })
		start := time.Now()
		c.Process.Signal(os.Interrupt)
		c.Process.Signal(os.Interrupt)
		code := waitExit(t, c, 5*time.Second)
		if !endedByInterrupt(c, code) {
			t.Errorf("exit %d\nstderr:\n%s", code, stderr.String())
		}
		t.Logf("ended %s after Ctrl-C with %d: %s", time.Since(start), code, stderr.String())
	})
}
