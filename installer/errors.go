package installer

import (
	"context"
	"errors"
	"fmt"
)

// Sentinel errors, for errors.Is. The errors returned wrap them with a
// message that names the agent, the file or the entry, and the fix.
var (
	// ErrChecksum: the downloaded bytes do not match the manifest's sha256.
	ErrChecksum = errors.New("sha256 mismatch")
	// ErrUnsafeArchive: an entry would land outside the destination, is a
	// device file or a link pointing out, or the archive is too large.
	ErrUnsafeArchive = errors.New("unsafe archive")
	// ErrUnsupportedArchive: the download is an archive format the registry
	// does not accept (7z, rar, xz, zstd, ...).
	ErrUnsupportedArchive = errors.New("unsupported archive format")
	// ErrCmdMissing: the target's cmd (or the package's executable) is not
	// in what was installed.
	ErrCmdMissing = errors.New("command missing")
	// ErrNoDistribution: the agent has no distribution that fits this
	// platform or the one asked for.
	ErrNoDistribution = errors.New("no suitable distribution")
	// ErrRunnerMissing: the distribution needs a program (node/npm, uv)
	// that is not installed here.
	ErrRunnerMissing = errors.New("runner missing")
	// ErrNotInstalled: nothing (or not the version asked for) is installed.
	ErrNotInstalled = errors.New("not installed")
	// ErrVersionMismatch: Request.Version differs from what the registry
	// offers (the registry holds one version per agent and channel).
	ErrVersionMismatch = errors.New("version not available")
	// ErrDownload: the server answered with an error status, the transfer
	// broke off or stalled.
	ErrDownload = errors.New("download failed")
)

// kindError carries a complete message and a sentinel kind: Error() is the
// message alone, so the chain reads naturally, while errors.Is still sees
// the kind.
type kindError struct {
	msg  string
	kind error
	err  error // optional cause
	hint string
}

func (e *kindError) Error() string { return e.msg }

// Hint is what to do about the error, "" when nothing more is known.
func (e *kindError) Hint() string { return e.hint }
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

// stopped is ctx's error worded by its cause ("interrupt signal
// received" rather than "context canceled" after Ctrl-C), still matching
// context.Canceled and context.DeadlineExceeded with errors.Is.
func stopped(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return &kindError{msg: cause.Error(), kind: err, err: cause}
	}
	return err
}

// Sentinels added for hostile downloads and shared state (appended: other
// areas add theirs below too).
var (
	// ErrBadManifest: the manifest holds a value the installer cannot use
	// (a sha256 that is not 64 hex digits); found before any download.
	ErrBadManifest = errors.New("invalid manifest value")
	// ErrWrongContent: the download is not what the manifest names (an
	// HTML error page for a .tar.gz, text for an executable).
	ErrWrongContent = errors.New("download is not what the manifest names")
	// ErrNoSpace: the disk filled up while downloading or extracting.
	ErrNoSpace = errors.New("no space left on device")
	// ErrLocked: another process held the agent's lock for longer than
	// Installer.LockWait.
	ErrLocked = errors.New("agent is locked by another process")
	// ErrInUse: a version was kept (gc, uninstall) or could not be deleted
	// because a running process uses its files.
	ErrInUse = errors.New("install in use")
)

// Sentinels added with PATH-independent launches, install timeouts and
// offline installs.
var (
	// ErrRuntimeMissing: no node (npx) or uv (uvx) was found, on PATH or in
	// the usual install locations; the message names the version needed
	// and where it looked. It is ErrRunnerMissing under the name of the
	// error code (runtime-missing), so either matches.
	ErrRuntimeMissing = ErrRunnerMissing
	// ErrInstallFailed: npm or uv failed, or stalled and was stopped after
	// Installer.InstallTimeout; the message holds the tool's last lines.
	// A failure for a network reason also matches ErrDownload.
	ErrInstallFailed = errors.New("install failed")
)
