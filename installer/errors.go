package installer

import (
	"errors"
	"fmt"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/download"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/extract"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/store"
)

// Sentinel errors, for errors.Is. The errors returned wrap them with a
// message that names the agent, the file or the entry, and the fix.
var (
	// ErrChecksum: the downloaded bytes do not match the manifest's sha256.
	ErrChecksum = download.ErrChecksum
	// ErrUnsafeArchive: an entry would land outside the destination, is a
	// device file or a link pointing out, or the archive is too large.
	ErrUnsafeArchive = extract.ErrUnsafeArchive
	// ErrUnsupportedArchive: the download is an archive format the registry
	// does not accept (7z, rar, xz, zstd, ...).
	ErrUnsupportedArchive = extract.ErrUnsupportedArchive
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
	ErrNotInstalled = store.ErrNotInstalled
	// ErrVersionMismatch: Request.Version differs from what the registry
	// offers (the registry holds one version per agent and channel).
	ErrVersionMismatch = errors.New("version not available")
	// ErrDownload: the server answered with an error status, the transfer
	// broke off or stalled.
	ErrDownload = download.ErrDownload
)

// kindError carries a complete message and a sentinel kind: Error() is the
// message alone, so the chain reads naturally, while errors.Is still sees
// the kind.
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

// stopped is download.Stopped under the name runtime.go and runner.go
// call it by (they move to internal/runtimes on their own).
var stopped = download.Stopped

// Sentinels added for hostile downloads and shared state (appended: other
// areas add theirs below too).
var (
	// ErrBadManifest: the manifest holds a value the installer cannot use
	// (a sha256 that is not 64 hex digits); found before any download.
	ErrBadManifest = download.ErrBadManifest
	// ErrWrongContent: the download is not what the manifest names (an
	// HTML error page for a .tar.gz, text for an executable).
	ErrWrongContent = extract.ErrWrongContent
	// ErrNoSpace: the disk filled up while downloading or extracting.
	ErrNoSpace = download.ErrNoSpace
	// ErrLocked: another process held the agent's lock for longer than
	// Installer.LockWait.
	ErrLocked = store.ErrLocked
	// ErrInUse: a version was kept (gc, uninstall) or could not be deleted
	// because a running process uses its files.
	ErrInUse = store.ErrInUse
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
