package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
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
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

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
