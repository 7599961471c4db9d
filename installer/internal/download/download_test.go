package download

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// server is a loopback file server that counts requests by path.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newServer(t *testing.T, tls bool, h http.HandlerFunc) *server {
	s := &server{hits: map[string]int{}}
	wrapped := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		h(w, r)
	})
	if tls {
		s.Server = httptest.NewTLSServer(wrapped)
	} else {
		s.Server = httptest.NewServer(wrapped)
	}
	t.Cleanup(func() {
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

func (s *server) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func serve(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// noWait retries at once.
func noWait(int) time.Duration { return 0 }

// emptyDir fails the test when the download left a file in dir.
func emptyDir(t *testing.T, dir string) {
	t.Helper()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the failed download left %d files in %s", len(left), dir)
	}
}

// A file whose sha256 is not the manifest's is refused with both digests
// named, and removed: nothing of it is left for an install to pick up.
func TestChecksumMismatchRefusedAndRemoved(t *testing.T) {
	body := []byte("#!/bin/sh\necho agent\n")
	srv := newServer(t, false, serve(body))
	dir := t.TempDir()
	other := sum([]byte("another file"))
	_, _, err := Options{}.Get(context.Background(), srv.URL+"/agent", dir, other)
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), sum(body)) || !strings.Contains(err.Error(), other) {
		t.Fatalf("err = %v, want ErrChecksum naming both digests", err)
	}
	emptyDir(t, dir)

	// The right digest, in either case, gives the file.
	path, got, err := Options{}.Get(context.Background(), srv.URL+"/agent", dir, strings.ToUpper(sum(body)))
	if err != nil || got != sum(body) {
		t.Fatalf("get = %s %s %v", path, got, err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(body) {
		t.Errorf("the file holds %q", b)
	}
}

// A server that sends the start of the file and then nothing is given up
// on after Stall, and tried again (a stall is often one bad connection);
// the client ends the request, and no partial file is left.
func TestStalledBodyAbortedByStall(t *testing.T) {
	gone := make(chan struct{}, 8)
	srv := newServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte(strings.Repeat("x", 10)))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // until the client gives up
		gone <- struct{}{}
	})
	dir := t.TempDir()
	d := Options{Fetch: remote.Fetch{Stall: 200 * time.Millisecond, Attempts: 2, Wait: noWait}}
	_, _, err := d.Get(context.Background(), srv.URL+"/a.tgz", dir, "")
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "stalled: nothing received for 200ms after 10 bytes") {
		t.Fatalf("err = %v, want a stall", err)
	}
	n := srv.count("/a.tgz")
	for range n {
		<-gone // each request was ended by the client
	}
	if n != 2 {
		t.Errorf("requests = %d, want 2 (a stall is retried once here)", n)
	}
	emptyDir(t, dir)
}

// An https host must not steer a download to plain http, not even on
// loopback; a loopback mirror over plain http may redirect within itself.
func TestRedirectToPlainHTTPRefused(t *testing.T) {
	plain := newServer(t, false, serve([]byte("#!/bin/sh\n")))
	secure := newServer(t, true, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/agent", http.StatusFound)
	})
	dir := t.TempDir()
	_, _, err := Options{Fetch: remote.Fetch{HTTP: secure.Client()}}.Get(context.Background(), secure.URL+"/agent", dir, "")
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "refused: not https") {
		t.Fatalf("err = %v, want the plain-http hop refused", err)
	}
	if n := plain.count("/agent"); n != 0 {
		t.Errorf("the plain-http target was requested %d times", n)
	}
	if n := secure.count("/agent"); n != 1 {
		t.Errorf("a refused redirect was tried %d times, want 1", n)
	}
	emptyDir(t, dir)

	hop := newServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/agent", http.StatusFound)
	})
	if _, _, err := (Options{}).Get(context.Background(), hop.URL+"/hop", dir, ""); err != nil {
		t.Errorf("loopback http to loopback http: %v", err)
	}
}

// Plain http to a host that is not loopback is refused before any
// connection: the URL is the manifest's mistake.
func TestPlainHTTPRefusedBeforeAnyRequest(t *testing.T) {
	_, _, err := Options{}.Get(context.Background(), "http://downloads.example.com/agent.tgz", t.TempDir(), "")
	if err == nil || !strings.Contains(err.Error(), "download http://downloads.example.com/agent.tgz: only https URLs are accepted") {
		t.Fatalf("err = %v", err)
	}
}

// Max bounds what reaches the disk: an announced size above it is refused
// before the body, a body that grows past it without announcing its size
// is cut off; neither is retried nor left behind.
func TestSizeCap(t *testing.T) {
	big := []byte(strings.Repeat("x", 5000))
	srv := newServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			// Flushing before the end leaves the length unannounced.
			w.Write(big[:100])
			w.(http.Flusher).Flush()
			w.Write(big[100:])
			return
		}
		serve(big)(w, r)
	})
	dir := t.TempDir()
	d := Options{Fetch: remote.Fetch{Max: 1000, Wait: noWait}}
	_, _, err := d.Get(context.Background(), srv.URL+"/announced", dir, "")
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "the file is 5000 bytes, more than the 1000 bytes limit") {
		t.Errorf("announced: err = %v", err)
	}
	_, _, err = d.Get(context.Background(), srv.URL+"/chunked", dir, "")
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "more than the 1000 bytes limit") {
		t.Errorf("chunked: err = %v", err)
	}
	for _, p := range []string{"/announced", "/chunked"} {
		if n := srv.count(p); n != 1 {
			t.Errorf("%s tried %d times, want 1", p, n)
		}
	}
	emptyDir(t, dir)
	// At the cap itself the file is whole.
	if _, _, err := (Options{Fetch: remote.Fetch{Max: 5000}}).Get(context.Background(), srv.URL+"/chunked", dir, sum(big)); err != nil {
		t.Errorf("a file of exactly Max bytes: %v", err)
	}
}

// A download whose request was cancelled as its body ended is not a
// download: nothing is hashed or handed on, however cleanly the transport
// reported the end.
func TestCancelledDownloadYieldsNothing(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 1000))) // chunked: no length to check
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := &http.Client{Transport: testkit.CancelAtEOF{RT: srv.Client().Transport, Cancel: cancel}}
	dir := t.TempDir()
	path, sum, err := Download(ctx, client, srv.URL+"/agent", dir, "", nil)
	if err == nil {
		t.Fatalf("a cancelled download succeeded: %s with sha256 %s", path, sum)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the cancelled download left %d files", len(left))
	}
}
