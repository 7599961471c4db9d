package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/testarchive"
	"github.com/gofrs/flock"
)

// acpText runs acp in this process and returns its exit status, stdout
// and stderr.
func acpText(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// fakeRegistry gives the test its own loopback registry (the fake agent
// at 1.2.0) and an empty ACP_HOME.
func fakeRegistry(t *testing.T) *registryServer {
	t.Helper()
	r, err := newRegistryServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.srv.Close)
	t.Setenv("ACP_HOME", t.TempDir())
	t.Setenv("ACP_REGISTRY", r.URL())
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	t.Setenv("ACP_PROGRESS", "plain")
	return r
}

// startInstalled launches the installed fake agent as an editor would,
// from resolve's spec, and leaves it running (waiting on its stdin).
func startInstalled(t *testing.T, id string) *exec.Cmd {
	t.Helper()
	code, out, errs := acpText(t, "resolve", id, "--json")
	if code != 0 {
		t.Fatalf("resolve: %d\n%s", code, errs)
	}
	var spec struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	if err := json.Unmarshal([]byte(out), &spec); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(spec.Command, spec.Args...)
	c.Env = os.Environ()
	for k, v := range spec.Env {
		c.Env = append(c.Env, k+"="+v)
	}
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); c.Process.Kill(); c.Wait() })
	return c
}

// uninstall keeps a version an editor's agent runs from (found through
// /proc), fails with in-use and says what to do; --force removes it, and
// says what it removed and its size.
func TestUninstallKeepsARunningVersion(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("running processes' files are known on Linux; elsewhere a recent resolve counts")
	}
	fakeRegistry(t)
	if code, _, errs := acpText(t, "install", "fake"); code != 0 {
		t.Fatalf("install: %d\n%s", code, errs)
	}
	agent := startInstalled(t, "fake")
	dir := filepath.Join(os.Getenv("ACP_HOME"), "agents", "fake", "1.2.0")

	e := acpJSON(t, cli.CodeInUse, "uninstall", "fake", "--json")
	if !strings.Contains(e.Message, "in use by process") || !strings.Contains(e.Hint, "--force") {
		t.Errorf("in-use error: %+v", e)
	}
	code, out, errs := acpText(t, "uninstall", "fake")
	if code != cli.ExitFailure || !strings.Contains(errs, "kept 1.2.0 (in use by process") || strings.Contains(out, "uninstalled") {
		t.Errorf("uninstall of a running version: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the running version was removed: %v", err)
	}
	_ = agent

	code, out, errs = acpText(t, "uninstall", "fake", "--force")
	if code != 0 || !strings.Contains(out, "removed fake 1.2.0 (uninstalled, ") || !strings.Contains(out, "uninstalled fake\n") || !strings.Contains(errs, "freed ") {
		t.Fatalf("uninstall --force: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("uninstall --force left %s: %v", dir, err)
	}
}

// uninstall --json says what was removed, with sizes.
func TestUninstallJSON(t *testing.T) {
	fakeRegistry(t)
	if code, _, errs := acpText(t, "install", "fake"); code != 0 {
		t.Fatalf("install: %d\n%s", code, errs)
	}
	code, out, errs := acpText(t, "uninstall", "fake", "--json")
	var rep struct {
		Removed []struct {
			Agent, Version, Why string
			Bytes               int64
		} `json:"removed"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Removed) != 1 || rep.Removed[0].Version != "1.2.0" || rep.Removed[0].Why != "uninstalled" || rep.Removed[0].Bytes < 1000 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// privateArchive serves a good archive over TLS on loopback and returns
// its URL written as https://0.0.0.0:PORT/… (a name for this machine that
// is not a loopback literal, as a hostile registry would write it), a
// PEM file that makes the server's certificate trusted (SSL_CERT_FILE of
// a child acp), and a count of the connections the server accepted.
func privateArchive(t *testing.T) (url, sum, certFile string, conns *atomic.Int32) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("SSL_CERT_FILE is honoured on Linux (and 0.0.0.0 is not this machine on Windows)")
	}
	good := testarchive.TarGz(testarchive.File{Name: "bin/agent", Body: "#!/bin/sh\n"})
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "private mirror"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4zero},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	certFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	conns = new(atomic.Int32)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(good) }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return "https://0.0.0.0:" + port + "/agent.tar.gz", sha(good), certFile, conns
}

// acpChild runs acp as a child process (this test binary, ACP_TEST_MAIN)
// with env added to the test's environment.
func acpChild(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	c := exec.Command(os.Args[0], args...)
	c.Env = append(append(os.Environ(), "ACP_TEST_MAIN=1"), env...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return c.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// A registry read from a file may not send downloads to this machine or
// the private network: refused before connecting, with code network and
// the way out. --allow-private-urls, or a registry that is itself on
// loopback (a local mirror), lets the download go there.
func TestPrivateArchiveURLRefused(t *testing.T) {
	url, sum, certFile, conns := privateArchive(t)
	t.Setenv("ACP_PLATFORM", "linux-x86_64")
	t.Setenv("ACP_REGISTRY", "")
	t.Setenv("SSL_CERT_FILE", certFile)
	reg := folderRegistry(t, binaryAgent("private", url, sum, "./bin/agent", nil))

	t.Setenv("ACP_HOME", t.TempDir())
	e := acpJSON(t, cli.CodeNetwork, "--registry", reg, "install", "private", "--json")
	if !strings.Contains(e.Message, "refused") || !strings.Contains(e.Message, "0.0.0.0") || !strings.Contains(e.Message, "--allow-private-urls") {
		t.Errorf("refusal: %+v", e)
	}
	t.Setenv("ACP_HOME", t.TempDir()) // a failed install is remembered: a new home tries again
	acpJSON(t, cli.CodeNetwork, "--registry", reg, "resolve", "private", "--json")
	if n := conns.Load(); n != 0 {
		t.Fatalf("the server was reached %d times; want none", n)
	}

	// Allowed, it installs (in a child: this process has read its trusted
	// certificates already).
	t.Setenv("ACP_HOME", t.TempDir())
	code, out, errs := acpChild(t, nil, "--registry", reg, "install", "private", "--allow-private-urls")
	if code != 0 || !strings.Contains(out, "installed private 1.0.0") || conns.Load() == 0 {
		t.Errorf("--allow-private-urls: exit %d, %d connections\nstdout:\n%s\nstderr:\n%s", code, conns.Load(), out, errs)
	}

	// A registry served from loopback allows the same by itself.
	data, err := os.ReadFile(filepath.Join(reg, "private", "agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	index := []byte(`{"version":"1.0.0","agents":[` + string(data) + `],"extensions":[]}`)
	mirror := files(t, map[string][]byte{"/registry.json": index})
	t.Setenv("ACP_HOME", t.TempDir())
	code, out, errs = acpChild(t, nil, "--registry", mirror.URL+"/registry.json", "resolve", "private", "--json")
	if code != 0 || !strings.Contains(out, `"version": "1.0.0"`) {
		t.Errorf("loopback registry: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

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

	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(context.Background(), []string{"resolve", "fake", "--json"}, strings.NewReader(""), &stdout, &stderr)
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
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"install", "fake"}, strings.NewReader(""), &stdout, &stderr)
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

// A registry server that accepts and never answers costs one command the
// fetch budget (ACP_REGISTRY_TIMEOUT here, 10 s by default), which then
// lists from the cached copy with one notice; the next command does not
// try the network again.
func TestDeadRegistryNetwork(t *testing.T) {
	r := fakeRegistry(t)
	if code, _, errs := acpText(t, "list"); code != 0 {
		t.Fatalf("list: %d\n%s", code, errs)
	}
	if err := ageCache(os.Getenv("ACP_HOME"), 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	r.setMode("hang")
	t.Setenv("ACP_REGISTRY_TIMEOUT", "300ms")

	for i, want := range []int{2, 2} {
		start := time.Now()
		code, out, errs := acpText(t, "list")
		took := time.Since(start)
		if code != 0 || !regexp.MustCompile(`(?m)^fake\s+Fake Agent\s+1\.2\.0`).MatchString(out) {
			t.Fatalf("list %d: exit %d\nstdout:\n%s\nstderr:\n%s", i+1, code, out, errs)
		}
		if took > 5*time.Second {
			t.Errorf("list %d took %s on a dead network; the budget is 300ms", i+1, took)
		}
		if got := r.hits("/registry.json"); got != want {
			t.Errorf("list %d: the registry was requested %d times in all, want %d", i+1, got, want)
		}
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if i == 0 && (len(lines) != 1 || !strings.Contains(lines[0], "using the cached registry")) {
			t.Errorf("list %d: want one notice on stderr, got:\n%s", i+1, errs)
		}
		if i == 1 && len(lines) > 1 {
			t.Errorf("list %d: more than one notice:\n%s", i+1, errs)
		}
		t.Logf("list %d: %s, stderr: %s", i+1, took, errs)
	}
}

// A bad knob is the user's to fix: usage, naming the variable.
func TestBadDurationKnob(t *testing.T) {
	fakeRegistry(t)
	t.Setenv("ACP_REGISTRY_TIMEOUT", "soon")
	e := acpJSON(t, cli.CodeUsage, "list", "--json")
	if !strings.Contains(e.Message, `ACP_REGISTRY_TIMEOUT="soon"`) {
		t.Errorf("%+v", e)
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
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
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

// Ctrl-C ends an acp that waits on another's lock or on a registry that
// never answers: the first at once with the code interrupted, and two in
// a row, as an impatient user presses them, just as promptly.
func TestInterruptEndsWaits(t *testing.T) {
	r := fakeRegistry(t)
	t.Setenv("ACP_LOCK_WAIT", "1h")
	lockAgent(t, "fake")

	t.Run("lock, once", func(t *testing.T) {
		c, stdout, stderr := startAcp(t, nil, "resolve", "fake", "--json")
		waitFor(t, "the wait on the lock to be said", func() bool { return strings.Contains(stderr.String(), "waiting for another acp") })
		c.Process.Signal(os.Interrupt)
		code := waitExit(t, c, 5*time.Second)
		if code != cli.ExitFailure || !strings.Contains(stdout.String(), `"code": "interrupted"`) || !strings.Contains(stderr.String(), "interrupt signal received") {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
		}
	})
	t.Run("lock, twice", func(t *testing.T) {
		c, _, stderr := startAcp(t, nil, "install", "fake")
		waitFor(t, "the wait on the lock to be said", func() bool { return strings.Contains(stderr.String(), "waiting for another acp") })
		c.Process.Signal(os.Interrupt)
		c.Process.Signal(os.Interrupt)
		if code := waitExit(t, c, 5*time.Second); code != cli.ExitFailure && code != 130 {
			t.Errorf("exit %d\nstderr:\n%s", code, stderr.String())
		}
	})
	t.Run("registry never answers, twice", func(t *testing.T) {
		r.setMode("hang")
		before := r.hits("/registry.json")
		// No cache and the full 10 s budget: only Ctrl-C ends it early.
		c, _, stderr := startAcp(t, []string{"ACP_HOME=" + t.TempDir()}, "list")
		waitFor(t, "the registry request", func() bool { return r.hits("/registry.json") > before })
		start := time.Now()
		c.Process.Signal(os.Interrupt)
		c.Process.Signal(os.Interrupt)
		code := waitExit(t, c, 5*time.Second)
		if code != cli.ExitFailure && code != 130 {
			t.Errorf("exit %d\nstderr:\n%s", code, stderr.String())
		}
		t.Logf("ended %s after Ctrl-C with %d: %s", time.Since(start), code, stderr.String())
	})
}
