package source

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// blackhole accepts connections and never says a word: a network that
// is up at the TCP level and dead above it (a captive portal, a dropped
// proxy, a firewall that swallows packets after the handshake).
func blackhole(t *testing.T) (addr string, accepted *atomic.Int32) {
	h := newHole(t)
	return h.addr, &h.accepted
}

// hole is blackhole with the order of its connections: their peers'
// addresses, and a channel closed at the next accept.
type hole struct {
	addr     string
	accepted atomic.Int32
	mu       sync.Mutex
	peers    []string
	next     chan struct{}
}

func newHole(t *testing.T) *hole {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hole{addr: l.Addr().String(), next: make(chan struct{})}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			h.accepted.Add(1)
			conns = append(conns, c) // held open, never answered
			h.mu.Lock()
			h.peers = append(h.peers, c.RemoteAddr().String())
			close(h.next)
			h.next = make(chan struct{})
			h.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return h
}

// acceptedSince says how many connections came in after the first n and
// before one of our own, made now: the listener takes connections in the
// order they were made, so once ours is in, any earlier one is too.
func (h *hole) acceptedSince(t *testing.T, n int) int {
	t.Helper()
	c, err := net.Dial("tcp", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mine := c.LocalAddr().String()
	for {
		h.mu.Lock()
		if i := slices.Index(h.peers, mine); i >= 0 {
			h.mu.Unlock()
			return i - n
		}
		next := h.next
		h.mu.Unlock()
		<-next
	}
}

// budgetOpts are Options with a budget short enough for a test; the
// assertions are relative to it, never to the real 3 s and 10 s.
func budgetOpts(t *testing.T, stderr *bytes.Buffer) Options {
	return Options{
		CacheDir:       t.TempDir(),
		Stderr:         stderr,
		Embedded:       embedded,
		ConnectTimeout: 500 * time.Millisecond,
		FetchTimeout:   1500 * time.Millisecond,
	}
}

// The budget, whichever step hangs: TLS over a silent connection
// (connect budget), a plain-http server that never answers (whole
// budget), a proxy that never answers CONNECT (connect budget). After
// the failure: the embedded registry at once with one notice, and the
// next load does not touch the network at all.
func TestDeadNetworkCostsOneBudgetThenNothing(t *testing.T) {
	for _, c := range []struct {
		name, scheme string
		proxy        bool
		want         string
	}{
		{"tls handshake", "https", false, "no connection within 500ms"},
		{"no answer", "http", false, "no complete answer within 1.5s"},
		{"proxy connect", "https", true, "no connection within 500ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHole(t)
			addr, accepted := h.addr, &h.accepted
			var stderr bytes.Buffer
			o := budgetOpts(t, &stderr)
			o.DefaultURL = c.scheme + "://" + addr + "/registry.json"
			if c.proxy {
				// The registry's host is reached through the proxy only:
				// registry.invalid does not resolve.
				o.DefaultURL = "https://registry.invalid/registry.json"
				proxy, _ := url.Parse("http://" + addr)
				o.HTTP = newClient(http.ProxyURL(proxy))
			}
			start := time.Now()
			idx, origin, err := Load(context.Background(), o)
			took := time.Since(start)
			if err != nil || origin != OriginEmbedded || idx.Agents[0].ID != "builtin" {
				t.Fatalf("Load = %v, %s, %v; want the embedded registry", idx, origin, err)
			}
			if took > o.FetchTimeout+2*time.Second {
				t.Errorf("took %s with a budget of %s", took, o.FetchTimeout)
			}
			if accepted.Load() == 0 {
				t.Fatal("the test server was never reached")
			}
			if n := strings.Count(stderr.String(), "\n"); n != 1 || !strings.Contains(stderr.String(), c.want) || !strings.HasPrefix(stderr.String(), "notice: using the registry built into this binary") {
				t.Fatalf("stderr (%d lines) = %q, want one notice saying %q", n, stderr.String(), c.want)
			}

			// The next command, within 5 minutes: no connection at all.
			stderr.Reset()
			before := accepted.Load()
			if _, origin, err := Load(context.Background(), o); err != nil || origin != OriginEmbedded {
				t.Fatalf("second Load = %s, %v", origin, err)
			}
			if n := h.acceptedSince(t, int(before)); n != 0 {
				t.Fatalf("the second load tried the network again (%d connections)", n)
			}
			if !strings.Contains(stderr.String(), "the next attempt is in") || strings.Count(stderr.String(), "\n") != 1 {
				t.Fatalf("second stderr = %q", stderr.String())
			}
		})
	}
}

// The failure is remembered per URL, expires after RetryAfter, and a good
// fetch forgets it.
func TestRememberedFailureExpires(t *testing.T) {
	s, c, o, stderr := failedOnce(t)
	if s.requests.Load() != 2 {
		t.Fatalf("requests = %d", s.requests.Load())
	}
	s.status.Store(0)
	c.t = c.t.Add(4 * time.Minute)
	stderr.Reset()
	if _, origin := mustLoad(t, o); origin != OriginCache || s.requests.Load() != 2 {
		t.Fatalf("within 5 minutes: origin %s, %d requests; want the cache and no request", origin, s.requests.Load())
	}
	if !strings.Contains(stderr.String(), "503") {
		t.Errorf("the notice should name the remembered failure: %q", stderr.String())
	}
	c.t = c.t.Add(2 * time.Minute)
	if _, origin := mustLoad(t, o); origin != OriginCache || s.requests.Load() != 3 {
		t.Fatalf("after 5 minutes: origin %s, %d requests; want a new (conditional) request", origin, s.requests.Load())
	}
	if _, err := os.Stat(filepath.Join(o.CacheDir, "registry.failed.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a good fetch should forget the failure: %v", err)
	}
}

// ACP_REGISTRY pointing at a dead URL with nothing cached: an error within
// the budget, and the next command (an editor's retry button) tries again
// at once, since the network's advice is to retry: only what a retry
// cannot fix is remembered for an explicit URL with nothing to stand in.
func TestExplicitURLNetworkFailureIsRetriedAtOnce(t *testing.T) {
	addr, accepted := blackhole(t)
	var stderr bytes.Buffer
	o := budgetOpts(t, &stderr)
	o.FetchTimeout = 600 * time.Millisecond // it runs 20 times in CI
	o.Registry = "http://" + addr + "/mirror.json"
	_, _, err := Load(context.Background(), o)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no complete answer within 600ms") {
		t.Fatalf("err = %v", err)
	}
	n := accepted.Load()
	_, _, err = Load(context.Background(), o)
	if !errors.Is(err, ErrUnavailable) || strings.Contains(err.Error(), "the next attempt is in") || accepted.Load() == n {
		t.Fatalf("second load: %v after %d new connections; want a new attempt", err, accepted.Load()-n)
	}

	// A server error is the network's kind too; once fixed, the retry works.
	s := newServer(t, indexJSON("1.0.0"))
	o = opts(t, s, &clock{time.Now()}, &stderr)
	o.Registry = s.URL + "/mirror.json"
	s.status.Store(503)
	if _, _, err := Load(context.Background(), o); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("503: err = %v", err)
	}
	s.status.Store(0)
	if v, origin := mustLoad(t, o); v != "1.0.0" || origin != OriginURL || s.requests.Load() != 2 {
		t.Fatalf("retry after the 503: %s from %s, %d requests", v, origin, s.requests.Load())
	}
}

// What a retry cannot fix (the URL is gone, access is denied) is
// remembered: the same error at once, without a request.
func TestExplicitURLPermanentFailureIsRemembered(t *testing.T) {
	for _, code := range []int32{404, 403, 410} {
		s := newServer(t, indexJSON("1.0.0"))
		var stderr bytes.Buffer
		o := opts(t, s, &clock{time.Now()}, &stderr)
		o.Registry = s.URL + "/mirror.json"
		s.status.Store(code)
		for i := 0; i < 2; i++ {
			if _, _, err := Load(context.Background(), o); !errors.Is(err, ErrUnavailable) {
				t.Fatalf("%d, load %d: err = %v", code, i+1, err)
			}
		}
		if n := s.requests.Load(); n != 1 {
			t.Errorf("%d: requests = %d, want 1 (the failure is remembered)", code, n)
		}
	}
}

// An interrupted fetch is not the network's failure: nothing remembered.
func TestInterruptIsNotRemembered(t *testing.T) {
	addr, _ := blackhole(t)
	var stderr bytes.Buffer
	o := budgetOpts(t, &stderr)
	o.FetchTimeout = 5 * time.Second
	o.DefaultURL = "http://" + addr + "/registry.json"
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, _, err := Load(ctx, o); err == nil {
		t.Fatal("an interrupted load succeeded")
	}
	if _, err := os.Stat(filepath.Join(o.CacheDir, "registry.failed.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an interrupt was remembered as a failure: %v", err)
	}
}
