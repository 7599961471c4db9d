//go:build !unix

package registry

import "os"

// openRegular opens path for reading when it is a regular file. Windows
// has no FIFOs at file paths (named pipes live under \\.\pipe\), but a
// folder is refused the same way as elsewhere, and with refuseLink a link.
func openRegular(path string, link finalLink) (*os.File, error) {
	if link == refuseLink {
		fi, err := os.Lstat(path)
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return checkRegular(f, path)
}
