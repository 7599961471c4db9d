//go:build !unix

package store

import "io/fs"

// fileID is a file's identity; Windows gives it only to an open file, so
// each name of a hard-linked file counts there.
type fileID struct{ dev, ino uint64 }

func fileIdentity(fs.FileInfo) (fileID, uint64, bool) { return fileID{}, 0, false }
