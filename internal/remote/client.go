package remote

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the network policy (registry-rules.md, "Network checks").
const (
	DefaultTimeout       = 15 * time.Second
	DefaultMaxPerHost    = 8
	DefaultAttempts      = 3
	DefaultMaxRetryAfter = 30 * time.Second
	MaxRedirects         = 5
	DefaultNPMRegistry   = "https://registry.npmjs.org/"
	DefaultPyPIURL       = "https://pypi.org/"
	// MaxDocumentSize bounds a packument or PyPI document. Big packuments
	// (typescript, aws-sdk) are tens of MiB; 64 MiB is room, not a target.
	MaxDocumentSize = 64 << 20
)

var errNoHost = errors.New("URL has no host")

// Trust names the policy a URL is fetched under.
type Trust int

const (
	// Untrusted is a URL taken from a manifest: https only, public
	// addresses only unless AllowPrivate, checked again on every redirect
	// hop and at connect time.
	Untrusted Trust = iota
	// Trusted is a registry the operator configured (npm, PyPI, the
	// registry itself): contacted as given.
	Trusted
)

// Client makes HTTP requests under the registry's network policy. The
// zero value is ready to use; it is safe for concurrent use and must not
// be copied after first use.
//
// URLs are either untrusted (taken from a manifest: https only, public
// addresses only unless AllowPrivate, checked again on every redirect hop
// and at connect time) or trusted (the npm registry and PyPI the operator
// configured: contacted as given). Behind an operator's proxy
// (HTTPS_PROXY) the proxy is trusted and resolves names itself, so only
// literal addresses and local names are refused there.
type Client struct {
	// HTTP supplies the transport (TLS roots, proxy). nil: the default
	// transport. When its Transport is nil or an *http.Transport, a clone
	// is made whose dialer refuses non-public addresses; another
	// RoundTripper cannot be guarded at connect time, only by URL.
	HTTP *http.Client
	// AllowPrivate lets untrusted URLs reach non-public addresses (tests,
	// private mirrors). They must still be https.
	AllowPrivate bool
	// MaxPerHost bounds concurrent requests per host (default 8); a slot is
	// held until the response body is closed.
	MaxPerHost int
	// Attempts per URL (default 3), retried on network errors, 429 and 5xx.
	Attempts int
	// Backoff is the wait after a failed attempt (1-based); default 1s, 2s,
	// 4s... A Retry-After header lengthens it, up to MaxRetryAfter.
	Backoff func(attempt int) time.Duration
	// MaxRetryAfter caps how long a Retry-After header makes us wait
	// (default 30s).
	MaxRetryAfter time.Duration
	// Timeout per attempt, until the response headers arrive and then
	// between two reads of the body (a stalled download fails, a slow but
	// steady one does not). 0: HTTP.Timeout when set, else 15s.
	Timeout   time.Duration
	UserAgent string
	// NPMRegistry and PyPIURL are the package registries (trusted); the
	// defaults are the public ones.
	NPMRegistry string
	PyPIURL     string

	// lookup replaces DNS in tests of the connect-time guard.
	lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)
	// sleep replaces the wait between attempts in tests.
	sleep func(ctx context.Context, d time.Duration) error

	once     sync.Once
	open     *http.Client // trusted URLs, or untrusted with AllowPrivate
	guarded  *http.Client // untrusted URLs
	hostsMu  sync.Mutex
	hostSems map[string]chan struct{}
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	if c.HTTP != nil && c.HTTP.Timeout > 0 {
		return c.HTTP.Timeout
	}
	return DefaultTimeout
}

func (c *Client) maxPerHost() int {
	if c.MaxPerHost > 0 {
		return c.MaxPerHost
	}
	return DefaultMaxPerHost
}

func (c *Client) userAgent() string {
	if c.UserAgent != "" {
		return c.UserAgent
	}
	return "acp-registry-go"
}

func (c *Client) init() {
	c.once.Do(func() {
		var base http.RoundTripper = http.DefaultTransport
		if c.HTTP != nil && c.HTTP.Transport != nil {
			base = c.HTTP.Transport
		}
		openRT, guardedRT := base, base
		if t, ok := base.(*http.Transport); ok {
			// net/http keeps 2 idle connections per host by default; with
			// MaxPerHost requests in flight the rest would be closed and
			// every later request would pay a new TLS handshake.
			idle := max(c.maxPerHost(), t.MaxIdleConnsPerHost)
			o := t.Clone()
			o.ResponseHeaderTimeout = c.timeout()
			o.MaxIdleConnsPerHost = idle
			openRT = o
			g := guardTransport(t, c.timeout(), nil, c.lookup)
			g.ResponseHeaderTimeout = c.timeout()
			g.MaxIdleConnsPerHost = idle
			guardedRT = g
		}
		if c.AllowPrivate {
			guardedRT = openRT
		}
		c.open = NewHTTPClient(openRT, 0, c.redirectPolicy(Trusted))
		c.guarded = NewHTTPClient(guardedRT, 0, c.redirectPolicy(Untrusted))
	})
}

// HTTPClient returns a plain *http.Client with the same redirect and
// address policy, for code that streams large bodies itself (the
// installer's downloads). It does not retry or limit per host.
func (c *Client) HTTPClient(trust Trust) *http.Client {
	c.init()
	if trust == Trusted {
		return c.open
	}
	return c.guarded
}

// checkURL applies the untrusted-URL policy before any connection.
func checkURL(u *url.URL, allowPrivate bool) error {
	if allowPrivate {
		if u.Scheme != "https" {
			return ErrNotHTTPS
		}
		if u.Hostname() == "" {
			return errNoHost
		}
		return nil
	}
	return checkTarget(u)
}

// acquire takes a slot of the host's semaphore; the returned func frees
// it and may be called more than once.
func (c *Client) acquire(ctx context.Context, host string) (func(), error) {
	n := c.maxPerHost()
	host = strings.ToLower(host)
	c.hostsMu.Lock()
	if c.hostSems == nil {
		c.hostSems = map[string]chan struct{}{}
	}
	sem := c.hostSems[host]
	if sem == nil {
		sem = make(chan struct{}, n)
		c.hostSems[host] = sem
	}
	c.hostsMu.Unlock()
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() { once.Do(func() { <-sem }) }, nil
}

// attempt makes one request with h's headers under the Client's timeout
// (send) and holds a slot of the host until the body is closed.
func (c *Client) attempt(ctx context.Context, method string, u *url.URL, trust Trust, h header) (*http.Response, error) {
	c.init()
	hc := c.guarded
	if trust == Trusted {
		hc = c.open
	}
	release, err := c.acquire(ctx, u.Host)
	if err != nil {
		return nil, err
	}
	hdr := http.Header{}
	hdr.Set("User-Agent", c.userAgent())
	h.set(hdr)
	timeout := c.timeout()
	resp, err := send(ctx, hc, method, u, hdr, budget{header: timeout, idle: timeout})
	if err != nil {
		release()
		if timedOut(ctx, err) {
			return nil, ErrTimeout
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	resp.Body.(*body).release = release
	return resp, nil
}

// Causes of an attempt's cancellation by its own budget, told apart from
// the caller's.
var (
	errNoAnswer = errors.New("no answer")
	errIdle     = errors.New("no data")
)

// budget bounds one request: header is the wait for the response
// headers, idle the longest pause between two reads of the body.
type budget struct {
	header, idle time.Duration
	// progress, when set, receives the body's bytes so far.
	progress func(got int64)
}

// send is the module's one way to make an HTTP request: hc carries the
// transport and the redirect policy, h the headers. Until the headers
// arrive the budget is b.header; then the timer becomes an idle timer
// that every read which made progress re-arms (a total timeout would kill
// slow but healthy large downloads). When it fires the request is
// cancelled with cause errNoAnswer or errIdle (timedOut tells). The body
// checks its end (EndOfBody); closing it frees the request.
func send(ctx context.Context, hc *http.Client, method string, u *url.URL, h http.Header, b budget) (*http.Response, error) {
	actx, cancel := context.WithCancelCause(ctx)
	var answered atomic.Bool
	timer := time.AfterFunc(b.header, func() {
		if answered.Load() {
			cancel(errIdle)
		} else {
			cancel(errNoAnswer)
		}
	})
	req, err := http.NewRequestWithContext(actx, method, u.String(), nil)
	if err != nil {
		timer.Stop()
		cancel(nil)
		return nil, err
	}
	req.Header = h
	resp, err := hc.Do(req)
	if err == nil && context.Cause(actx) == errNoAnswer && ctx.Err() == nil {
		// A response can still arrive after the timer cancelled the
		// request (the cancel races with the read); the attempt timed out
		// all the same.
		resp.Body.Close()
		err = errNoAnswer
	}
	if err != nil {
		timer.Stop()
		cancel(nil)
		if context.Cause(actx) == errNoAnswer && ctx.Err() == nil {
			return nil, fmt.Errorf("%w: %w", errNoAnswer, err)
		}
		return nil, err
	}
	answered.Store(true)
	timer.Reset(b.idle)
	resp.Body = &body{rc: resp.Body, ctx: actx, want: resp.ContentLength, timer: timer, timeout: b.idle, progress: b.progress,
		done: func() { timer.Stop(); cancel(nil) }}
	return resp, nil
}

// timedOut reports a request's failure by its own budget (send's timer or
// the transport's own header and dial timeouts, the same budget whichever
// fires first), not by the caller's ctx.
func timedOut(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var ne net.Error
	return errors.Is(err, errNoAnswer) || errors.As(err, &ne) && ne.Timeout()
}

// body re-arms the idle timer on progress and frees the request's context
// (and the Client's host slot) on Close. Its end is checked: a body
// shorter than its Content-Length, or one whose request was cancelled,
// never ends with a clean io.EOF (net/http can report one on a chunked
// body cut short by a deadline, and update once hashed such a body into
// agent.json).
type body struct {
	rc       io.ReadCloser
	ctx      context.Context
	want     int64 // Content-Length, -1 when unknown
	got      int64
	timer    *time.Timer
	timeout  time.Duration
	progress func(int64)
	once     sync.Once
	done     func()
	release  func() // the host slot, when a Client holds one
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.got += int64(n)
	if n > 0 {
		b.timer.Reset(b.timeout)
		if b.progress != nil {
			b.progress(b.got)
		}
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		// net/http reports a body shorter than its Content-Length as a
		// bare "unexpected EOF": EndOfBody says how much came.
		if end := EndOfBody(b.ctx, b.got, b.want); end != nil {
			err = end
		}
	}
	if cause := context.Cause(b.ctx); err != nil && err != io.EOF && (cause == errIdle || cause == errNoAnswer) {
		err = fmt.Errorf("no data for %s: %w", b.timeout, ErrTimeout)
	}
	return n, err
}

// EndOfBody judges a body that reported its end after got bytes: nil when
// it is complete, an error when its request's context is done (the cause
// when there is one) or it is shorter than want (a Content-Length; -1 when
// unknown). Every download checks its end here before it hashes or keeps
// anything.
func EndOfBody(ctx context.Context, got, want int64) error {
	if ctx.Err() != nil {
		return fmt.Errorf("the download was stopped after %d bytes: %w", got, context.Cause(ctx))
	}
	if want >= 0 && got != want {
		return fmt.Errorf("the download ended after %d of %d bytes: %w", got, want, io.ErrUnexpectedEOF)
	}
	return nil
}

func (b *body) Close() error {
	err := b.rc.Close()
	b.once.Do(func() {
		b.done()
		if b.release != nil {
			b.release()
		}
	})
	return err
}

// retry runs try until ok accepts a status, a failure is permanent, or
// the attempts are used up. Only an accepted response is returned.
func (c *Client) retry(ctx context.Context, rawURL string, trust Trust, try func(*url.URL) (*http.Response, error), ok func(int) bool) (*http.Response, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, &URLError{URL: rawURL, Err: fmt.Errorf("not a valid URL: %w", err)}
	}
	if trust == Trusted {
		if u.Scheme != "https" && u.Scheme != "http" {
			return nil, &URLError{URL: rawURL, Err: fmt.Errorf("scheme %q is not http or https", u.Scheme)}
		}
	} else if err := checkURL(u, c.AllowPrivate); err != nil {
		return nil, &URLError{URL: rawURL, Err: err}
	}
	var resp *http.Response
	var last error
	tries := 0
	policy := c.policy()
	err = policy.Do(ctx, func(i int) (bool, time.Duration, error) {
		tries = i
		r, err := try(u)
		if err != nil {
			last = &URLError{URL: rawURL, Err: err, Attempts: i, Timeout: c.timeout()}
			if !retryable(ctx, err) || i >= policy.attempts() {
				return false, 0, last
			}
			return true, policy.backoff(i), last
		}
		if ok(r.StatusCode) {
			resp = r
			return false, 0, nil
		}
		status := r.StatusCode
		delay, again := policy.Delay(r, i)
		drainClose(r.Body)
		last = &URLError{URL: rawURL, Status: status, Reason: reason(r), Attempts: i}
		return again && ctx.Err() == nil, delay, last
	})
	if err != nil && err != last {
		return nil, &URLError{URL: rawURL, Err: err, Attempts: tries} // the wait was cut short
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// retryable: network trouble is worth another attempt; a refused address,
// a bad certificate, an unknown host or a redirect loop is not.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if errors.Is(err, ErrNotPublic) || errors.Is(err, ErrNotHTTPS) || errors.Is(err, ErrTooManyRedirects) || errors.Is(err, errNoHost) {
		return false
	}
	var certErr *tls.CertificateVerificationError
	var authErr x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	if errors.As(err, &certErr) || errors.As(err, &authErr) || errors.As(err, &hostErr) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return false
	}
	return true
}

// retryAfter reads Retry-After as seconds or an HTTP date; 0 when absent.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(min(s, 24*3600)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// drainClose reads a little of an unwanted body so the connection can be
// reused, but never a whole hostile one.
func drainClose(rc io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(rc, 64<<10))
	_ = rc.Close()
}

// CheckURL reports nil when an untrusted URL finally answers 200. It asks
// with HEAD and falls back to GET when the server refuses HEAD (403/405,
// e.g. presigned storage URLs signed for GET only).
func (c *Client) CheckURL(ctx context.Context, rawURL string) error {
	try := func(u *url.URL) (*http.Response, error) {
		resp, err := c.attempt(ctx, http.MethodHead, u, Untrusted, header{})
		if err == nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusMethodNotAllowed) {
			drainClose(resp.Body)
			resp, err = c.attempt(ctx, http.MethodGet, u, Untrusted, header{})
		}
		return resp, err
	}
	resp, err := c.retry(ctx, rawURL, Untrusted, try, func(s int) bool { return s == http.StatusOK })
	if err != nil {
		return err
	}
	// A GET body is not wanted: closing drops the connection rather than
	// reading a whole archive.
	resp.Body.Close()
	return nil
}

// GetRetry GETs a URL under the retry, redirect and address policy and
// returns the response when its status is 2xx; otherwise a *URLError
// (errors.Is ErrNotFound for 404/410). Trusted skips the https and
// public-address checks (operator-configured registries). The caller
// closes the body; the host slot is held until then. The body is the
// bytes as the server stores them (Accept-Encoding: identity): Go's
// transport would otherwise ask for gzip and undo a Content-Encoding: gzip
// reply, so a hash of it (update's sha256) would not be a download's.
func (c *Client) GetRetry(ctx context.Context, rawURL string, trust Trust) (*http.Response, error) {
	return c.getAccept(ctx, rawURL, trust, "", "identity")
}

func (c *Client) getAccept(ctx context.Context, rawURL string, trust Trust, accept, encoding string) (*http.Response, error) {
	try := func(u *url.URL) (*http.Response, error) {
		return c.attempt(ctx, http.MethodGet, u, trust, header{accept: accept, encoding: encoding})
	}
	return c.retry(ctx, rawURL, trust, try, func(s int) bool { return s >= 200 && s < 300 })
}
