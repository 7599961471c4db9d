package installer

import "github.com/agentclientprotocol/acp-registry-go/internal/dirs"

// Dirs are where acp keeps its state: Data is an Installer's Root, Cache
// is registry/source's CacheDir. A Go editor that uses DefaultDirs shares
// its installs and cached registry with the acp command.
type Dirs struct {
	Data  string // installs (agents/<id>/<version>/) and locks
	Cache string // the registry's cached copy, npm's and uv's caches
}

// DefaultDirs applies acp's policy to this process: ACP_HOME when set,
// else the platform's data and cache folders (see docs/cli.md).
func DefaultDirs() (Dirs, error) {
	d, err := dirs.Default()
	return Dirs(d), err
}
