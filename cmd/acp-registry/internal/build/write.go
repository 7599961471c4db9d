package build

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// WriteDir replaces dir with exactly files. Everything is written into a
// sibling temporary folder first; the old dir is moved aside, the new one
// renamed into place, and only then is the old one removed. On any error
// before the swap, dir is untouched and the temporary folder is removed.
func WriteDir(dir string, files Files) (err error) {
	s, err := newStage(dir)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			s.abort()
		}
	}()
	if err := s.write(files, nil, nil, nil); err != nil {
		return err
	}
	return s.commit()
}

// stage is an output folder under construction: a hidden temporary
// folder beside dir that replaces dir as a whole on commit.
type stage struct {
	dir, parent, base string
	tmp               string
	prev              string // the previous output, to reuse files from; may be ""

	// Files offered before the rest of the output is known (the icons,
	// while validation goes on); see startEarly. Nothing is kept of them
	// (the folder itself says which were written), except the bytes of
	// one whose write failed, which write tries again.
	early bool
	mu    sync.Mutex
	retry map[string][]byte
	queue chan earlyFile
	wg    sync.WaitGroup
}

type earlyFile struct {
	name string
	data []byte
}

func newStage(dir string) (*stage, error) {
	dir = filepath.Clean(dir)
	s := &stage{dir: dir, parent: filepath.Dir(dir), base: filepath.Base(dir)}
	if err := os.MkdirAll(s.parent, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", s.parent, err)
	}
	if st, err := os.Lstat(dir); err == nil && !st.IsDir() {
		// The output is replaced whole, by a rename: a link would be
		// replaced, not what it leads to.
		what := "a regular file"
		if st.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(dir)
			what = "a symbolic link to " + target + " (the output is replaced whole, link included): name the folder itself"
		} else if !st.Mode().IsRegular() {
			what = "a " + registry.FileKind(st.Mode())
		}
		return nil, fmt.Errorf("output %s is %s: remove it or choose another --out", dir, what)
	} else if err == nil {
		s.prev = dir
	}
	// Hidden names: a registry scan skips them should a crash leave one
	// behind next to agent folders.
	tmp, err := os.MkdirTemp(s.parent, "."+s.base+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("create temporary output folder beside %s: %w", dir, err)
	}
	s.tmp = tmp
	if err := os.Chmod(tmp, 0o755); err != nil {
		s.abort()
		return nil, fmt.Errorf("chmod %s: %w", tmp, err)
	}
	return s, nil
}

// startEarly prepares the output of a build before validation, so that
// each agent's icon can be written as soon as it has been checked while
// the other agents are still being read and checked: on a disk where
// creating thousands of files costs more than validating them, that
// hides most of the writing. It returns nil, leaving everything to
// WriteDir after validation, when the output's parent folder does not
// exist (a build that fails must not create it) or when anything about
// the output is unusual (WriteDir then reports it).
func startEarly(dir string) *stage {
	if st, err := os.Stat(filepath.Dir(filepath.Clean(dir))); err != nil || !st.IsDir() {
		return nil
	}
	s, err := newStage(dir)
	if err != nil {
		return nil
	}
	s.early = true
	s.retry = map[string][]byte{}
	// A short queue: validation waits for the writers rather than
	// holding many icons in memory.
	queue := make(chan earlyFile, 32)
	s.queue = queue
	for w := 0; w < writers; w++ {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for f := range queue {
				err := s.put(f.name, f.data)
				if err == nil || errors.Is(err, fs.ErrExist) {
					continue // written, or offered twice: the first stays
				}
				// The final write tries again and reports the error.
				os.Remove(filepath.Join(s.tmp, f.name))
				s.mu.Lock()
				s.retry[f.name] = f.data
				s.mu.Unlock()
			}
		}()
	}
	return s
}

// offer queues a file that the output will hold unless the build fails.
// One offer of a name wins (an id appears twice only in a build that
// fails).
func (s *stage) offer(name string, data []byte) {
	if plainFileName(name) {
		s.queue <- earlyFile{name, data}
	}
}

// drain waits for the early writes; offer must not be called after it.
func (s *stage) drain() {
	if s.queue != nil {
		close(s.queue)
		s.queue = nil
		s.wg.Wait()
	}
}

// write completes the folder so that it holds exactly files, the
// streamed outputs and the files named in keep: those written early stay,
// the others are read with load. Early files that are in none are
// removed.
func (s *stage) write(files Files, streamed []output, keep []string, load func(name string) ([]byte, error)) error {
	s.drain()
	wanted := make(map[string]bool, len(keep))
	for _, name := range keep {
		wanted[name] = true
	}
	streams := make(map[string]bool, len(streamed))
	for _, o := range streamed {
		streams[o.name] = true
		if !plainFileName(o.name) {
			return fmt.Errorf("refusing output file name %q: it must be a plain file name", o.name)
		}
	}
	for _, name := range files.Names() {
		if !localFileName(name) {
			return fmt.Errorf("refusing output file name %q: it must be a plain file name or a path below the folder", name)
		}
	}
	for _, name := range keep {
		if !plainFileName(name) {
			return fmt.Errorf("refusing output file name %q: it must be a plain file name", name)
		}
	}
	if err := s.mkdirs(files.Names()); err != nil {
		return err
	}
	written := map[string]bool{}
	if s.early {
		names, err := readNames(s.tmp)
		if err != nil {
			return fmt.Errorf("write %s: %w", s.tmp, err)
		}
		for _, name := range names {
			if _, ok := files[name]; ok || streams[name] || !wanted[name] {
				// Rendered content wins over an early offer of the same name.
				if err := os.Remove(filepath.Join(s.tmp, name)); err != nil {
					return fmt.Errorf("write %s: %w", filepath.Join(s.tmp, name), err)
				}
				continue
			}
			written[name] = true
		}
	}
	todo := files.Names()
	for _, name := range keep {
		if written[name] || streams[name] {
			continue
		}
		if _, ok := files[name]; ok {
			continue
		}
		data, ok := s.retry[name]
		if !ok {
			var err error
			if data, err = load(name); err != nil {
				return fmt.Errorf("write %s: %w", name, err)
			}
		}
		files[name] = data
		todo = append(todo, name)
	}
	if err := s.streamAll(streamed); err != nil {
		return err
	}
	return s.putAll(todo, files)
}

// streamAll writes the streamed outputs, several at once.
func (s *stage) streamAll(outs []output) error {
	errs := make([]error, len(outs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, writers)
	for i, o := range outs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			errs[i] = s.stream(o)
			<-sem
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// stream writes one output as its write function produces it.
func (s *stage) stream(o output) error {
	path := filepath.Join(s.tmp, o.name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := o.write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// commit swaps the folder into place.
func (s *stage) commit() error {
	old := ""
	if _, err := os.Lstat(s.dir); err == nil {
		aside, err := os.MkdirTemp(s.parent, "."+s.base+".old-")
		if err != nil {
			return fmt.Errorf("move old %s aside: %w", s.dir, err)
		}
		// MkdirTemp only reserves a unique name; rename needs it gone.
		os.Remove(aside)
		if err := os.Rename(s.dir, aside); err != nil {
			return fmt.Errorf("move old %s aside: %w", s.dir, err)
		}
		old = aside
	}
	if err := os.Rename(s.tmp, s.dir); err != nil {
		if old != "" {
			os.Rename(old, s.dir)
		}
		return fmt.Errorf("move new output into %s: %w", s.dir, err)
	}
	if old != "" {
		if err := removeDir(old); err != nil {
			return fmt.Errorf("remove previous output %s: %w", old, err)
		}
	}
	return nil
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// removeDir removes the previous output, its files on several
// goroutines: the command waits for it, and a rebuild's previous output
// is thousands of files.
func removeDir(dir string) error {
	names, err := readNames(dir)
	if err != nil {
		return os.RemoveAll(dir)
	}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(names); i += writers {
				os.Remove(filepath.Join(dir, names[i]))
			}
		}()
	}
	wg.Wait()
	// Whatever is left (a folder someone put there) goes the slow way,
	// which also reports what cannot be removed.
	return os.RemoveAll(dir)
}

// abort removes the temporary folder; the output is left as it was.
func (s *stage) abort() {
	s.drain()
	os.RemoveAll(s.tmp)
}

func plainFileName(name string) bool {
	return name == filepath.Base(name) && name != "." && name != ".."
}

// localFileName accepts a plain file name or a slash-separated path of
// plain names below the folder ("icons/x.svg"): the catalog (package
// site) is written through WriteDir with subfolders; build's own outputs
// are flat.
func localFileName(name string) bool {
	for _, part := range strings.Split(name, "/") {
		if !plainFileName(part) || part == "" || strings.Contains(part, `\`) {
			return false
		}
	}
	return true
}

// mkdirs creates the subfolders that names need inside the temporary
// folder, each once.
func (s *stage) mkdirs(names []string) error {
	made := map[string]bool{}
	for _, name := range names {
		dir := path.Dir(name)
		if dir == "." || made[dir] {
			continue
		}
		made[dir] = true
		if err := os.MkdirAll(filepath.Join(s.tmp, filepath.FromSlash(dir)), 0o755); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Join(s.tmp, dir), err)
		}
	}
	return nil
}

// writers is how many files are written at once: a build is thousands of
// small icons and each costs a few system calls that two goroutines can
// overlap; more writers only contend for the folder's lock
// (BenchmarkWriteDir5000).
const writers = 2

// putAll writes the files with several writers.
func (s *stage) putAll(names []string, files Files) error {
	next := make(chan string)
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for name := range next {
				if first == nil {
					first = s.put(name, files[name])
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

// put writes one file into the folder. A file whose bytes are already in
// the previous output is hard-linked from there instead: a link allocates
// no inode, and on ext4 allocating thousands of inodes shortly after as
// many files were deleted (the previous output, or anything else on the
// file system) scans past every recently deleted one
// (ext4's recently_deleted, in find_inode_bit): seconds of kernel time
// for 5,000 files, against tens of milliseconds to read and compare them.
// Most files of a rebuild are unchanged.
func (s *stage) put(name string, data []byte) error {
	path := filepath.Join(s.tmp, name)
	if s.prev != "" && reuse(filepath.Join(s.prev, name), path, data) {
		return nil
	}
	return writeFile(path, data)
}

// reuse links old to path when old is a regular file holding exactly data.
// Any doubt (a link, another size, an error) means no, and the caller
// writes the file.
func reuse(old, path string, data []byte) bool {
	st, err := os.Lstat(old)
	if err != nil || !st.Mode().IsRegular() || st.Size() != int64(len(data)) || st.Mode().Perm() != 0o644 {
		return false
	}
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	if cap(*bp) <= len(data) {
		*bp = make([]byte, len(data)+1)
	}
	// One read: a file of the size Lstat gave comes whole from a local
	// disk; a short read (or a file that grew) is doubt, and doubt writes.
	n, err := readOnce(old, (*bp)[:len(data)+1])
	if err != nil || n != len(data) || !bytes.Equal((*bp)[:n], data) {
		return false
	}
	return os.Link(old, path) == nil
}

// readBufs hold a previous output's file while it is compared.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}
