package download

import (
	"context"
	"fmt"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
)

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

// Stopped is ctx's error worded by its cause (kinds.Stopped), under the
// name the rooms call it by.
func Stopped(ctx context.Context) error { return kinds.Stopped(ctx) }

// HumanBytes words a size that is a round number of units ("4 GiB"), or
// bytes; the installer's messages about limits and rates use it.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
