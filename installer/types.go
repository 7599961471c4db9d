package installer

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/progress"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// LaunchSpec says exactly how to start an installed agent. Command is an
// absolute path that does not depend on PATH (for npx, a node; Args then
// start with the package's script); Env holds only the manifest's
// additions. Args and Env are never null in JSON. The working directory is
// the caller's choice (the editor's project).
type LaunchSpec struct {
	ID           string            `json:"id"`
	Version      string            `json:"version"`
	Distribution registry.Kind     `json:"distribution"`
	Command      string            `json:"command"`
	Args         []string          `json:"args"`
	Env          map[string]string `json:"env"`
	// Warnings are what a person should know before launching (a node
	// older than the package asks for); they were also reported on the
	// Installer's Progress.
	Warnings []string `json:"warnings,omitempty"`
}

// Receipt is receipt.json inside an install directory: what was installed,
// from where, and how to launch it.
type Receipt struct {
	ID           string            `json:"id"`
	Version      string            `json:"version"`
	Distribution registry.Kind     `json:"distribution"`
	Target       registry.Platform `json:"target,omitempty"`
	URL          string            `json:"url,omitempty"`
	Package      string            `json:"package,omitempty"`
	// SHA256 is the digest computed from the download (binary only),
	// recorded whether or not the manifest gave one.
	SHA256      string     `json:"sha256,omitempty"`
	Launch      LaunchSpec `json:"launch"`
	InstalledAt time.Time  `json:"installedAt"`
	Preview     bool       `json:"preview,omitempty"`
	// ToolDir is uv's tool environment (a name under agents/<id>/) for uvx
	// installs; removed together with the version.
	ToolDir string `json:"toolDir,omitempty"`
	// Runtime is the node an npx install launches with (nil otherwise, and
	// in receipts written before it existed).
	Runtime *Runtime `json:"runtime,omitempty"`
	// Dir is the install directory; filled in when read, not stored.
	Dir string `json:"-"`
}

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
	createTemp func(dir string) (tempFile, error)
	lookup     func(ctx context.Context, network, host string) ([]netip.Addr, error)
	rateWindow time.Duration
	// osCannotTell makes gc behave as where running processes' files are
	// unknown (all but Linux).
	osCannotTell bool
	nodeMu       sync.Mutex
	nodeCache    map[string]nodeProbe // node path -> version, by file stamp
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

// Limits bound what an archive may expand to.
type Limits struct {
	MaxBytes   int64 // total bytes of all files; default 4 GiB
	MaxEntries int   // entries of any kind; default 100,000
	// MaxRatio bounds the extracted bytes to this many times the
	// download's size, but never below RatioFloor (see budget in extract.go).
	MaxRatio   int64 // default 100
	RatioFloor int64 // default 64 MiB
}

// Default limits: far above any real agent (the largest are ~300 MB), far
// below what fills a disk.
const (
	DefaultMaxBytes   = 4 << 30
	DefaultMaxEntries = 100_000
	DefaultMaxRatio   = 100
	DefaultRatioFloor = 64 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = DefaultMaxRatio
	}
	if l.RatioFloor <= 0 {
		l.RatioFloor = DefaultRatioFloor
	}
	return l
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

// debugf says what the installer does, when Debug is set.
func (in *Installer) debugf(format string, args ...any) {
	if in.Debug != nil {
		in.Debug(fmt.Sprintf(format, args...))
	}
}
