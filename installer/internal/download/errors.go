package download

import (
	"context"
	"errors"
	"fmt"
)

// Sentinel errors, for errors.Is; package installer re-exports them as
// the same values.
var (
	// ErrChecksum: the downloaded bytes do not match the manifest's sha256.
	ErrChecksum = errors.New("sha256 mismatch")
	// ErrDownload: the server answered with an error status, the transfer
	// broke off or stalled.
	ErrDownload = errors.New("download failed")
	// ErrBadManifest: the manifest holds a value the installer cannot use
	// (a sha256 that is not 64 hex digits); found before any download.
	ErrBadManifest = errors.New("invalid manifest value")
	// ErrNoSpace: the disk filled up while downloading or extracting.
	ErrNoSpace = errors.New("no space left on device")
)

// kindError carries a complete message and a sentinel kind: Error() is the
// message alone, so the chain reads naturally, while errors.Is still sees
// the kind. Each room of the installer has its own, for its own sentinels.
type kindError struct {
	msg  string
	kind error
	err  error // optional cause
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() []error {
	if e.err != nil {
		return []error{e.kind, e.err}
	}
	return []error{e.kind}
}

func errorf(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &kindError{msg: err.Error(), kind: kind, err: errors.Unwrap(err)}
}

// Stopped is ctx's error worded by its cause ("interrupt signal
// received" rather than "context canceled" after Ctrl-C), still matching
// context.Canceled and context.DeadlineExceeded with errors.Is. Every
// room of the installer words an interruption with it.
func Stopped(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return &kindError{msg: cause.Error(), kind: err, err: cause}
	}
	return err
}

// HumanBytes words a size that is a round number of units ("4 GiB"), or
// bytes; the installer's messages about limits and rates use it.
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
