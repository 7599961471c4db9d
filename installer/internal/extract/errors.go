package extract

import "github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"

// Sentinel errors, for errors.Is: the installer's kinds (package kinds),
// which package installer exports under the same names.
var (
	// ErrUnsafeArchive: an entry would land outside the destination, is a
	// device file or a link pointing out, or the archive is too large.
	ErrUnsafeArchive = kinds.ErrUnsafeArchive
	// ErrUnsupportedArchive: the download is an archive format the registry
	// does not accept (7z, rar, xz, zstd, ...).
	ErrUnsupportedArchive = kinds.ErrUnsupportedArchive
	// ErrWrongContent: the download is not what the manifest names (an
	// HTML error page for a .tar.gz, text for an executable).
	ErrWrongContent = kinds.ErrWrongContent
)

// kindError is the installer's error with a kind: already a sentence
// naming the entry.
type kindError = kinds.Error

func errorf(kind error, format string, args ...any) error {
	return kinds.Errorf(kind, format, args...)
}
