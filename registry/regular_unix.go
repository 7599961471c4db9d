//go:build unix

package registry

import (
	"os"
	"syscall"
)

// openRegular opens path for reading without blocking (O_NONBLOCK), then
// checks with fstat that it is a regular file. With refuseLink,
// O_NOFOLLOW refuses a final symbolic link.
func openRegular(path string, link finalLink) (*os.File, error) {
	flag := os.O_RDONLY | syscall.O_NONBLOCK
	if link == refuseLink {
		flag |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		if link == refuseLink {
			// ELOOP says only "too many links": name what is there.
			if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
				return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
			}
		}
		return nil, err
	}
	return checkRegular(f, path)
}
