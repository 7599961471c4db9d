package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The reason phrase of a status line is the server's to write: escapes in
// it (a window title, a screen clear, a hyperlink, a carriage return that
// rewrites the line, a bidi override) must reach stderr as visible text,
// in the cache warning and in the built-in registry's notice alike.
func TestServerStatusTextIsShownSafely(t *testing.T) {
	const evil = "503 \x1b]0;PWNED\x07\x1b[2J\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07\rOVERWRITE\u202eevil"
	var bad atomic.Bool
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err != nil {
					return
				}
				if bad.Load() {
					fmt.Fprintf(conn, "HTTP/1.1 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", evil)
					return
				}
				body := indexJSON("1.0.0")
				fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
			}()
		}
	}()
	url := "http://" + ln.Addr().String() + "/registry.json"
	c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	for _, cached := range []bool{true, false} {
		var stderr bytes.Buffer
		o := Options{CacheDir: t.TempDir(), HTTP: &http.Client{}, Now: c.Now, Stderr: &stderr, DefaultURL: url, Embedded: embedded}
		if cached {
			bad.Store(false)
			if _, _, err := Load(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			c.t = c.t.Add(2 * time.Hour)
		}
		bad.Store(true)
		if _, _, err := Load(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if s := stderr.String(); strings.ContainsAny(s, "\x1b\x07\r\u202e") || !strings.Contains(s, `\x1b]0;PWNED`) {
			t.Errorf("cached=%v: stderr = %q, want the status text escaped", cached, s)
		}
	}
}

// A registry that breaks its rules for many agents names the first few
// and counts the rest: one line per agent of a hostile index was a
// million lines of stderr on every command.
func TestRefusedAgentsAreCounted(t *testing.T) {
	good := `{"id":"good","name":"Good","version":"1.0.0","description":"d","distribution":{"npx":{"package":"good@1.0.0"}}}`
	s := newServer(t, `{"version":"1.0.0","agents":[`+good+strings.Repeat(`,{}`, 50)+`]}`)
	var stderr bytes.Buffer
	o := opts(t, s, &clock{time.Now()}, &stderr)
	if _, _, err := Load(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != maxRefusedShown+1 || !strings.Contains(lines[len(lines)-1], "40 more agents") {
		t.Errorf("stderr has %d lines, ending %q", len(lines), lines[len(lines)-1])
	}
}

// The ETag is the server's: one too long for the cache's meta file (it
// turned the cache off: every command fetched) is not kept, and the cache
// works without it. One that cannot be sent back as a header (a meta
// file edited or from elsewhere) froze the cached registry, every refresh
// failing: it is not sent.
func TestUnusableETagsAreDropped(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	s.etag.Store(`"` + strings.Repeat("a", 70_000) + `"`)
	c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	var stderr bytes.Buffer
	o := opts(t, s, c, &stderr)
	mustLoad(t, o)
	c.t = c.t.Add(time.Minute)
	if _, origin := mustLoad(t, o); origin != OriginCache {
		t.Errorf("second load from %s, want the cache", origin)
	}
	c.t = c.t.Add(2 * time.Hour)
	if _, origin := mustLoad(t, o); origin != OriginCDN || s.lastINM.Load() != "" {
		t.Errorf("refresh from %s with If-None-Match %.20q, want a plain fetch", origin, s.lastINM.Load())
	}

	s.etag.Store(`"v1"`)
	metaFile := filepath.Join(o.CacheDir, "registry.meta.json")
	data, err := os.ReadFile(metaFile)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"fetchedAt"`, `"etag": "\"v1\"\n", "fetchedAt"`, 1)
	if err := os.WriteFile(metaFile, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(2 * time.Hour)
	if _, origin := mustLoad(t, o); origin != OriginCDN {
		t.Errorf("refresh with an edited meta from %s, want the server", origin)
	}
	if s.requests.Load() != 3 || stderr.Len() != 0 {
		t.Errorf("requests %d, stderr %q", s.requests.Load(), stderr.String())
	}
}

// A registry that answered but is not one stays "invalid" while its
// failure is remembered: an editor that branches on the code offers
// "report it", not "retry later", the second time too.
func TestRememberedInvalidRegistryStaysInvalid(t *testing.T) {
	s := newServer(t, "<html>Sorry</html>")
	var stderr bytes.Buffer
	o := opts(t, s, &clock{time.Now()}, &stderr)
	o.Registry = s.URL + "/mirror.json"
	for i := 0; i < 2; i++ {
		_, _, err := Load(context.Background(), o)
		// ErrInvalid decides the code (registry-invalid) before
		// ErrUnavailable, which every failed source also is.
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("load %d: err = %v, want ErrInvalid", i+1, err)
		}
	}
	if n := s.requests.Load(); n != 1 {
		t.Errorf("requests = %d, want 1 (the failure is remembered)", n)
	}
}

// Two acp processes refreshing at once each rename a body and a meta file
// into place: one's body could end up beside the other's meta, whose ETag
// then made the server answer 304 for a body acp did not have. The meta
// names its body's hash; a body it does not describe is refetched.
func TestCachedBodyAndMetaMustMatch(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	var stderr bytes.Buffer
	o := opts(t, s, c, &stderr)
	mustLoad(t, o)
	// Another process's older body, renamed in after our meta.
	if err := os.WriteFile(filepath.Join(o.CacheDir, "registry.json"), []byte(indexJSON("0.9.0")), 0o644); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(time.Minute)
	if v, origin := mustLoad(t, o); v != "1.0.0" || origin != OriginCDN || s.lastINM.Load() != "" {
		t.Errorf("load = %s from %s (If-None-Match %q), want 1.0.0 fetched without the meta's ETag", v, origin, s.lastINM.Load())
	}
}

// An https registry that redirects to plain http is refused, loopback or
// not: the redirect would drop the transport's protection of a registry
// the user asked for over https (downloads refuse it too).
func TestHTTPSRegistryRedirectToHTTPRefused(t *testing.T) {
	plain := newServer(t, indexJSON("6.6.6"))
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/registry.json", http.StatusFound)
	}))
	t.Cleanup(tls.Close)
	var stderr bytes.Buffer
	o := opts(t, plain, &clock{time.Now()}, &stderr)
	o.HTTP = tls.Client()
	o.Registry = tls.URL + "/mirror.json"
	idx, _, err := Load(context.Background(), o)
	if err == nil || !errors.Is(err, ErrInsecureURL) || !strings.Contains(err.Error(), "from https to plain http") {
		t.Fatalf("Load = %v, %v; want the redirect to http refused", idx, err)
	}
	if plain.requests.Load() != 0 {
		t.Errorf("the plain http server was asked %d times", plain.requests.Load())
	}
}
