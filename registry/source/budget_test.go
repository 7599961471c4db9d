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
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// blackhole accepts connections and never says a word: a network that
// is up at the TCP level and dead above it (a captive portal, a dropped
// proxy, a firewall that swallows packets after the handshake).
func blackhole(t *testing.T) (addr string, accepted *atomic.Int32) {
	addr, accepted, _ = blackholeInOrder(t)
	return addr, accepted
}

// blackholeInOrder is blackhole that also sends each accepted
// connection's remote address, in the order accepted.
func blackholeInOrder(t *testing.T) (addr string, accepted *atomic.Int32, order <-chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = &atomic.Int32{}
	peers := make(chan string, 1024)
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			peers <- c.RemoteAddr().String()
			conns = append(conns, c) // held open, never answered
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String(), accepted, peers
}

// acceptedBefore connects to addr and returns how many connections the
// listener accepted before this one: the listener accepts in the order
// connections were made, so a connection made before this call is counted
// once its turn comes, and no sleep has to guess when that is.
func acceptedBefore(t *testing.T, addr string, order <-chan string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := 0
	for peer := range order {
		if peer == c.LocalAddr().String() {
			return n
		}
		n++
	}
	return n
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
			addr, accepted, order := blackholeInOrder(t)
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
			if n := acceptedBefore(t, addr, order); n != int(before) {
				t.Fatalf("the second load tried the network again (%d connections, %d before it)", n, before)
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
	s := newServer(t, indexJSON("1.0.0"))
	c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	var stderr bytes.Buffer
	o := opts(t, s, c, &stderr)
	mustLoad(t, o)
	s.status.Store(503)
	c.t = c.t.Add(2 * time.Hour)
	mustLoad(t, o) // fails, falls back to the cache, remembers
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

// ACP_REGISTRY pointing at a dead URL: the same budget; with nothing
// cached it is an error, and for 5 minutes the same error at once.
func TestExplicitDeadURLFailsFastTheSecondTime(t *testing.T) {
	addr, accepted := blackhole(t)
	var stderr bytes.Buffer
	o := budgetOpts(t, &stderr)
	o.Registry = "http://" + addr + "/mirror.json"
	_, _, err := Load(context.Background(), o)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no complete answer within 1.5s") {
		t.Fatalf("err = %v", err)
	}
	n := accepted.Load()
	start := time.Now()
	_, _, err = Load(context.Background(), o)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "the next attempt is in") {
		t.Fatalf("second err = %v", err)
	}
	if time.Since(start) > o.FetchTimeout || accepted.Load() != n {
		t.Fatalf("the second load waited %s and connected %d times", time.Since(start), accepted.Load()-n)
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
