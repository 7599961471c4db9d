//go:build unix

package store

import (
	"io/fs"
	"syscall"
)

// fileID is a file's identity: device and inode.
type fileID struct{ dev, ino uint64 }

// fileIdentity is fi's identity and how many names it has (ok false where
// the system does not say).
func fileIdentity(fi fs.FileInfo) (id fileID, names uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, 0, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, uint64(st.Nlink), true
}
