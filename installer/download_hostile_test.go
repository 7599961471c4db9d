package installer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/download"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

const errorPage = "<!DOCTYPE html>\n<html><head><title>Not Found</title></head><body>Sorry, that page is gone.</body></html>\n"

// A server that answers an error page with status 200 must not have it
// installed as the agent: a URL that names an archive must hold that
// archive, and anything else must look like an executable.
func TestDownloadMustBeWhatItSays(t *testing.T) {
	srv := newServer(t)
	zipBody := makeZip(t, []entry{exe("agent", agentScript)})
	cases := []struct {
		name, path string
		body       []byte
		want       string
	}{
		{"HTML for a tar.gz", "/agent-1.0.tar.gz", []byte(errorPage), "not the tar.gz archive its name says: it is an HTML page"},
		{"HTML for a zip", "/agent.zip", []byte(errorPage), "not the zip archive its name says: it is an HTML page"},
		{"HTML for a tbz2", "/agent.tbz2", []byte(errorPage), "not the tar.bz2 archive"},
		{"zip for a tar.gz", "/agent.tgz", zipBody, "it is a zip file"},
		{"HTML for a raw executable", "/agent-linux", []byte(errorPage), "neither an archive"},
		{"JSON for a raw executable", "/agent-linux-json", []byte(`{"message":"Not Found"}`), "a JSON document"},
		{"empty file", "/agent-empty", []byte{}, "an empty file"},
		{"gzipped HTML", "/agent.gz", testarchive.Gzip([]byte(errorPage)), "the gzip data from"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := newInstaller(t)
			url := srv.add(tc.path, tc.body)
			_, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", "")})
			if !errors.Is(err, ErrWrongContent) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrWrongContent with %q", err, tc.want)
			}
			if _, err := in.Current("demo"); !errors.Is(err, ErrNotInstalled) {
				t.Errorf("after a refused download current = %v, want not installed", err)
			}
			if _, err := os.Stat(filepath.Join(in.Root, "agents", "demo")); !os.IsNotExist(err) {
				t.Errorf("the refused download left agents/demo")
			}
		})
	}
}

// An install made by an older acp from an error page (the page saved as
// the agent's executable and marked current) is broken: nobody lists or
// resolves it, and install repairs it.
func TestInstallRepairsAnErrorPageInstall(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	url := srv.add("/a.tgz", body)
	in := newInstaller(t)
	m := binaryManifest("demo", "1.0.0", url, "agent", sha(body))
	r, _, err := in.Install(context.Background(), Request{Agent: m})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.Launch.Command, []byte(errorPage), 0o755); err != nil {
		t.Fatal(err)
	}
	if list, err := in.List(); err != nil || len(list) != 0 {
		t.Errorf("list = %+v %v, want the broken install left out", list, err)
	}
	if _, err := in.Current("demo"); !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "not an executable") {
		t.Errorf("current = %v, want not installed (broken)", err)
	}
	if _, err := in.Resolve(context.Background(), Request{Agent: m}, NoInstall); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("resolve --no-install = %v, want not installed", err)
	}
	r, already, err := in.Install(context.Background(), Request{Agent: m})
	if err != nil || already {
		t.Fatalf("install of a broken install: already=%v err=%v, want a repair", already, err)
	}
	if head, _ := kinds.ReadHead(r.Launch.Command); !strings.HasPrefix(string(head), "#!") {
		t.Errorf("after the repair the command holds %q", head)
	}
	if n := srv.count("/a.tgz"); n != 2 {
		t.Errorf("downloads = %d, want 2", n)
	}
}

// tlsServer serves the test's handler over https on loopback; the
// installer trusts its certificate through in.HTTP.
func tlsServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	s := httptest.NewTLSServer(h)
	t.Cleanup(s.Close)
	return s
}

// An https host must not steer a download to plain http, not even on
// loopback (a blind request to a local service, its answer kept as the
// agent).
func TestRedirectToPlainHTTPRefused(t *testing.T) {
	plain := newServer(t)
	local := plain.add("/agent", []byte(agentScript))
	secure := tlsServer(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, local, http.StatusFound) })
	in := newInstaller(t)
	in.HTTP = secure.Client()
	_, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", secure.URL+"/agent", "agent", "")})
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "not https") {
		t.Fatalf("err = %v, want the plain-http hop refused", err)
	}
	if n := plain.count("/agent"); n != 0 {
		t.Errorf("the plain-http target was requested %d times", n)
	}
	// A loopback mirror over plain http may redirect within itself.
	hop := plain.handle("/hop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, local, http.StatusFound) })
	if _, _, err := newInstaller(t).Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", hop, "agent", "")}); err != nil {
		t.Errorf("loopback http to loopback http: %v", err)
	}
}

// Manifest URLs reach public addresses only: a public-looking name that
// resolves to a loopback or private address, or a redirect to the cloud
// metadata service, is refused at connect time, unless AllowPrivateURLs.
func TestDownloadsRefusePrivateAddresses(t *testing.T) {
	var hits atomic.Int32
	srv := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/meta" {
			http.Redirect(w, r, "https://169.254.169.254/latest/meta-data/", http.StatusFound)
			return
		}
		w.Write([]byte(agentScript))
	})
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	mirror := func() *Installer {
		in := newInstaller(t)
		c := srv.Client()
		// The certificate names 127.0.0.1 and example.com; the name is
		// resolved by the guard through in.lookup.
		in.HTTP = c
		in.lookup = func(ctx context.Context, network, host string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return in
	}
	url := "https://example.com:" + port + "/agent"

	in := mirror()
	_, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", "")})
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "loopback") || !strings.Contains(err.Error(), "--allow-private-urls") {
		t.Fatalf("err = %v, want a refused loopback address", err)
	}
	if hits.Load() != 0 {
		t.Fatalf("the refused address was contacted")
	}

	// The same mirror, allowed.
	in = mirror()
	in.AllowPrivateURLs = true
	if _, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", "")}); err != nil {
		t.Fatalf("with AllowPrivateURLs: %v", err)
	}

	// A loopback URL (a local mirror, tests) may be fetched, but it may
	// not send us to a link-local address.
	in = newInstaller(t)
	in.HTTP = srv.Client()
	_, _, err = in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", srv.URL+"/meta", "agent", "")})
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "link-local") {
		t.Fatalf("redirect to the metadata service: err = %v", err)
	}
}

// A server that accepts the connection and never answers costs the header
// budget once, not three times a long timeout.
func TestServerThatNeverAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			defer c.Close()
		}
	}()
	in := newInstaller(t)
	in.HeaderTimeout = 300 * time.Millisecond
	start := time.Now()
	_, _, err = in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", "http://"+ln.Addr().String()+"/a.tgz", "agent", "")})
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s", d)
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("%d connections, want 1 (a server that does not answer is not retried)", n)
	}
}

// One byte now and then keeps a connection alive but not an install: a
// transfer below the minimum rate is stopped, and not retried.
func TestTrickleIsStopped(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	url := srv.handle("/trickle.tgz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		for i := range body {
			if _, err := w.Write(body[i : i+1]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	in := newInstaller(t)
	in.MinRate = 1000
	in.rateWindow = 300 * time.Millisecond
	start := time.Now()
	_, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", "")})
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "too slow") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s", d)
	}
	if n := srv.count("/trickle.tgz"); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}

// Only what may help is retried: not a redirect loop, not a full disk,
// not a 4xx; 429 and 5xx are.
func TestOnlyTransientFailuresAreRetried(t *testing.T) {
	srv := newServer(t)
	loop := srv.handle("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	in := newInstaller(t)
	_, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", loop, "agent", "")})
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "redirect loop") {
		t.Errorf("loop: err = %v", err)
	}
	if n := srv.count("/loop"); n > download.MaxRedirects+1 {
		t.Errorf("a redirect loop was followed %d times (retried)", n)
	}

	for _, code := range []int{403, 410} {
		p := fmt.Sprintf("/%d", code)
		url := srv.handle(p, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) })
		newInstaller(t).Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", "")})
		if n := srv.count(p); n != 1 {
			t.Errorf("%d tried %d times, want 1", code, n)
		}
	}
	url := srv.handle("/429", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(429) })
	newInstaller(t).Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", "")})
	if n := srv.count("/429"); n != 3 {
		t.Errorf("429 tried %d times, want 3", n)
	}
}

// fullDisk is a temporary file on a disk that fills up after room bytes.
type fullDisk struct {
	*os.File
	room int
}

func (f *fullDisk) Write(p []byte) (int, error) {
	if len(p) > f.room {
		n, _ := f.File.Write(p[:f.room])
		f.room = 0
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	f.room -= len(p)
	return f.File.Write(p)
}

func TestFullDiskIsSaidAndNotRetried(t *testing.T) {
	srv := newServer(t)
	big := makeTar(t, []entry{exe("agent", agentScript), file("data", strings.Repeat("x", 3<<20))}, "")
	url := srv.add("/big.tar", big)
	in := newInstaller(t)
	in.createTemp = func(dir string) (download.TempFile, error) {
		f, err := os.CreateTemp(dir, ".dl-*")
		if err != nil {
			return nil, err
		}
		return &fullDisk{File: f, room: 1 << 20}, nil
	}
	_, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", "")})
	if !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), "no space left on "+filepath.Join(in.Root, "agents", "demo")) || !strings.Contains(err.Error(), "(needs 4 MB)") {
		t.Fatalf("err = %v", err)
	}
	if n := srv.count("/big.tar"); n != 1 {
		t.Errorf("a full disk was retried: %d requests", n)
	}
}

// A malformed sha256 is the manifest's mistake, said before any download,
// not "tampering" after one.
func TestMalformedSHA256BeforeDownload(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	url := srv.add("/a.tgz", body)
	for _, bad := range []string{"abc", strings.Repeat("g", 64), sha(body) + "0", "sha256:" + sha(body)} {
		_, _, err := newInstaller(t).Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", bad)})
		if !errors.Is(err, ErrBadManifest) || errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "not 64 hex digits") {
			t.Errorf("sha256 %q: err = %v", bad, err)
		}
	}
	if n := srv.count("/a.tgz"); n != 0 {
		t.Errorf("downloaded %d times with a malformed sha256", n)
	}
	// Upper case is a valid way to write it.
	if _, _, err := newInstaller(t).Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", strings.ToUpper(sha(body)))}); err != nil {
		t.Errorf("upper-case sha256: %v", err)
	}
}

// An install without a sha256 says once that it is not verified.
func TestUnverifiedInstallIsSaidOnce(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	url := srv.add("/a.tgz", body)
	in := newInstaller(t)
	var log strings.Builder
	in.Stderr = &log
	if _, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "1.0.0", url, "agent", "")}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "is not verified"); n != 1 {
		t.Errorf("stderr = %q, want one 'not verified' warning", log.String())
	}
	log.Reset()
	if _, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", "2.0.0", url, "agent", sha(body))}); err != nil {
		t.Fatal(err)
	}
	if log.Len() != 0 {
		t.Errorf("a verified install warned: %q", log.String())
	}
}

// Inside an archive, cmd may be a script without #! (run through a shell
// by its launcher): it is installed, and not taken for broken and
// reinstalled on every resolve.
func TestArchivedScriptWithoutShebangIsNotBroken(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", "echo hi\n")}, "gz")
	url := srv.add("/a.tgz", body)
	in := newInstaller(t)
	m := binaryManifest("demo", "1.0.0", url, "agent", sha(body))
	if _, _, err := in.Install(context.Background(), Request{Agent: m}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Resolve(context.Background(), Request{Agent: m}, InstallIfMissing); err != nil {
		t.Fatal(err)
	}
	if n := srv.count("/a.tgz"); n != 1 {
		t.Errorf("downloads = %d, want 1", n)
	}
}
