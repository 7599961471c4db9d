package installer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// MaxDownload bounds one download: no agent is anywhere near it, and a
// hostile server must not fill the disk.
const MaxDownload = 4 << 30

const defaultStall = 60 * time.Second

// downloader holds what Download needs beyond its arguments, so Installer
// can inject policy while the exported function keeps safe defaults.
type downloader struct {
	client    *http.Client
	allowHTTP func(*url.URL) bool
	stall     time.Duration
	attempts  int
	wait      func(attempt int) time.Duration
	progress  io.Writer
	label     string
}

// Download fetches rawURL into a new temporary file in dir while hashing it,
// and returns the file's path and sha256 (hex). When wantSHA256 is set and
// differs, the file is removed and the error wraps ErrChecksum. Only https
// is accepted, and http to loopback hosts. Transient failures (5xx, 429,
// connection errors) are retried twice. progress, when non-nil, receives a
// progress bar. The caller removes the file.
func Download(ctx context.Context, client *http.Client, rawURL, dir, wantSHA256 string, progress io.Writer) (path, sha256hex string, err error) {
	d := downloader{client: client, progress: progress}
	return d.get(ctx, rawURL, dir, wantSHA256)
}

// LoopbackOnly is the default AllowHTTP policy: plain http only to
// localhost or a loopback address.
func LoopbackOnly(u *url.URL) bool {
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (d downloader) get(ctx context.Context, rawURL, dir, want string) (string, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("download %s: not an absolute URL", rawURL)
	}
	allow := d.allowHTTP
	if allow == nil {
		allow = LoopbackOnly
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allow(u):
	default:
		return "", "", fmt.Errorf("download %s: only https URLs are accepted (plain http only from loopback mirrors)", rawURL)
	}
	if d.client == nil {
		c := defaultClient()
		defer c.CloseIdleConnections()
		d.client = c
	}
	want = strings.ToLower(strings.TrimSpace(want))
	attempts := d.attempts
	if attempts <= 0 {
		attempts = 3
	}
	wait := d.wait
	if wait == nil {
		wait = func(i int) time.Duration { return time.Duration(i) * time.Second }
	}
	var lastErr error
	for i := 1; i <= attempts; i++ {
		path, sum, retry, err := d.once(ctx, u, dir)
		if err == nil {
			if want != "" && sum != want {
				os.Remove(path)
				return "", "", errorf(ErrChecksum, "download %s: sha256 mismatch: the file has %s but the manifest says %s (the archive changed upstream, or the download was tampered with)", rawURL, sum, want)
			}
			return path, sum, nil
		}
		lastErr = err
		if !retry || ctx.Err() != nil || i == attempts {
			break
		}
		select {
		case <-ctx.Done():
			return "", "", fmt.Errorf("download %s: %w", rawURL, ctx.Err())
		case <-time.After(wait(i)):
		}
	}
	return "", "", lastErr
}

// once makes one attempt. retry says whether another attempt may help.
func (d downloader) once(ctx context.Context, u *url.URL, dir string) (path, sum string, retry bool, err error) {
	client := d.client
	stall := d.stall
	if stall <= 0 {
		stall = defaultStall
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", "", false, fmt.Errorf("download %s: %w", u, err)
	}
	req.Header.Set("User-Agent", "acp-registry-go installer")
	// The watchdog cancels the request when no byte arrives for stall; a
	// total timeout would kill slow but healthy large downloads.
	var stalled atomic.Bool
	timer := time.AfterFunc(stall, func() { stalled.Store(true); cancel() })
	defer timer.Stop()
	resp, err := client.Do(req)
	if err != nil {
		if stalled.Load() {
			return "", "", true, errorf(ErrDownload, "download %s: no response for %s", u, stall)
		}
		if ctx.Err() != nil && !stalled.Load() {
			return "", "", false, fmt.Errorf("download %s: %w", u, context.Cause(ctx))
		}
		return "", "", true, errorf(ErrDownload, "download %s: %w", u, unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests
		return "", "", retry, errorf(ErrDownload, "download %s: unexpected status %s", u, resp.Status)
	}
	if resp.ContentLength > MaxDownload {
		return "", "", false, errorf(ErrDownload, "download %s: the file is %d bytes, more than the %d GiB limit", u, resp.ContentLength, MaxDownload>>30)
	}
	f, err := os.CreateTemp(dir, ".dl-*")
	if err != nil {
		return "", "", false, fmt.Errorf("download %s: %w", u, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := sha256.New()
	var w io.Writer = io.MultiWriter(f, h)
	if d.progress != nil {
		bar := progressbar.NewOptions64(resp.ContentLength,
			progressbar.OptionSetWriter(d.progress),
			progressbar.OptionSetDescription(d.label),
			progressbar.OptionShowBytes(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(30),
		)
		defer bar.Finish()
		w = io.MultiWriter(w, bar)
	}
	body := &stallReader{r: io.LimitReader(resp.Body, MaxDownload+1), timer: timer, stall: stall}
	n, err := io.CopyBuffer(w, body, make([]byte, 256<<10))
	if err != nil {
		if stalled.Load() {
			return "", "", true, errorf(ErrDownload, "download %s: stalled: nothing received for %s after %d bytes", u, stall, n)
		}
		if ctx.Err() != nil {
			return "", "", false, fmt.Errorf("download %s: %w", u, context.Cause(ctx))
		}
		if errors.Is(err, io.ErrUnexpectedEOF) && resp.ContentLength > 0 {
			return "", "", true, errorf(ErrDownload, "download %s: truncated: the server closed the connection after %d of %d bytes", u, n, resp.ContentLength)
		}
		return "", "", true, errorf(ErrDownload, "download %s: connection broke after %d bytes: %w", u, n, err)
	}
	if n > MaxDownload {
		return "", "", false, errorf(ErrDownload, "download %s: more than the %d GiB limit", u, MaxDownload>>30)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return "", "", true, errorf(ErrDownload, "download %s: truncated: got %d of %d bytes", u, n, resp.ContentLength)
	}
	if err := f.Close(); err != nil {
		return "", "", false, fmt.Errorf("download %s: write %s: %w", u, f.Name(), err)
	}
	ok = true
	return f.Name(), hex.EncodeToString(h.Sum(nil)), false, nil
}

// stallReader re-arms the stall watchdog on every read that made progress.
type stallReader struct {
	r     io.Reader
	timer *time.Timer
	stall time.Duration
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.timer.Reset(s.stall)
	}
	return n, err
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func defaultClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{
		Transport: t,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("more than 10 redirects")
			}
			// A redirect may not downgrade to plain http off loopback.
			if req.URL.Scheme != "https" && !LoopbackOnly(req.URL) {
				return fmt.Errorf("redirect to %s refused: not https", req.URL)
			}
			return nil
		},
	}
}
