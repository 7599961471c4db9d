// Package atomicfile replaces a file whole: a temporary file beside it,
// renamed over it, so that a reader (another acp, an editor, a web server
// serving the matrix) sees the old bytes or the new, never half of them.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data, with mode perm. The folder must exist.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // nothing left once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ModeOf is the mode of the file at path, or def when there is none: a
// file edited for the user keeps the mode the user gave it.
func ModeOf(path string, def os.FileMode) os.FileMode {
	if st, err := os.Stat(path); err == nil {
		return st.Mode().Perm()
	}
	return def
}
