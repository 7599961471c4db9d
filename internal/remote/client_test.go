package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testClient talks to an httptest TLS server: loopback, so AllowPrivate,
// and waits of a millisecond instead of seconds.
func testClient(srv *httptest.Server) *Client {
	return &Client{
		HTTP:         srv.Client(),
		AllowPrivate: true,
		Backoff:      func(int) time.Duration { return time.Millisecond },
	}
}

func TestCheckURLOK(t *testing.T) {
	var methods []string
	var mu sync.Mutex
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		methods = append(methods, r.Method)
		mu.Unlock()
	}))
	defer srv.Close()
	if err := testClient(srv).CheckURL(context.Background(), srv.URL+"/a.tar.gz"); err != nil {
		t.Fatalf("CheckURL: %v", err)
	}
	if strings.Join(methods, ",") != "HEAD" {
		t.Errorf("requests = %v, want one HEAD", methods)
	}
}

func TestCheckURLNotFoundIsNotRetried(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	u := srv.URL + "/download/v1.0.0/agent.tar.gz"
	err := testClient(srv).CheckURL(context.Background(), u)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if want := u + " answered 404 Not Found"; err.Error() != want {
		t.Errorf("message = %q, want %q", err, want)
	}
	if n.Load() != 1 {
		t.Errorf("%d requests for a 404, want 1", n.Load())
	}
}

func TestCheckURLRetries503(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	if err := testClient(srv).CheckURL(context.Background(), srv.URL+"/a.zip"); err != nil {
		t.Fatalf("503 then 200: %v", err)
	}
	if n.Load() != 2 {
		t.Errorf("%d requests, want 2", n.Load())
	}
}

func TestCheckURLGivesUpAfterAttempts(t *testing.T) {
	var n atomic.Int32
	var waits []int
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	c := testClient(srv)
	c.Backoff = func(a int) time.Duration { waits = append(waits, a); return time.Millisecond }
	err := c.CheckURL(context.Background(), srv.URL+"/a.zip")
	if err == nil || !strings.HasSuffix(err.Error(), "answered 502 Bad Gateway (3 attempts)") {
		t.Fatalf("err = %v, want 502 after 3 attempts", err)
	}
	if n.Load() != 3 || fmt.Sprint(waits) != "[1 2]" {
		t.Errorf("requests = %d, backoff calls = %v; want 3 requests, waits after attempts 1 and 2", n.Load(), waits)
	}
}

func TestDefaultBackoff(t *testing.T) {
	var c Client
	p := c.policy()
	if p.backoff(1) != time.Second || p.backoff(2) != 2*time.Second || p.attempts() != 3 || p.maxWait() != 30*time.Second {
		t.Errorf("default backoff = %v, %v, attempts %d, longest wait %v; want 1s, 2s, 3, 30s", p.backoff(1), p.backoff(2), p.attempts(), p.maxWait())
	}
}

func TestCheckURLTimeout(t *testing.T) {
	var n atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c := testClient(srv)
	c.Timeout = 100 * time.Millisecond
	c.Attempts = 2
	err := c.CheckURL(context.Background(), srv.URL+"/slow.tar.gz")
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if !strings.Contains(err.Error(), "timed out after 100ms (2 attempts)") {
		t.Errorf("message = %q", err)
	}
	var ue *URLError
	if !errors.As(err, &ue) || ue.Attempts != 2 || n.Load() == 0 {
		t.Errorf("err = %#v after %d requests, want 2 attempts (timeouts are retried)", err, n.Load())
	}
}

func TestGetRetryStalledBody(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c := testClient(srv)
	c.Timeout = 100 * time.Millisecond
	resp, err := c.GetRetry(context.Background(), srv.URL+"/a", Untrusted)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 200)
	var readErr error
	for readErr == nil {
		_, readErr = resp.Body.Read(buf)
	}
	if !errors.Is(readErr, ErrTimeout) {
		t.Errorf("read of a stalled body: %v, want ErrTimeout", readErr)
	}
}

// redirector answers /r/N with a redirect to /r/N-1 and /r/0 with 200.
func redirector(t *testing.T) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCheckURLRedirects(t *testing.T) {
	srv := redirector(t)
	c := testClient(srv)
	for _, hops := range []int{3, 5} {
		if err := c.CheckURL(context.Background(), fmt.Sprintf("%s/r/%d", srv.URL, hops)); err != nil {
			t.Errorf("%d redirects: %v", hops, err)
		}
	}
	err := c.CheckURL(context.Background(), srv.URL+"/r/6")
	if !errors.Is(err, ErrTooManyRedirects) || !strings.Contains(err.Error(), "too many redirects") {
		t.Errorf("6 redirects: %v, want too many redirects", err)
	}
}

func TestRedirectToHTTPRefused(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+r.Host+"/plain", http.StatusMovedPermanently)
	}))
	defer srv.Close()
	err := testClient(srv).CheckURL(context.Background(), srv.URL+"/a.zip")
	if !errors.Is(err, ErrNotHTTPS) {
		t.Errorf("redirect to http: %v, want ErrNotHTTPS", err)
	}
}

func TestCheckURLHeadRefusedThenGet(t *testing.T) {
	for _, refusal := range []int{http.StatusMethodNotAllowed, http.StatusForbidden} {
		var methods []string
		var mu sync.Mutex
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			methods = append(methods, r.Method)
			mu.Unlock()
			if r.Method == http.MethodHead {
				w.WriteHeader(refusal)
			}
		}))
		if err := testClient(srv).CheckURL(context.Background(), srv.URL+"/a.zip"); err != nil {
			t.Errorf("HEAD %d then GET 200: %v", refusal, err)
		}
		if strings.Join(methods, ",") != "HEAD,GET" {
			t.Errorf("HEAD %d: requests %v, want HEAD,GET", refusal, methods)
		}
		srv.Close()
	}
}

func TestRetryAfterHonouredUpToCap(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	c := testClient(srv)
	c.MaxRetryAfter = 50 * time.Millisecond
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	if err := c.CheckURL(context.Background(), srv.URL+"/a.zip"); err != nil {
		t.Fatalf("429 then 200: %v", err)
	}
	// The wait comes from Retry-After (1s asked, capped at 50ms), not from
	// the 1ms backoff.
	if fmt.Sprint(waits) != "[50ms]" {
		t.Errorf("waits = %v, want [50ms]", waits)
	}
	c.MaxRetryAfter = 0
	waits = nil
	n.Store(0)
	if err := c.CheckURL(context.Background(), srv.URL+"/a.zip"); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(waits) != "[1s]" {
		t.Errorf("waits under the default cap = %v, want [1s]", waits)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"7":                             7 * time.Second,
		"-3":                            0,
		"soon":                          0,
		"Sun, 22 Nov 2026 12:00:30 GMT": 30 * time.Second,
		"Sun, 22 Nov 2026 11:00:00 GMT": 0,
	} {
		if got := retryAfter(v, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestPrivateAddressRefused(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1) }))
	defer srv.Close()
	c := testClient(srv)
	c.AllowPrivate = false
	err := c.CheckURL(context.Background(), srv.URL+"/a.zip")
	if !errors.Is(err, ErrNotPublic) {
		t.Fatalf("err = %v, want ErrNotPublic", err)
	}
	if want := srv.URL + "/a.zip is not public (127.0.0.1, a loopback address)"; err.Error() != want {
		t.Errorf("message = %q", err)
	}
	if n.Load() != 0 {
		t.Errorf("the server was contacted %d times", n.Load())
	}
	if err := c.CheckURL(context.Background(), "https://localhost/a.zip"); !errors.Is(err, ErrNotPublic) {
		t.Errorf("localhost: %v, want ErrNotPublic", err)
	}
	if err := c.CheckURL(context.Background(), "http://example.com/a.zip"); !errors.Is(err, ErrNotHTTPS) {
		t.Errorf("http URL: %v, want ErrNotHTTPS", err)
	}
}

// A public-looking name that resolves to loopback (DNS rebinding) is
// refused when connecting, and so is a name with any non-public address.
func TestConnectTimeGuard(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1) }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for name, addrs := range map[string][]string{
		"rebind.example": {"127.0.0.1"},
		"mixed.example":  {"93.184.215.14", "10.1.2.3"},
		"mapped.example": {"::ffff:127.0.0.1"},
	} {
		c := testClient(srv)
		c.AllowPrivate = false
		c.lookup = func(ctx context.Context, network, host string) ([]netip.Addr, error) {
			var ips []netip.Addr
			for _, a := range addrs {
				ips = append(ips, netip.MustParseAddr(a))
			}
			return ips, nil
		}
		err := c.CheckURL(context.Background(), "https://"+name+":"+port+"/a.zip")
		var np *NotPublicError
		if !errors.As(err, &np) || np.Host != name {
			t.Errorf("%s -> %v: err = %v, want a NotPublicError for the host", name, addrs, err)
			continue
		}
		if !strings.Contains(err.Error(), "resolves to") {
			t.Errorf("message = %q, want it to say what the host resolves to", err)
		}
	}
	if n.Load() != 0 {
		t.Errorf("the server was contacted %d times", n.Load())
	}
}

func TestIsPublicIP(t *testing.T) {
	for s, want := range map[string]bool{
		"8.8.8.8": true, "93.184.215.14": true, "2606:4700::1111": true,
		"127.0.0.1": false, "10.0.0.1": false, "172.16.5.4": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "100.127.255.255": false, "0.0.0.0": false,
		"224.0.0.1": false, "255.255.255.255": false, "::1": false, "::": false, "fe80::1": false,
		"fc00::1": false, "fd12::1": false, "ff02::1": false, "::ffff:127.0.0.1": false,
		"::ffff:8.8.8.8": true, "64:ff9b::7f00:1": false, "64:ff9b::808:808": true,
		"2002:7f00:1::": false, "2002:808:808::": true, "192.0.2.1": false, "2001:db8::1": false,
	} {
		if got := IsPublicIP(netip.MustParseAddr(s)); got != want {
			t.Errorf("IsPublicIP(%s) = %v, want %v", s, got, want)
		}
	}
	if IsPublicIP(netip.Addr{}) {
		t.Error("the zero Addr is public")
	}
}

func TestMaxPerHost(t *testing.T) {
	var cur, peak atomic.Int32
	// The first requests wait until two are in flight, so the test sees
	// the limit reached (and any request beyond it) without guessing how
	// long a request must last to overlap another.
	full := make(chan struct{})
	var fill sync.Once
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := cur.Add(1)
		for {
			p := peak.Load()
			if v <= p || peak.CompareAndSwap(p, v) {
				break
			}
		}
		if v == 2 {
			fill.Do(func() { close(full) })
		}
		select {
		case <-full:
		case <-time.After(10 * time.Second):
			t.Error("two requests were never in flight at once")
		}
		cur.Add(-1)
	}))
	defer srv.Close()
	c := testClient(srv)
	c.MaxPerHost = 2
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := c.CheckURL(context.Background(), fmt.Sprintf("%s/%d", srv.URL, i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if peak.Load() != 2 {
		t.Errorf("%d concurrent requests to one host, want 2 (MaxPerHost)", peak.Load())
	}
}

// The host slot is held while the body is open and freed by Close.
func TestGetRetryReleasesSlotOnClose(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("x")) }))
	defer srv.Close()
	c := testClient(srv)
	c.MaxPerHost = 1
	resp, err := c.GetRetry(context.Background(), srv.URL, Untrusted)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.GetRetry(ctx, srv.URL, Untrusted); err == nil {
		t.Error("a second request got a slot while the first body was open")
	}
	resp.Body.Close()
	resp, err = c.GetRetry(context.Background(), srv.URL, Untrusted)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	resp.Body.Close()
}

// Behind an operator's proxy (HTTPS_PROXY) the connection goes to the
// proxy, which is trusted even on a private address; the proxy resolves
// the target's name.
func TestGuardAllowsConfiguredProxy(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	var connects []string
	var mu sync.Mutex
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		mu.Lock()
		connects = append(connects, r.Host)
		mu.Unlock()
		up, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			up.Close()
			return
		}
		io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
		go func() { io.Copy(up, conn); up.Close() }()
		io.Copy(conn, up)
		conn.Close()
	}))
	defer proxy.Close()
	tr := srv.Client().Transport.(*http.Transport).Clone()
	proxyURL, _ := url.Parse(proxy.URL)
	tr.Proxy = http.ProxyURL(proxyURL)
	c := &Client{HTTP: &http.Client{Transport: tr}, Backoff: func(int) time.Duration { return time.Millisecond }}
	// example.com is in the test certificate; only the proxy knows where
	// it "is".
	if err := c.CheckURL(context.Background(), "https://example.com/a.zip"); err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	if fmt.Sprint(connects) != "[example.com:443]" {
		t.Errorf("proxy CONNECTs = %v", connects)
	}
	// A literal private target is still refused before the proxy is asked.
	if err := c.CheckURL(context.Background(), "https://10.0.0.8/a.zip"); !errors.Is(err, ErrNotPublic) {
		t.Errorf("private literal through the proxy: %v, want ErrNotPublic", err)
	}
}

// GetRetry's body is the stored bytes: a server that answers with
// Content-Encoding: gzip (a misconfigured CDN) must not have them
// decoded, or update would write a sha256 no download agrees with.
func TestGetRetryKeepsTheStoredBytes(t *testing.T) {
	stored := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0x4b, 0x4c, 0x4a, 0x06, 0, 0xc2, 0x41, 0x24, 0x35, 3, 0, 0, 0} // gzip of "abc"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(stored)
	}))
	defer srv.Close()
	c := &Client{}
	resp, err := c.GetRetry(context.Background(), srv.URL+"/a.tar.gz", Trusted)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if !bytes.Equal(got, stored) {
		t.Errorf("body = %q, want the stored gzip bytes", got)
	}
}
