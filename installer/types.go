package installer

import (
	"context"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/download"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/extract"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/store"
	"github.com/agentclientprotocol/acp-registry-go/internal/progress"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// LaunchSpec says exactly how to start an installed agent (see
// store.LaunchSpec).
type LaunchSpec = store.LaunchSpec

// Receipt is receipt.json inside an install directory (see store.Receipt).
type Receipt = store.Receipt

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
	Limits extract.Limits
	// Node is the node an npx agent launches with. Default: the newest
	// node that satisfies the package's engines.node, on PATH or in the
	// usual install locations (nvm, fnm, volta, Homebrew, /usr/local).
	Node string
	// InstallTimeout stops an npm or uv install that has not finished
	// (its whole process group is killed). Default 10 minutes.
	InstallTimeout time.Duration
	// Offline fetches nothing: binaries are not downloaded, npm and uv run
	// with their own --offline (installing only from their caches).
	Offline bool
	// CacheDir is acp's cache directory: npm's cache (npm/), uv's (uv/)
	// and the memory of failed installs (failed/) live there. "": npm and
	// uv use their own defaults and failures are not remembered.
	CacheDir string
	// FailureMemory is how long a failed install is reported again at
	// once instead of retried (Request.Force retries). Default 5 minutes.
	FailureMemory time.Duration

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
	// Force makes gc and uninstall remove versions a running process
	// uses, and lets a forced reinstall (Request.Force) replace the files
	// of a version a running agent uses, which Install otherwise refuses
	// with ErrInUse. A stronger switch than Request.Force: a CLI should
	// not set it from `install --force` alone.
	Force bool
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
	nodeMu       sync.Mutex
	nodeCache    map[string]nodeProbe // node path -> version, by file stamp

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
	// error wraps ErrInUse, unless Installer.Force.
	Force bool
	// Version, when set, must equal the version the registry offers.
	Version string
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

// lookPath finds a runner. Without an injected LookPath, node and npm are
// also looked for where version managers and installers put them, since a
// desktop editor's PATH often has neither.
func (in *Installer) lookPath(name string) (string, error) {
	if name == "node" && in.Node != "" {
		return in.Node, nil
	}
	p, err := in.pathLookup(name)
	if err == nil || in.LookPath != nil {
		return p, err
	}
	switch name {
	case "node":
		if found, _ := in.nodes(context.Background()); len(found) > 0 {
			return found[0].path, nil
		}
	case "npm":
		if np, nerr := in.npmNear(context.Background()); nerr == nil {
			return np, nil
		}
	}
	return p, err
}

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
