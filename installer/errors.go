package installer

import (
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
)

// Sentinel errors, for errors.Is. The errors returned wrap them with a
// message that names the agent, the file or the entry, and the fix.
var (
	// ErrChecksum: the downloaded bytes do not match the manifest's sha256.
	ErrChecksum = kinds.ErrChecksum
	// ErrUnsafeArchive: an entry would land outside the destination, is a
	// device file or a link pointing out, or the archive is too large.
	ErrUnsafeArchive = kinds.ErrUnsafeArchive
	// ErrUnsupportedArchive: the download is an archive format the registry
	// does not accept (7z, rar, xz, zstd, ...).
	ErrUnsupportedArchive = kinds.ErrUnsupportedArchive
	// ErrCmdMissing: the target's cmd (or the package's executable) is not
	// in what was installed.
	ErrCmdMissing = kinds.ErrCmdMissing
	// ErrNoDistribution: the agent has no distribution that fits this
	// platform or the one asked for.
	ErrNoDistribution = kinds.ErrNoDistribution
	// ErrRunnerMissing: the distribution needs a program (node/npm, uv)
	// that is not installed here.
	ErrRunnerMissing = kinds.ErrRunnerMissing
	// ErrNotInstalled: nothing (or not the version asked for) is installed.
	ErrNotInstalled = kinds.ErrNotInstalled
	// ErrVersionMismatch: Request.Version differs from what the registry
	// offers (the registry holds one version per agent and channel).
	ErrVersionMismatch = kinds.ErrVersionMismatch
	// ErrDownload: the server answered with an error status, the transfer
	// broke off or stalled.
	ErrDownload = kinds.ErrDownload
)

// kindError is the installer's error with a kind (see package kinds).
type kindError = kinds.Error

func errorf(kind error, format string, args ...any) error {
	return kinds.Errorf(kind, format, args...)
}

// Sentinels added for hostile downloads and shared state (appended: other
// areas add theirs below too).
var (
	// ErrBadManifest: the manifest holds a value the installer cannot use
	// (a sha256 that is not 64 hex digits); found before any download.
	ErrBadManifest = kinds.ErrBadManifest
	// ErrWrongContent: the download is not what the manifest names (an
	// HTML error page for a .tar.gz, text for an executable).
	ErrWrongContent = kinds.ErrWrongContent
	// ErrNoSpace: the disk filled up while downloading or extracting.
	ErrNoSpace = kinds.ErrNoSpace
	// ErrLocked: another process held the agent's lock for longer than
	// Installer.LockWait.
	ErrLocked = kinds.ErrLocked
	// ErrInUse: a version was kept (gc, uninstall) or could not be deleted
	// because a running process uses its files.
	ErrInUse = kinds.ErrInUse
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
	ErrInstallFailed = kinds.ErrInstallFailed
)

// Sentinels added with npm's own refusals (issue 26).
var (
	// ErrNpmPolicy: npm refused the install by its own settings
	// (min-release-age, before, engine-strict) or its platform check
	// (EBADPLATFORM); the message names the setting. Never remembered:
	// the user changes the setting and tries again.
	ErrNpmPolicy = kinds.ErrNpmPolicy
)
