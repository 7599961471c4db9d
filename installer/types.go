package installer

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"path/filepath"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/installs"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/download"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// LaunchSpec says exactly how to start an installed agent: an absolute
// command that does not depend on PATH, its args and the manifest's env.
// Its fields are documented in package installs.
type LaunchSpec = installs.LaunchSpec

// Receipt is receipt.json inside an install directory: what was installed,
// from where, and how to launch it (Launch). Its fields are documented in
// package installs.
type Receipt = installs.Receipt

// Installer installs agents under Root. The zero value of every field but
// Root has a sensible default.
type Installer struct {
	// Root is the data root: installs go to Root/agents/<id>/<version>/.
	Root string
	// HTTP downloads archives. Default: a client with header timeouts and
	// no overall timeout (large archives), see StallTimeout.
	HTTP *http.Client
	// Platform picks the binary target. Default: platform.Current() (which
	// honours ACP_PLATFORM).
	Platform registry.Platform
	// Stderr receives warnings when Progress is nil. npm's and uv's own
	// output never goes here: it is kept, and shown in the error when they
	// fail. Default: discarded.
	Stderr io.Writer
	// Progress receives phases, download bytes and warnings (see package
	// progress). Default: warnings go to Stderr as "warning: ..." lines,
	// nothing else is shown.
	Progress progress.Reporter
	// LookPath finds runners (node, npm, uv). Default exec.LookPath.
	LookPath func(string) (string, error)
	// Now stamps receipts. Default time.Now.
	Now func() time.Time
	// AllowHTTP says which plain-http URLs may be downloaded. Default: only
	// loopback hosts (local mirrors and tests).
	AllowHTTP func(u *url.URL) bool
	// StallTimeout aborts a download that receives nothing for this long.
	// Default 60 s.
	StallTimeout time.Duration
	// NPM is the npm program. Default: LookPath("npm").
	NPM string
	// NPMArgs are added to every npm install (e.g. "--registry", URL).
	NPMArgs []string
	// ToolEnv, when not nil, is the whole environment of npm and uv. They
	// run the package's own code (npm lifecycle scripts, Python build
	// backends), so a sandboxed install (acp-registry verify) passes a
	// sandbox environment here. nil: this process's environment, as npx
	// and uvx would have.
	ToolEnv []string
	// UV is the uv program. Default: LookPath("uv").
	UV string
	// UVArgs are added to every uv tool install (e.g. "--index-url", URL).
	UVArgs []string
	// Limits bound archive extraction. Zero fields take the defaults.
	Limits Limits
	// Node is the node an npx agent launches with. Default: the newest
	// node that satisfies the package's engines.node, on PATH or in the
	// usual install locations (nvm, fnm, volta, Homebrew, /usr/local).
	Node string
	// ManageRuntimes lets the installer bring runtimes of its own: when no
	// node satisfies a package's engines.node, or there is no node or npm
	// at all, an official Node.js build from NodeMirror is installed into
	// Root/runtimes/node/<version>/ (checked against the release's
	// SHASUMS256.txt), shared by every agent and kept while a receipt
	// names it; with Offline only those already there are used. Off by
	// default for programs that embed the installer; acp turns it on.
	ManageRuntimes bool
	// NodeMirror is a base URL in nodejs.org's /dist layout (index.json,
	// vX.Y.Z/SHASUMS256.txt, vX.Y.Z/node-vX.Y.Z-<os>-<arch>.tar.gz|.zip).
	// Default runtimes.DefaultNodeMirror.
	NodeMirror string
	// UVMirror is a base URL in uv's release layout
	// (<version>/uv-<target>.tar.gz|.zip with a .sha256 beside each).
	// Default runtimes.DefaultUVMirror.
	UVMirror string
	// InstallTimeout stops an npm or uv install that has not finished
	// (its whole process group is killed). Default 10 minutes.
	InstallTimeout time.Duration
	// Debug, when set, receives what the installer runs, fetches and
	// decides, one sentence a call (acp --verbose).
	Debug func(msg string)
	// Offline fetches nothing: binaries are not downloaded, npm and uv run
	// with their own --offline (installing only from their caches).
	Offline bool
	// CacheDir is acp's cache directory: npm's cache (npm/), uv's (uv/)
	// and the memory of failed installs (failed/) live there. "": npm and
	// uv use their own defaults and failures are not remembered.
	CacheDir string
	// FailureMemory is how long a failed install is reported again at
	// once instead of retried (Request.Force retries). Default 5 minutes.
	// Only while what it depended on is unchanged: see Settings.
	FailureMemory time.Duration
	// Settings names the caller's own settings that shape an install
	// beyond these fields (acp: its config file's path, size and time).
	// A remembered failure is forgotten when they change, as when a
	// mirror is set or a node appears on PATH.
	Settings string

	// retryWait replaces the pause between download attempts (tests).
	retryWait func(attempt int) time.Duration

	// AllowPrivateURLs lets downloads reach private, link-local and other
	// non-public addresses (--allow-private-urls; a private mirror). Set it
	// too when the registry itself was loaded from a loopback URL. Without
	// it a download may reach loopback only when its own URL is loopback.
	AllowPrivateURLs bool
	// HeaderTimeout bounds connecting and waiting for the response headers
	// of one download (default DefaultHeaderTimeout); a server that does not
	// answer in time is not retried.
	HeaderTimeout time.Duration
	// MinRate is the slowest transfer a download may keep up, in bytes a
	// second over 30 s (default DefaultMinRate).
	MinRate int64
	// LockWait bounds the wait for another process's lock on an agent
	// (0: wait until ctx ends). After a second of waiting a line says so.
	// resolve and run set a bound; install waits.
	LockWait time.Duration
	// ReplaceInUse lets gc and uninstall remove versions a running
	// process uses, and a forced reinstall (Request.Force) replace the
	// files of a version a running agent uses, which Install otherwise
	// refuses with ErrInUse. Request.Force only asks for a reinstall; this
	// allows breaking what runs: a CLI should not set it from
	// `install --force` alone (acp sets it from gc's and uninstall's
	// --force).
	ReplaceInUse bool
	// RecentUse is how long a version resolved (MarkUsed) counts as in use
	// where the OS cannot tell which files running processes use (all but
	// Linux). Default 3 days.
	RecentUse time.Duration

	// Test seams: the temporary file of a download, DNS for the address
	// guard, the rate window, the process scan.
	createTemp func(dir string) (download.TempFile, error)
	lookup     func(ctx context.Context, network, host string) ([]netip.Addr, error)
	rateWindow time.Duration
	// osCannotTell makes gc behave as where running processes' files are
	// unknown (all but Linux).
	osCannotTell bool
	nodeCache    runtimes.NodeCache // node path -> version, by file stamp
	// nodeSearch replaces the usual node locations (tests: a machine
	// whose node is out of reach).
	nodeSearch []string

	// osRefusesInUseDelete makes uninstall behave as on Windows, which
	// refuses to delete a running program's files.
	osRefusesInUseDelete bool
}

// Request asks for one agent to be installed or resolved.
type Request struct {
	Agent *registry.Manifest
	// Dist forces a distribution kind; "" chooses binary, then npx, then
	// uvx, among those this machine can run.
	Dist registry.Kind
	// Preview uses the manifest's preview block.
	Preview bool
	// Force reinstalls even when the version is installed, and retries a
	// remembered failure. A version a running agent uses (acp run's Hold,
	// or a process found through /proc on Linux) is not replaced: the
	// error wraps ErrInUse, unless Installer.ReplaceInUse.
	Force bool
	// Version, when set, must equal the version the registry offers.
	Version string
	// Integrity, for an npx agent, is the npm integrity ("sha512-…", the
	// packument's dist.integrity or a project's acp.lock) the installed
	// package must have, as npm recorded it in its lockfile: other bytes
	// install nothing (ErrChecksum).
	Integrity string
	// Pinned installs the version for a pin (a project's lock, a version
	// the registry does not offer): beside the current version, which it
	// does not replace (see Receipt.Pinned).
	Pinned bool
	// PackageOverride replaces the npm/PyPI spec given to npm or uv (a
	// local tarball path, a mirror URL); the receipt still records the
	// manifest's package. For tests and offline mirrors.
	PackageOverride string
}

// Choice is the distribution Choose picked.
type Choice struct {
	Kind    registry.Kind
	Version string
	// Target is the platform of Binary.
	Target  registry.Platform
	Binary  *registry.BinaryTarget
	Package *registry.Package
	Preview bool
}

// host is what package runtimes needs to know of this installer.
func (in *Installer) host() *runtimes.Host {
	return &runtimes.Host{
		Node: in.Node, NPM: in.NPM, UV: in.UV, NPMArgs: in.NPMArgs, UVArgs: in.UVArgs,
		LookPath: in.LookPath, ToolEnv: in.ToolEnv, Offline: in.Offline, CacheDir: in.CacheDir,
		InstallTimeout: in.installTimeout(), Reporter: in.reporter(), Cache: &in.nodeCache,
		Search: in.nodeSearch, Managed: in.managed(), Debug: in.Debug,
	}
}

// managed is how the installer brings runtimes (nil when it may not).
func (in *Installer) managed() *runtimes.Managed {
	if !in.ManageRuntimes || in.Root == "" {
		return nil
	}
	mirror := in.NodeMirror
	if mirror == "" {
		mirror = runtimes.DefaultNodeMirror
	}
	return &runtimes.Managed{
		Root:       filepath.Join(in.Root, runtimesDir),
		NodeMirror: mirror,
		UVMirror:   in.UVMirror,
		Download: func(ctx context.Context, what, url, dir, sum string, max int64) (string, error) {
			d := in.downloader(what)
			d.Max = max
			file, _, err := d.Get(ctx, url, dir, sum)
			return file, err
		},
		Extract: func(ctx context.Context, archive, dest string) error {
			return Extract(ctx, archive, dest, in.Limits)
		},
	}
}

// The variables acp reads for managed runtimes: ACP_MANAGED_RUNTIMES=0
// turns them off; the mirrors replace nodejs.org's and uv's releases.
const (
	EnvManagedRuntimes = "ACP_MANAGED_RUNTIMES"
	EnvNodeMirror      = "ACP_NODE_MIRROR"
	EnvUVMirror        = "ACP_UV_MIRROR"
)

// runtimesDir holds the runtimes acp brought (node/<version>/, uv/<version>/).
const runtimesDir = "runtimes"

// reporter is Progress, or one that writes only warnings to Stderr.
func (in *Installer) reporter() progress.Reporter {
	if in.Progress != nil {
		return in.Progress
	}
	return progress.WarningsOnly(in.stderr())
}

func (in *Installer) installTimeout() time.Duration {
	if in.InstallTimeout > 0 {
		return in.InstallTimeout
	}
	return DefaultInstallTimeout
}

// DefaultInstallTimeout bounds an npm or uv install: the largest agents
// install in a minute or two on a slow line.
const DefaultInstallTimeout = 10 * time.Minute

func (in *Installer) now() time.Time {
	if in.Now != nil {
		return in.Now()
	}
	return time.Now()
}

func (in *Installer) stderr() io.Writer {
	if in.Stderr != nil {
		return in.Stderr
	}
	return io.Discard
}

// debugf says what the installer does, when Debug is set.
func (in *Installer) debugf(format string, args ...any) {
	if in.Debug != nil {
		in.Debug(fmt.Sprintf(format, args...))
	}
}
