package download

import "github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"

// Sentinel errors, for errors.Is: the installer's kinds (package kinds),
// which package installer exports under the same names.
var (
	// ErrChecksum: the downloaded bytes do not match the manifest's sha256.
	ErrChecksum = kinds.ErrChecksum
	// ErrDownload: the server answered with an error status, the transfer
	// broke off or stalled.
	ErrDownload = kinds.ErrDownload
	// ErrBadManifest: the manifest holds a value the installer cannot use
	// (a sha256 that is not 64 hex digits); found before any download.
	ErrBadManifest = kinds.ErrBadManifest
	// ErrNoSpace: the disk filled up while downloading or extracting.
	ErrNoSpace = kinds.ErrNoSpace
)

func errorf(kind error, format string, args ...any) error {
	return kinds.Errorf(kind, format, args...)
}
