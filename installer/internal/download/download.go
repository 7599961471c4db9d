package download

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/internal/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
)

// MaxDownload bounds one download: no agent is anywhere near it, and a
// hostile server must not fill the disk.
const MaxDownload = 4 << 30

// Download budgets. A server that never answers costs DefaultHeaderTimeout
// once (it is not retried: a static file that takes longer to start is a
// dead or hostile host); a transfer slower than DefaultMinRate over
// rateWindow is stopped, so one byte every few seconds cannot keep an
// install, and the agent's lock, alive for ever.
const (
	DefaultHeaderTimeout = 15 * time.Second
	DefaultMinRate       = 4 << 10 // bytes a second
	defaultStall         = 60 * time.Second
	defaultRateWindow    = 30 * time.Second
	MaxRedirects         = 10
)

// Options is the policy of a download beyond its arguments, so the
// Installer can inject it while Download keeps safe defaults. The zero
// value of every field is a safe default.
type Options struct {
	Client    *http.Client
	AllowHTTP func(*url.URL) bool
	// Guard refuses connections to non-public addresses (checked at connect
	// time, after DNS), except loopback when the manifest's URL itself is a
	// loopback one (a local mirror), and anything when AllowPrivate.
	Guard         bool
	AllowPrivate  bool
	HeaderTimeout time.Duration
	Stall         time.Duration
	MinRate       int64
	RateWindow    time.Duration
	Attempts      int
	Wait          func(attempt int) time.Duration
	Report        progress.Reporter
	Agent         string
	// Max bounds the file while it arrives (MaxDownload when 0): a small
	// document (a runtime mirror's index) need not reach the disk in GiB.
	Max int64
	// Create makes the temporary file (tests inject a failing disk).
	Create func(dir string) (TempFile, error)
	// Lookup replaces DNS for the guard (tests).
	Lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// TempFile is what a download writes to.
type TempFile interface {
	io.Writer
	Close() error
	Name() string
}

// Download fetches rawURL into a new temporary file in dir while hashing it,
// and returns the file's path and sha256 (hex). When wantSHA256 is set and
// differs, the file is removed and the error wraps ErrChecksum; a
// wantSHA256 that is not 64 hex digits is refused before any request. Only
// https is accepted, and http to loopback hosts. Transient failures (5xx,
// 429, broken connections) are retried twice. report, when non-nil,
// receives the bytes as they arrive. The caller removes the file. client's
// own address policy applies (no guard is added).
func Download(ctx context.Context, client *http.Client, rawURL, dir, wantSHA256 string, report progress.Reporter) (path, sha256hex string, err error) {
	if report == nil {
		report = progress.Discard
	}
	d := Options{Client: client, Report: report}
	return d.Get(ctx, rawURL, dir, wantSHA256)
}

// LoopbackOnly is the default AllowHTTP policy: plain http only to
// localhost or a loopback address.
func LoopbackOnly(u *url.URL) bool { return remote.IsLoopbackHost(u.Hostname()) }

// checkSHA256 refuses a malformed digest before anything is downloaded: it
// is a mistake in the manifest, not tampering.
func checkSHA256(rawURL, want string) error {
	if want == "" || kinds.ValidSHA256(strings.TrimSpace(want)) {
		return nil
	}
	return errorf(ErrBadManifest, "the manifest's sha256 for %s is %q, not 64 hex digits: fix sha256 in the manifest (sha256sum prints it)", remote.RedactURL(rawURL), want)
}

// Get is Download under the policy of d: it returns the temporary file's
// path and its sha256 (hex); the caller removes the file.
func (d Options) Get(ctx context.Context, rawURL, dir, want string) (string, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("download %s: not an absolute URL", remote.RedactURL(rawURL))
	}
	if err := checkSHA256(rawURL, want); err != nil {
		return "", "", err
	}
	allow := d.AllowHTTP
	if allow == nil {
		allow = LoopbackOnly
	}
	d.AllowHTTP = allow
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allow(u):
	default:
		return "", "", fmt.Errorf("download %s: only https URLs are accepted (plain http only from loopback mirrors)", u.Redacted())
	}
	if d.Report == nil {
		d.Report = progress.Discard
	}
	client, done := d.httpClient(u)
	defer done()
	want = strings.ToLower(strings.TrimSpace(want))
	attempts := d.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	wait := d.Wait
	if wait == nil {
		wait = func(i int) time.Duration { return time.Duration(i) * time.Second }
	}
	var path, sum string
	var last error
	err = remote.Retry{Attempts: attempts}.Do(ctx, func(i int) (bool, time.Duration, error) {
		var retry bool
		path, sum, retry, last = d.once(ctx, client, u, dir)
		if !retry || ctx.Err() != nil || i >= attempts {
			return false, 0, last
		}
		return true, wait(i), last
	})
	if err != nil && err != last {
		return "", "", fmt.Errorf("download %s: %w", u.Redacted(), kinds.Stopped(ctx)) // interrupted between attempts
	}
	if err != nil {
		return "", "", err
	}
	if want != "" {
		// The digest was computed on the way in; comparing it is instant,
		// but an editor shows the step it was promised.
		d.Report.Phase(d.Agent, progress.Verify, "sha256")
	}
	if want != "" && sum != want {
		os.Remove(path)
		return "", "", errorf(ErrChecksum, "download %s: sha256 mismatch: the file has %s but the manifest says %s (the archive changed upstream, or the download was tampered with)", u.Redacted(), sum, want)
	}
	return path, sum, nil
}

// httpClient is the client for one download whose manifest URL is orig:
// the caller's client (or a default one) with this download's redirect
// policy and, when guarded, a transport that dials only allowed addresses.
// done releases the connections of a transport made here.
func (d Options) httpClient(orig *url.URL) (*http.Client, func()) {
	header := d.headerTimeout()
	var base http.Client
	if d.Client != nil {
		base = *d.Client
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	done := func() {}
	if t, ok := rt.(*http.Transport); ok && (d.Guard || d.Client == nil || d.Client.Transport == nil) {
		var c *http.Transport
		if d.Guard {
			origLoopback := LoopbackOnly(orig)
			c = remote.GuardTransport(t, header, func(ip netip.Addr) bool {
				return d.AllowPrivate || remote.IsPublicIP(ip) || origLoopback && ip.IsLoopback()
			}, d.Lookup)
		} else {
			c = t.Clone()
		}
		c.ResponseHeaderTimeout = header
		c.TLSHandshakeTimeout = header
		rt, done = c, c.CloseIdleConnections
	}
	base.Transport = rt
	base.CheckRedirect = remote.FollowMirror(orig, d.AllowHTTP, MaxRedirects, base.CheckRedirect)
	return &base, done
}

func (d Options) headerTimeout() time.Duration {
	if d.HeaderTimeout > 0 {
		return d.HeaderTimeout
	}
	return DefaultHeaderTimeout
}

// Causes of a download's cancellation, told apart from the caller's.
var (
	errNoAnswer = errors.New("no answer")
	errStalled  = errors.New("stalled")
	errTooSlow  = errors.New("too slow")
)

// maxBytes is Max, within MaxDownload.
func (d Options) maxBytes() int64 {
	if d.Max <= 0 || d.Max > MaxDownload {
		return MaxDownload
	}
	return d.Max
}

// once makes one attempt. retry says whether another attempt may help.
func (d Options) once(ctx context.Context, client *http.Client, u *url.URL, dir string) (path, sum string, retry bool, err error) {
	shown := u.Redacted()
	header := d.headerTimeout()
	stall := d.Stall
	if stall <= 0 {
		stall = defaultStall
	}
	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", "", false, fmt.Errorf("download %s: %w", shown, err)
	}
	req.Header.Set("User-Agent", "acp-registry-go installer")
	// The bytes as stored, never decoded on the way: the sha256 and the
	// format check are of the file the manifest names.
	req.Header.Set("Accept-Encoding", "identity")
	// Until the headers arrive the budget is header; then the watchdog
	// cancels when no byte arrives for stall (a total timeout would kill
	// slow but healthy large downloads; the rate check bounds the rest).
	timer := time.AfterFunc(header, func() { cancel(errNoAnswer) })
	defer func() { timer.Stop() }() // the stall watchdog replaces it below
	d.Report.Phase(d.Agent, progress.Download, shown)
	resp, err := client.Do(req)
	if err != nil {
		if parent.Err() != nil {
			return "", "", false, fmt.Errorf("download %s: %w", shown, kinds.Stopped(parent))
		}
		if context.Cause(ctx) == errNoAnswer {
			return "", "", false, errorf(ErrDownload, "download %s: no answer within %s", shown, header)
		}
		var re *remote.RedirectError
		if errors.As(err, &re) {
			return "", "", false, errorf(ErrDownload, "download %s: %s", shown, re.Error())
		}
		var np *remote.NotPublicError
		if errors.As(err, &np) {
			return "", "", false, errorf(ErrDownload, "download %s: refused: %v; agent downloads go to public addresses only (pass --allow-private-urls for a private mirror)", shown, np)
		}
		if isNoAnswer(err) {
			return "", "", false, errorf(ErrDownload, "download %s: no answer within %s", shown, header)
		}
		return "", "", true, errorf(ErrDownload, "download %s: %w", shown, unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests
		return "", "", retry, errorf(ErrDownload, "download %s: unexpected status %s", shown, resp.Status)
	}
	if limit := d.maxBytes(); resp.ContentLength > limit {
		return "", "", false, errorf(ErrDownload, "download %s: the file is %d bytes, more than the %s limit", shown, resp.ContentLength, kinds.HumanBytes(limit))
	}
	timer.Stop()
	timer = time.AfterFunc(stall, func() { cancel(errStalled) })
	return d.receive(ctx, parent, cancel, resp, timer, stall, shown, dir)
}

// receive writes resp's body into a new temporary file in dir while
// hashing it, under the stall watchdog timer and the rate and size
// budgets; cancel stops the request with the cause that tripped.
func (d Options) receive(ctx, parent context.Context, cancel context.CancelCauseFunc, resp *http.Response, timer *time.Timer, stall time.Duration, shown, dir string) (path, sum string, retry bool, err error) {
	minRate, window := d.MinRate, d.RateWindow
	if minRate <= 0 {
		minRate = DefaultMinRate
	}
	if window <= 0 {
		window = defaultRateWindow
	}
	var got atomic.Int64
	// The overall deadline grows with the size: the time to fetch it at
	// the minimum rate, plus room for a slow start.
	if resp.ContentLength > 0 {
		limit := window + stall + time.Duration(resp.ContentLength/minRate)*time.Second
		dl := time.AfterFunc(limit, func() { cancel(errTooSlow) })
		defer dl.Stop()
	}
	stopRate := watchRate(&got, minRate, window, func() { cancel(errTooSlow) })
	defer stopRate()

	create := d.Create
	if create == nil {
		create = func(dir string) (TempFile, error) { return os.CreateTemp(dir, ".dl-*") }
	}
	f, err := create(dir)
	if err != nil {
		return "", "", false, fmt.Errorf("download %s: %w", shown, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := sha256.New()
	w := &trackWriter{w: f}
	body := &countReader{r: io.LimitReader(resp.Body, d.maxBytes()+1), got: &got, timer: timer, stall: stall,
		bytes: func(n int64) { d.Report.Bytes(d.Agent, n, resp.ContentLength) }}
	n, err := io.CopyBuffer(io.MultiWriter(w, h), body, make([]byte, copyBufferSize(resp.ContentLength)))
	if err == nil && ctx.Err() != nil {
		// A clean end under a cancelled request is a body cut short.
		err = remote.EndOfBody(ctx, n, resp.ContentLength)
	}
	if err != nil {
		switch {
		case w.err != nil:
			return "", "", false, writeFailed(shown, dir, w.err, resp.ContentLength, n)
		case parent.Err() != nil:
			return "", "", false, fmt.Errorf("download %s: %w", shown, kinds.Stopped(parent))
		}
		retry, err := broke(context.Cause(ctx), err, shown, n, resp.ContentLength, stall, time.Since(body.start()), minRate)
		return "", "", retry, err
	}
	if n > d.maxBytes() {
		return "", "", false, errorf(ErrDownload, "download %s: more than the %s limit", shown, kinds.HumanBytes(d.maxBytes()))
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return "", "", true, errorf(ErrDownload, "download %s: truncated: got %d of %d bytes", shown, n, resp.ContentLength)
	}
	if err := f.Close(); err != nil {
		return "", "", false, writeFailed(shown, dir, err, resp.ContentLength, n)
	}
	if resp.ContentLength < 0 {
		d.Report.Bytes(d.Agent, n, n) // the total is known at last
	}
	ok = true
	return f.Name(), hex.EncodeToString(h.Sum(nil)), false, nil
}

// broke words a transfer that ended before its body did (cause is the
// request's, after n bytes of total), and says whether another attempt
// may help.
func broke(cause, err error, shown string, n, total int64, stall, took time.Duration, minRate int64) (bool, error) {
	switch {
	case cause == errStalled:
		return true, errorf(ErrDownload, "download %s: stalled: nothing received for %s after %d bytes", shown, stall, n)
	case cause == errTooSlow:
		return false, errorf(ErrDownload, "download %s: too slow: %s in %s, below the minimum of %s/s", shown, kinds.HumanBytes(n), took.Round(time.Second), kinds.HumanBytes(minRate))
	case errors.Is(err, io.ErrUnexpectedEOF) && total > 0:
		return true, errorf(ErrDownload, "download %s: truncated: the server closed the connection after %d of %d bytes", shown, n, total)
	}
	return true, errorf(ErrDownload, "download %s: connection broke after %d bytes: %w", shown, n, err)
}

// writeFailed words a failed write of the download: a full disk says
// where and how much room the file needs.
func writeFailed(shown, dir string, err error, total, n int64) error {
	if kinds.IsNoSpace(err) {
		need := total
		if need <= 0 {
			need = n
		}
		return kinds.NoSpace(fmt.Sprintf("download %s", shown), dir, need, total <= 0)
	}
	return fmt.Errorf("download %s: write into %s: %w", shown, dir, err)
}

// trackWriter remembers a write error, so a full disk is not taken for a
// broken connection.
type trackWriter struct {
	w   io.Writer
	err error
}

func (t *trackWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err != nil {
		t.err = err
	}
	return n, err
}

// countReader counts what arrives, re-arms the stall watchdog on every
// read that made progress, and reports bytes.
type countReader struct {
	r     io.Reader
	got   *atomic.Int64
	timer *time.Timer
	stall time.Duration
	bytes func(int64)
	t0    time.Time
	once  sync.Once
}

func (c *countReader) start() time.Time {
	c.once.Do(func() { c.t0 = time.Now() })
	return c.t0
}

func (c *countReader) Read(p []byte) (int, error) {
	c.start()
	n, err := c.r.Read(p)
	if n > 0 {
		c.timer.Reset(c.stall)
		c.bytes(c.got.Add(int64(n)))
	}
	return n, err
}

// watchRate calls slow when fewer than minRate*window bytes arrived in a
// window. It returns the function that stops watching.
func watchRate(got *atomic.Int64, minRate int64, window time.Duration, slow func()) func() {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(window)
		defer t.Stop()
		last := int64(0)
		need := int64(float64(minRate) * window.Seconds())
		for {
			select {
			case <-done:
				return
			case <-t.C:
				n := got.Load()
				if n-last < need {
					slow()
					return
				}
				last = n
			}
		}
	}()
	return func() { close(done) }
}

// isNoAnswer reports a transport's own header timeout.
func isNoAnswer(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// copyBufferSize is the download's copy buffer: 256 KiB keeps a large
// archive's copy near the disk's speed, but a small one (a script, the
// tiny archives verify installs ten at a time) would pay for zeroing it
// and for the garbage collections it causes. The client enforces the
// announced length, so a body cannot outgrow its buffer's premise.
func copyBufferSize(contentLength int64) int {
	const large, slack = 256 << 10, 4 << 10
	if contentLength < 0 || contentLength >= large {
		return large
	}
	return int(contentLength) + slack
}
