package build

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// entryStore holds the encoded index entries of a build until the indexes
// are written, in a temporary file: the entries of 20,000 agents (about
// 30 MB) cost the build no memory, and the indexes are read back from the
// page cache. Held in memory instead, a build of 20,000 agents peaked at
// 53 MiB instead of 30 (issue 27, docs/decisions.md).
type entryStore struct {
	f       *os.File
	w       *bufio.Writer
	name    string
	removed bool // the file was unlinked at once
	off     int64
}

// newStore creates a store in the system's temporary folder.
func newStore() (*entryStore, error) {
	f, err := os.CreateTemp("", "acp-build-*")
	if err != nil {
		return nil, fmt.Errorf("create a temporary file for the indexes: %w", err)
	}
	// Unlinked at once where the OS allows it, so nothing is left behind
	// even when the process is killed; elsewhere close removes it.
	removed := os.Remove(f.Name()) == nil
	return &entryStore{f: f, w: bufio.NewWriterSize(f, 64<<10), name: f.Name(), removed: removed}, nil
}

// append adds b and says where it starts.
func (s *entryStore) append(b []byte) (int64, error) {
	off := s.off
	if _, err := s.w.Write(b); err != nil {
		return 0, fmt.Errorf("write the indexes' temporary file: %w", err)
	}
	s.off += int64(len(b))
	return off, nil
}

// flush makes everything appended readable.
func (s *entryStore) flush() error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("write the indexes' temporary file: %w", err)
	}
	return nil
}

func (s *entryStore) close() {
	s.f.Close()
	if !s.removed {
		os.Remove(s.name)
	}
}

// storeReader reads entries back; each reader has its own window, so
// several indexes can be written at once.
type storeReader struct {
	s      *entryStore
	win    []byte
	winOff int64
}

func (s *entryStore) reader() *storeReader { return &storeReader{s: s} }

var errStoreChanged = errors.New("the indexes' temporary file was changed while build ran")

// at returns the n bytes at off, valid until the next call. Entries are
// read in id order, which is mostly the order they were written in (a
// registry's folders are its ids), so a window read ahead serves most.
func (r *storeReader) at(off, n int64) ([]byte, error) {
	if off < r.winOff || off+n > r.winOff+int64(len(r.win)) {
		size := max(n, 256<<10)
		if int64(cap(r.win)) < size {
			r.win = make([]byte, 0, size)
		}
		got, err := r.s.f.ReadAt(r.win[:size], off)
		if int64(got) < n {
			if err == nil || errors.Is(err, io.EOF) {
				err = errStoreChanged
			}
			return nil, fmt.Errorf("read back the indexes' temporary file: %w", err)
		}
		r.win, r.winOff = r.win[:got], off
	}
	return r.win[off-r.winOff : off-r.winOff+n], nil
}
