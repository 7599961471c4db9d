//go:build !windows

package installer

import (
	"os"
	"syscall"
)

// openRegular opens path for reading without following a final symlink
// and without blocking (O_NONBLOCK: opening a FIFO for reading waits for a
// writer), then checks with fstat that it is a regular file.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, notRegular(path, fi)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, fi)
	}
	return f, nil
}
