package registry

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ReadRegular reads at most limit bytes of path when it is a regular file
// (a final symbolic link is followed). Anything else is a *NotRegularError,
// found without blocking: opening a FIFO for reading waits for a writer, so
// a FIFO planted at a cache or state path would hang every command, and the
// editor that started it. A larger file is a *TooLargeError.
func ReadRegular(path string, limit int64) ([]byte, error) {
	return readRegular(path, limit, followLink)
}

// ReadRegularNoFollow is ReadRegular for files only the program itself
// writes (receipts, markers): a final symbolic link is refused too.
func ReadRegularNoFollow(path string, limit int64) ([]byte, error) {
	return readRegular(path, limit, refuseLink)
}

// finalLink is what opening a path does with a final symbolic link.
type finalLink int

const (
	followLink finalLink = iota
	refuseLink
)

func readRegular(path string, limit int64, link finalLink) ([]byte, error) {
	f, err := openRegular(path, link)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, path, limit)
}

// checkRegular returns f when fstat says it is a regular file, else closes
// it: the check that counts is on what was opened, not on the path.
func checkRegular(f *os.File, path string) (*os.File, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return f, nil
}

// readAtMost reads f (opened from path) up to limit bytes; one byte more
// tells a file that is too large.
func readAtMost(f *os.File, path string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, nil
}

// NotRegularError is returned by ReadRegular for a path that holds
// something other than a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is a %s, not a regular file: remove it", e.Path, FileKind(e.Mode))
}

// FileKind names what a file that is not a regular file is, for messages.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeIrregular != 0:
		return "non-regular file"
	}
	return "special file (" + m.Type().String() + ")"
}
