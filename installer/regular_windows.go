package installer

import "os"

// openRegular opens path for reading when it is a regular file (Windows
// has no FIFOs in the file system, but a link or a folder is refused the
// same way as elsewhere).
func openRegular(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = notRegular(path, fi)
		}
		return nil, err
	}
	return f, nil
}
