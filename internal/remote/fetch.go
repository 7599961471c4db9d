package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"sync/atomic"
	"time"
)

// Budgets of a Fetch. A server that never answers costs
// DefaultFetchHeaderTimeout once (it is not retried: a static file that
// takes longer to start is a dead or hostile host); a transfer slower
// than DefaultMinRate over DefaultRateWindow is stopped, so one byte every
// few seconds cannot keep an install, and the agent's lock, alive for
// ever.
const (
	DefaultFetchHeaderTimeout = 15 * time.Second
	DefaultStall              = 60 * time.Second
	DefaultMinRate            = 4 << 10 // bytes a second
	DefaultRateWindow         = 30 * time.Second
	// MaxFetch bounds one file: no agent is anywhere near it, and a
	// hostile server must not fill the disk.
	MaxFetch = 4 << 30
	// MaxFetchRedirects bounds a file's redirect hops (release storage
	// often takes two or three).
	MaxFetchRedirects = 10
)

// TempFile is what a Fetch writes to.
type TempFile interface {
	io.Writer
	Close() error
	Name() string
}

// Fetch streams one file a manifest names into a temporary file, under
// the policy of an agent's download: https only, plain http only to hosts
// AllowHTTP accepts (loopback mirrors), every redirect hop under the same
// rule (FollowMirror); the answer within HeaderTimeout, no pause longer
// than Stall, no slower than MinRate, no larger than Max; transient
// failures (5xx, 429, broken connections) retried. The zero value of
// every field is a safe default.
type Fetch struct {
	// HTTP supplies the transport (TLS roots, proxy) and a CheckRedirect
	// that runs after the mirror rule. nil: net/http's default transport.
	HTTP *http.Client
	// AllowHTTP says which plain-http URLs may be fetched (nil:
	// LoopbackOnly).
	AllowHTTP func(*url.URL) bool
	// Guard refuses connections to non-public addresses (checked at
	// connect time, after DNS), except loopback when the URL itself is a
	// loopback one (a local mirror), and anything when AllowPrivate. A
	// refusal wraps a *NotPublicError.
	Guard        bool
	AllowPrivate bool
	// Lookup replaces DNS for the guard (tests).
	Lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)

	HeaderTimeout time.Duration // DefaultFetchHeaderTimeout when 0
	Stall         time.Duration // DefaultStall when 0
	MinRate       int64         // DefaultMinRate when 0
	RateWindow    time.Duration // DefaultRateWindow when 0
	// Max bounds the file while it arrives (MaxFetch when 0 or above): a
	// small document (a runtime mirror's index) need not reach the disk
	// in GiB.
	Max int64
	// Attempts in all (default 3); Wait is the pause after a failed
	// attempt (default 1s, 2s, ...).
	Attempts int
	Wait     func(attempt int) time.Duration
	// UserAgent names the program to the server.
	UserAgent string

	// Started is called as each attempt begins; Bytes as bytes arrive,
	// with the total when known (-1 otherwise; at the end, the size).
	Started func()
	Bytes   func(got, total int64)
	// Create makes the temporary file in dir (tests inject a failing
	// disk). Default os.CreateTemp(dir, ".dl-*").
	Create func(dir string) (TempFile, error)
}

// Fetched is a file a Fetch wrote: the caller removes it.
type Fetched struct {
	Path   string
	SHA256 string // hex, computed on the way in
	Size   int64
}

// FetchError is a Fetch that failed for a reason of its own (not the
// caller's ctx): Msg says what happened, in words that follow "download
// <url>: ". Err is the cause when there is one (a *NotPublicError, a
// *RedirectError, the write's error).
type FetchError struct {
	Msg string
	Err error
	// BadURL: the URL itself was refused (not absolute, not https),
	// before any request.
	BadURL bool
	// Write: writing the file failed (a full disk); Got bytes had
	// arrived of Total (-1 when unknown).
	Write      bool
	Got, Total int64
}

func (e *FetchError) Error() string { return e.Msg }
func (e *FetchError) Unwrap() error { return e.Err }

// LoopbackOnly is the default AllowHTTP policy: plain http only to
// localhost or a loopback address.
func LoopbackOnly(u *url.URL) bool { return IsLoopbackHost(u.Hostname()) }

// Causes of a Fetch's own cancellation beyond send's budgets.
var errTooSlow = errors.New("too slow")

// ToFile fetches rawURL into a new temporary file in dir. The file is
// the bytes as the server stores them (never decoded on the way: the
// sha256 and the format check are of the file the manifest names). A
// failure is a *FetchError, or ctx's error (wrapped) when ctx ended; no
// file is left behind then.
func (f Fetch) ToFile(ctx context.Context, rawURL, dir string) (Fetched, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return Fetched{}, &FetchError{Msg: "not an absolute URL", BadURL: true}
	}
	if f.AllowHTTP == nil {
		f.AllowHTTP = LoopbackOnly
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && f.AllowHTTP(u):
	default:
		return Fetched{}, &FetchError{Msg: "only https URLs are accepted (plain http only from loopback mirrors)", Err: ErrNotHTTPS, BadURL: true}
	}
	client, done := f.httpClient(u)
	defer done()
	attempts := f.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	wait := f.Wait
	if wait == nil {
		wait = func(i int) time.Duration { return time.Duration(i) * time.Second }
	}
	var got Fetched
	var last error
	err = Retry{Attempts: attempts}.Do(ctx, func(i int) (bool, time.Duration, error) {
		var retry bool
		got, retry, last = f.once(ctx, client, u, dir)
		if !retry || ctx.Err() != nil || i >= attempts {
			return false, 0, last
		}
		return true, wait(i), last
	})
	if err != nil && err != last {
		return Fetched{}, fmt.Errorf("interrupted between attempts: %w", err)
	}
	return got, err
}

// httpClient is the client for one fetch whose first URL is orig: f.HTTP
// (or a default one) with the mirror's redirect rule and, when guarded, a
// transport that dials only allowed addresses. done releases the
// connections of a transport made here.
func (f Fetch) httpClient(orig *url.URL) (*http.Client, func()) {
	header := f.headerTimeout()
	var base http.Client
	if f.HTTP != nil {
		base = *f.HTTP
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	done := func() {}
	if t, ok := rt.(*http.Transport); ok && (f.Guard || f.HTTP == nil || f.HTTP.Transport == nil) {
		var c *http.Transport
		if f.Guard {
			origLoopback := LoopbackOnly(orig)
			c = GuardTransport(t, header, func(ip netip.Addr) bool {
				return f.AllowPrivate || IsPublicIP(ip) || origLoopback && ip.IsLoopback()
			}, f.Lookup)
		} else {
			c = t.Clone()
		}
		c.ResponseHeaderTimeout = header
		c.TLSHandshakeTimeout = header
		rt, done = c, c.CloseIdleConnections
	}
	return NewHTTPClient(rt, 0, FollowMirror(orig, f.AllowHTTP, MaxFetchRedirects, base.CheckRedirect)), done
}

func (f Fetch) headerTimeout() time.Duration {
	if f.HeaderTimeout > 0 {
		return f.HeaderTimeout
	}
	return DefaultFetchHeaderTimeout
}

func (f Fetch) stall() time.Duration {
	if f.Stall > 0 {
		return f.Stall
	}
	return DefaultStall
}

// maxBytes is Max, within MaxFetch.
func (f Fetch) maxBytes() int64 {
	if f.Max <= 0 || f.Max > MaxFetch {
		return MaxFetch
	}
	return f.Max
}

func fetchErr(retry bool, format string, args ...any) (Fetched, bool, error) {
	err := fmt.Errorf(format, args...)
	return Fetched{}, retry, &FetchError{Msg: err.Error(), Err: errors.Unwrap(err)}
}

// once makes one attempt. retry says whether another attempt may help.
func (f Fetch) once(ctx context.Context, client *http.Client, u *url.URL, dir string) (Fetched, bool, error) {
	header, stall := f.headerTimeout(), f.stall()
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	h := http.Header{}
	ua := f.UserAgent
	if ua == "" {
		ua = "acp-registry-go installer"
	}
	h.Set("User-Agent", ua)
	h.Set("Accept-Encoding", "identity")
	var got atomic.Int64
	total := int64(-1)
	progress := func(n int64) {
		got.Store(n)
		if f.Bytes != nil {
			f.Bytes(n, total)
		}
	}
	if f.Started != nil {
		f.Started()
	}
	resp, err := send(actx, client, http.MethodGet, u, h, budget{header: header, idle: stall, progress: progress})
	if err != nil {
		var re *RedirectError
		var np *NotPublicError
		switch {
		case ctx.Err() != nil:
			return Fetched{}, false, ctx.Err()
		case timedOut(ctx, err):
			return fetchErr(false, "no answer within %s", header)
		case errors.As(err, &re):
			return fetchErr(false, "%w", re)
		case errors.As(err, &np):
			return fetchErr(false, "refused: %w", np)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fetchErr(true, "%w", err)
	}
	defer resp.Body.Close()
	total = resp.ContentLength
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests
		return fetchErr(retry, "unexpected status %s", resp.Status)
	}
	if limit := f.maxBytes(); resp.ContentLength > limit {
		return fetchErr(false, "the file is %d bytes, more than the %s limit", resp.ContentLength, HumanBytes(limit))
	}
	return f.receive(ctx, actx, cancel, resp, &got, dir)
}

// receive writes resp's body into a new temporary file in dir while
// hashing it, under the rate and size budgets (send's body keeps the
// stall watchdog); cancel stops the request with the cause that tripped.
func (f Fetch) receive(parent, ctx context.Context, cancel context.CancelCauseFunc, resp *http.Response, got *atomic.Int64, dir string) (Fetched, bool, error) {
	minRate, window, stall := f.MinRate, f.RateWindow, f.stall()
	if minRate <= 0 {
		minRate = DefaultMinRate
	}
	if window <= 0 {
		window = DefaultRateWindow
	}
	total := resp.ContentLength
	// The overall deadline grows with the size: the time to fetch it at
	// the minimum rate, plus room for a slow start.
	if total > 0 {
		limit := window + stall + time.Duration(total/minRate)*time.Second
		dl := time.AfterFunc(limit, func() { cancel(errTooSlow) })
		defer dl.Stop()
	}
	stopRate := watchRate(got, minRate, window, func() { cancel(errTooSlow) })
	defer stopRate()

	create := f.Create
	if create == nil {
		create = func(dir string) (TempFile, error) { return os.CreateTemp(dir, ".dl-*") }
	}
	file, err := create(dir)
	if err != nil {
		return Fetched{}, false, &FetchError{Msg: err.Error(), Err: err, Write: true, Total: total}
	}
	ok := false
	defer func() {
		if !ok {
			file.Close()
			os.Remove(file.Name())
		}
	}()
	h := sha256.New()
	w := &trackWriter{w: file}
	r := io.LimitReader(resp.Body, f.maxBytes()+1)
	start := time.Now()
	n, err := io.CopyBuffer(io.MultiWriter(w, h), r, make([]byte, copyBufferSize(total)))
	switch {
	case err != nil && w.err != nil:
		return Fetched{}, false, &FetchError{Msg: w.err.Error(), Err: w.err, Write: true, Got: n, Total: total}
	case parent.Err() != nil:
		return Fetched{}, false, parent.Err()
	case err != nil:
		return broke(context.Cause(ctx), err, n, total, stall, time.Since(start), minRate)
	case n > f.maxBytes():
		return fetchErr(false, "more than the %s limit", HumanBytes(f.maxBytes()))
	}
	if err := file.Close(); err != nil {
		return Fetched{}, false, &FetchError{Msg: err.Error(), Err: err, Write: true, Got: n, Total: total}
	}
	if total < 0 && f.Bytes != nil {
		f.Bytes(n, n) // the total is known at last
	}
	ok = true
	return Fetched{Path: file.Name(), SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}, false, nil
}

// broke words a transfer that ended before its body did (cause is the
// attempt's, after n bytes of total; send's body says a stall by
// ErrTimeout), and says whether another attempt
// may help.
func broke(cause, err error, n, total int64, stall, took time.Duration, minRate int64) (Fetched, bool, error) {
	switch {
	case cause == errTooSlow:
		return fetchErr(false, "too slow: %s in %s, below the minimum of %s/s", HumanBytes(n), took.Round(time.Second), HumanBytes(minRate))
	case errors.Is(err, ErrTimeout):
		return fetchErr(true, "stalled: nothing received for %s after %d bytes", stall, n)
	case errors.Is(err, io.ErrUnexpectedEOF) && total > 0:
		return fetchErr(true, "truncated: the server closed the connection after %d of %d bytes", n, total)
	}
	return fetchErr(true, "connection broke after %d bytes: %w", n, err)
}

// sizeWords words a size that is a round number of units ("4 GiB"), or
// bytes.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
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

// copyBufferSize is the fetch's copy buffer: 256 KiB keeps a large
// archive's copy near the disk's speed, but a small one (a script, the
// tiny archives verify installs ten at a time) would pay for zeroing it
// and for the garbage collections it causes. send's body enforces the
// announced length, so a body cannot outgrow its buffer's premise.
func copyBufferSize(contentLength int64) int {
	const large, slack = 256 << 10, 4 << 10
	if contentLength < 0 || contentLength >= large {
		return large
	}
	return int(contentLength) + slack
}
