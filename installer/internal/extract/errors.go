package extract

import (
	"errors"
	"fmt"
)

// Sentinel errors, for errors.Is; package installer re-exports them as
// the same values.
var (
	// ErrUnsafeArchive: an entry would land outside the destination, is a
	// device file or a link pointing out, or the archive is too large.
	ErrUnsafeArchive = errors.New("unsafe archive")
	// ErrUnsupportedArchive: the download is an archive format the registry
	// does not accept (7z, rar, xz, zstd, ...).
	ErrUnsupportedArchive = errors.New("unsupported archive format")
	// ErrWrongContent: the download is not what the manifest names (an
	// HTML error page for a .tar.gz, text for an executable).
	ErrWrongContent = errors.New("download is not what the manifest names")
)

// kindError carries a complete message and a sentinel kind: Error() is the
// message alone, so the chain reads naturally, while errors.Is still sees
// the kind. An error of this type is already a sentence naming the entry.
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
