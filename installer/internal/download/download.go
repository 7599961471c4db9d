package download

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
)

// The download budgets and bounds are remote.Fetch's (see there why).
const (
	MaxDownload          = remote.MaxFetch
	DefaultHeaderTimeout = remote.DefaultFetchHeaderTimeout
	DefaultMinRate       = remote.DefaultMinRate
	MaxRedirects         = remote.MaxFetchRedirects
)

// Options is the policy of a download beyond its arguments, so the
// Installer can inject it while Download keeps safe defaults: the fetch's
// (see remote.Fetch; its Started and Bytes are set from Report), and who
// hears of it. The zero value of every field is a safe default.
type Options struct {
	remote.Fetch
	Report progress.Reporter
	Agent  string
}

// TempFile is what a download writes to.
type TempFile = remote.TempFile

// Download fetches rawURL into a new temporary file in dir while hashing it,
// and returns the file's path and sha256 (hex). When wantSHA256 is set and
// differs, the file is removed and the error wraps ErrChecksum; a
// wantSHA256 that is not 64 hex digits is refused before any request. Only
// https is accepted, and http to loopback hosts. Transient failures (5xx,
// 429, broken connections) are retried twice. report, when non-nil,
// receives the bytes as they arrive. The caller removes the file. client's
// own address policy applies (no guard is added).
func Download(ctx context.Context, client *http.Client, rawURL, dir, wantSHA256 string, report progress.Reporter) (path, sha256hex string, err error) {
	d := Options{Fetch: remote.Fetch{HTTP: client}, Report: report}
	return d.Get(ctx, rawURL, dir, wantSHA256)
}

// LoopbackOnly is the default AllowHTTP policy: plain http only to
// localhost or a loopback address.
func LoopbackOnly(u *url.URL) bool { return remote.LoopbackOnly(u) }

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
	if err := checkSHA256(rawURL, want); err != nil {
		return "", "", err
	}
	if d.Report == nil {
		d.Report = progress.Discard
	}
	shown := remote.RedactURL(rawURL)
	if u, err := url.Parse(rawURL); err == nil {
		shown = u.Redacted()
	}
	f := d.Fetch
	f.Started = func() { d.Report.Phase(d.Agent, progress.Download, shown) }
	f.Bytes = func(got, total int64) { d.Report.Bytes(d.Agent, got, total) }
	got, err := f.ToFile(ctx, rawURL, dir)
	if err != nil {
		return "", "", failed(ctx, shown, dir, err)
	}
	want = strings.ToLower(strings.TrimSpace(want))
	if want != "" {
		// The digest was computed on the way in; comparing it is instant,
		// but an editor shows the step it was promised.
		d.Report.Phase(d.Agent, progress.Verify, "sha256")
	}
	if want != "" && got.SHA256 != want {
		os.Remove(got.Path)
		return "", "", errorf(ErrChecksum, "download %s: sha256 mismatch: the file has %s but the manifest says %s (the archive changed upstream, or the download was tampered with)", shown, got.SHA256, want)
	}
	return got.Path, got.SHA256, nil
}

// failed words a failed fetch of shown into dir for the installer: the
// caller's interrupt by its cause, a full disk by where and how much, a
// refused private address with the flag that allows it, anything else
// the server or the connection did as ErrDownload.
func failed(ctx context.Context, shown, dir string, err error) error {
	var fe *remote.FetchError
	var np *remote.NotPublicError
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("download %s: %w", shown, kinds.Stopped(ctx))
	case !errors.As(err, &fe):
		return fmt.Errorf("download %s: %w", shown, err)
	case fe.BadURL:
		return fmt.Errorf("download %s: %s", shown, fe.Msg)
	case fe.Write && kinds.IsNoSpace(fe.Err):
		need := fe.Total
		if need <= 0 {
			need = fe.Got
		}
		est := kinds.Exactly
		if fe.Total <= 0 {
			est = kinds.AtLeast // the server gave no size: what came so far
		}
		return kinds.NoSpace(fmt.Sprintf("download %s", shown), dir, need, est)
	case fe.Write:
		return fmt.Errorf("download %s: write into %s: %w", shown, dir, fe.Err)
	case errors.As(err, &np):
		return errorf(ErrDownload, "download %s: %s; agent downloads go to public addresses only (pass --allow-private-urls for a private mirror)", shown, fe.Msg)
	}
	return errorf(ErrDownload, "download %s: %w", shown, fe)
}
