package store

import "github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"

// Sentinel errors, for errors.Is: the installer's kinds (package kinds),
// which package installer exports under the same names.
var (
	// ErrNotInstalled: nothing (or not the version asked for) is installed.
	ErrNotInstalled = kinds.ErrNotInstalled
	// ErrLocked: another process held the agent's lock for longer than
	// Store.LockWait.
	ErrLocked = kinds.ErrLocked
	// ErrInUse: a version was kept (gc, uninstall) or could not be deleted
	// because a running process uses its files.
	ErrInUse = kinds.ErrInUse
)

type kindError = kinds.Error

func errorf(kind error, format string, args ...any) error {
	return kinds.Errorf(kind, format, args...)
}
