package installer

import (
	"context"
	"errors"

	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
)

// FetchOptions bound one Fetch.
type FetchOptions struct {
	// Max is the largest file accepted, in bytes (required): a bigger one
	// is refused before or while it arrives.
	Max int64
	// Attempts per URL; default 1 (a cosmetic file is not worth a wait).
	Attempts int
}

// Fetch downloads a small file a manifest names (an icon) into a new
// temporary file in dir under the installer's download policy (https,
// plain http only to loopback mirrors, the public-address guard unless
// AllowPrivateURLs, header and stall budgets) and returns its path, which
// the caller removes or renames. Nothing is reported as progress.
func (in *Installer) Fetch(ctx context.Context, rawURL, dir string, o FetchOptions) (string, error) {
	if in.Offline {
		return "", errors.New("offline: nothing is fetched")
	}
	if o.Max <= 0 {
		return "", errors.New("installer.Fetch: FetchOptions.Max is required")
	}
	d := in.downloader("")
	d.Report = progress.Discard
	d.Max = o.Max
	d.Attempts = max(o.Attempts, 1)
	path, _, err := d.Get(ctx, rawURL, dir, "")
	return path, err
}
