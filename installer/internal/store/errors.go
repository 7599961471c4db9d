package store

import (
	"errors"
	"fmt"
)

// Sentinel errors, for errors.Is; package installer re-exports them as
// the same values.
var (
	// ErrNotInstalled: nothing (or not the version asked for) is installed.
	ErrNotInstalled = errors.New("not installed")
	// ErrLocked: another process held the agent's lock for longer than
	// Store.LockWait.
	ErrLocked = errors.New("agent is locked by another process")
	// ErrInUse: a version was kept (gc, uninstall) or could not be deleted
	// because a running process uses its files.
	ErrInUse = errors.New("install in use")
)

// kindError carries a complete message and a sentinel kind: Error() is the
// message alone, so the chain reads naturally, while errors.Is still sees
// the kind.
type kindError struct {
	msg  string
	kind error
	err  error // optional cause
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() []error {
	if e.err != nil {
		return []error{e.kind, e.err}
	}
	return []error{e.kind}
}

func errorf(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &kindError{msg: err.Error(), kind: kind, err: errors.Unwrap(err)}
}
