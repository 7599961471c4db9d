// Package installs defines what a Go program reads about the installs
// under an installer's data root: an install's receipt (receipt.json) with
// its launch spec and the node it runs with, a broken install, what gc and
// uninstall removed and kept, and the limits an archive is extracted under.
//
// Package installer returns these values and names them (installer.Receipt
// is Receipt); they are defined here, below the installer's internal
// rooms that read and write them, so that every field is documented in a
// public package. The package holds data only: the installer fills it in.
package installs

import (
	"time"

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
	// UV is the uv acp brought (runtimes/uv/<version>/) that made a uvx
	// install; "" when the machine's uv did. Kept while a receipt names it.
	UV string `json:"uv,omitempty"`
	// Launcher is how an npx package's executable starts: "node" (with
	// Runtime), "interpreter" (its "#!" program) or "native" (itself);
	// "" in receipts written before it existed, which are node's.
	Launcher string `json:"launcher,omitempty"`
	// Pinned marks a version installed for a pin (a project's acp.lock, an
	// explicit ID@VERSION the registry does not offer): it is never made
	// current, and Current does not fall back to it.
	Pinned bool `json:"pinned,omitempty"`
	// Integrity is the npm integrity an npx install was checked against.
	Integrity string `json:"integrity,omitempty"`
	// Dir is the install directory; filled in when read, not stored.
	Dir string `json:"-"`
}

// Runtime is the node an npx install launches with, recorded in the receipt
// with the file's size and modification time, so a resolve trusts it
// without running it again until the file changes (an upgrade of node in
// place).
type Runtime struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	// Requires is the package's engines.node ("" when it names none).
	Requires string    `json:"requires,omitempty"`
	Size     int64     `json:"size"`
	ModTime  time.Time `json:"modTime"`
	// Managed: an official build acp installed in its data folder
	// (runtimes/node/<version>/), kept while a receipt names it.
	Managed bool `json:"managed,omitempty"`
}

// BrokenInstall is an install whose receipt is there but whose files are
// not whole: its command deleted by hand, an error page saved as the
// program. Resolve and list pass over it; doctor names it.
type BrokenInstall struct {
	ID, Version string
	Problem     string // why it cannot be launched, as one sentence
}
