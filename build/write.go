package build

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// WriteDir replaces dir with exactly files. Everything is written into a
// sibling temporary folder first; the old dir is moved aside, the new one
// renamed into place, and only then is the old one removed. On any error
// before the swap, dir is untouched and the temporary folder is removed.
func WriteDir(dir string, files Files) (err error) {
	dir = filepath.Clean(dir)
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", parent, err)
	}
	if st, err := os.Lstat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("output %s exists and is not a folder: remove it or choose another --out", dir)
	}
	// Hidden names: a registry scan skips them should a crash leave one
	// behind next to agent folders.
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-")
	if err != nil {
		return fmt.Errorf("create temporary output folder beside %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp, err)
	}
	names := files.Names()
	for _, name := range names {
		if name != filepath.Base(name) || name == "." || name == ".." {
			return fmt.Errorf("refusing output file name %q: it must be a plain file name", name)
		}
	}
	prev := ""
	if st, err := os.Lstat(dir); err == nil && st.IsDir() {
		prev = dir
	}
	if err := writeAll(tmp, prev, names, files); err != nil {
		return err
	}

	old := ""
	if _, err := os.Lstat(dir); err == nil {
		aside, err := os.MkdirTemp(parent, "."+base+".old-")
		if err != nil {
			return fmt.Errorf("move old %s aside: %w", dir, err)
		}
		// MkdirTemp only reserves a unique name; rename needs it gone.
		os.Remove(aside)
		if err := os.Rename(dir, aside); err != nil {
			return fmt.Errorf("move old %s aside: %w", dir, err)
		}
		old = aside
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return fmt.Errorf("move new output into %s: %w", dir, err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("remove previous output %s: %w", old, err)
		}
	}
	return nil
}

// writeAll writes the files with two writers: a build is thousands of
// small icons and each costs a few system calls that two goroutines can
// overlap; more writers only contend for the folder's lock
// (BenchmarkWriteDir5000). A file whose bytes are already in the previous
// output (prev, may be "") is hard-linked from there instead: creating a
// file costs several times what reading and linking one does, and most
// files of a rebuild are unchanged.
func writeAll(dir, prev string, names []string, files Files) error {
	const writers = 2
	next := make(chan string)
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for name := range next {
				if first == nil && !(prev != "" && reuse(filepath.Join(prev, name), filepath.Join(dir, name), files[name])) {
					first = writeFile(filepath.Join(dir, name), files[name])
				}
			}
			errs <- first
		}()
	}
	for _, n := range names {
		next <- n
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// reuse links old to path when old is a regular file holding exactly data.
// Any doubt (a link, another size, an error) means no, and the caller
// writes the file.
func reuse(old, path string, data []byte) bool {
	st, err := os.Lstat(old)
	if err != nil || !st.Mode().IsRegular() || st.Size() != int64(len(data)) || st.Mode().Perm() != 0o644 {
		return false
	}
	have, err := os.ReadFile(old)
	if err != nil || !bytes.Equal(have, data) {
		return false
	}
	return os.Link(old, path) == nil
}

func writeFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
