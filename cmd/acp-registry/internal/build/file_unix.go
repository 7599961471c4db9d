//go:build unix

package build

import (
	"fmt"
	"io/fs"
	"syscall"
)

// writeFile creates path, which must not exist, holding data. It uses
// the system calls directly: os.OpenFile also registers every file with
// the network poller, which regular files refuse, and gives each an
// os.File with a finalizer; a build creates thousands of small files
// (validate reads its files the same way, readfile_unix.go).
func writeFile(path string, data []byte) error {
	fd, err := open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return fmt.Errorf("write %s: %w", path, err)
		}
		data = data[n:]
	}
	if err := syscall.Close(fd); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// readOnce is one read of the file at path into buf.
func readOnce(path string, buf []byte) (int, error) {
	fd, err := open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	for {
		n, err := syscall.Read(fd, buf)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

func open(path string, flags int, perm uint32) (int, error) {
	for {
		fd, err := syscall.Open(path, flags|syscall.O_CLOEXEC|syscall.O_NOCTTY, perm)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}
