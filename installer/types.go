package installer

import (
	"context"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"os/exec"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// LaunchSpec says exactly how to start an installed agent. Command is an
// absolute path; Env holds only the manifest's additions. Args and Env are
// never null in JSON.
type LaunchSpec struct {
	ID           string            `json:"id"`
	Version      string            `json:"version"`
	Distribution registry.Kind     `json:"distribution"`
	Command      string            `json:"command"`
	Args         []string          `json:"args"`
	Env          map[string]string `json:"env"`
	Cwd          string            `json:"cwd"`
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
	// Stderr receives npm/uv output and log lines. Default: discarded.
	Stderr io.Writer
	// Progress draws a progress bar on Stderr; set it only when Stderr is a
	// terminal.
	Progress bool
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
	// Force makes gc and uninstall remove versions a running process uses.
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
}

// Request asks for one agent to be installed or resolved.
type Request struct {
	Agent *registry.Manifest
	// Dist forces a distribution kind; "" chooses binary, then npx, then
	// uvx, among those this machine can run.
	Dist registry.Kind
	// Preview uses the manifest's preview block.
	Preview bool
	// Force reinstalls even when the version is installed.
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
}

// Default limits: far above any real agent (the largest are ~300 MB), far
// below what fills a disk.
const (
	DefaultMaxBytes   = 4 << 30
	DefaultMaxEntries = 100_000
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	return l
}

func (in *Installer) lookPath(name string) (string, error) {
	if in.LookPath != nil {
		return in.LookPath(name)
	}
	return exec.LookPath(name)
}

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
