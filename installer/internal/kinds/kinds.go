// Package kinds is the floor the installer's rooms (download, extract,
// store, runtimes) stand on: the installer's error kinds, one set of
// sentinel values that the rooms wrap and package installer exports, and
// the few judgements more than one room makes the same way (what a file's
// first bytes are, a full disk, a stopped context, a
// sha256 as manifests write it, a Windows drive letter). A room imports
// kinds for these, never a sibling room.
package kinds

import (
	"context"
	"errors"
	"fmt"
)

// The sentinels package installer exports under the same names (see its
// errors.go for what each means).
var (
	ErrChecksum           = errors.New("sha256 mismatch")
	ErrUnsafeArchive      = errors.New("unsafe archive")
	ErrUnsupportedArchive = errors.New("unsupported archive format")
	ErrCmdMissing         = errors.New("command missing")
	ErrNoDistribution     = errors.New("no suitable distribution")
	ErrRunnerMissing      = errors.New("runner missing")
	ErrNotInstalled       = errors.New("not installed")
	ErrVersionMismatch    = errors.New("version not available")
	ErrDownload           = errors.New("download failed")
	ErrBadManifest        = errors.New("invalid manifest value")
	ErrWrongContent       = errors.New("download is not what the manifest names")
	ErrNoSpace            = errors.New("no space left on device")
	ErrLocked             = errors.New("agent is locked by another process")
	ErrInUse              = errors.New("install in use")
	ErrInstallFailed      = errors.New("install failed")
	// ErrLocalSettings marks a failure the user's own settings caused
	// (npm's policy, a proxy that does not answer): never remembered.
	ErrLocalSettings = errors.New("caused by local settings")
	// ErrNpmPolicy: npm refused the install by its own settings
	// (min-release-age, before, engine-strict, its platform check).
	ErrNpmPolicy = errors.New("refused by npm's settings")
)

// Error carries a complete message and a sentinel kind: Error() is the
// message alone, so the chain reads naturally, while errors.Is still sees
// the kind.
type Error struct {
	Msg  string
	Kind error
	Err  error // optional cause
	// Help is what to do about it, "" when nothing more is known.
	Help string
}

func (e *Error) Error() string { return e.Msg }

// Hint is what to do about the error (acp's error document shows it).
func (e *Error) Hint() string { return e.Help }

// Unwrap gives the kind and the cause to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// Errorf is an Error of kind with a formatted message; a %w in format is
// its cause.
func Errorf(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{Msg: err.Error(), Kind: kind, Err: errors.Unwrap(err)}
}

// Stopped is ctx's error worded by its cause ("interrupt signal
// received" rather than "context canceled" after Ctrl-C), still matching
// context.Canceled and context.DeadlineExceeded with errors.Is.
func Stopped(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return &Error{Msg: cause.Error(), Kind: err, Err: cause}
	}
	return err
}
