package validate

import (
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

// registryRoots are the folders among paths that are a registry's root,
// not one agent's folder: where variants.json, quarantine.json, the feed
// sources and a tree's own schemas are read from.
func registryRoots(paths []string) []string {
	var roots []string
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(p, registry.ManifestFile)); err == nil {
			continue
		}
		roots = append(roots, p)
	}
	return roots
}

// displayPath is how reports name a path given on the command line:
// relative to the top of the git work tree that holds it (what CI
// annotations and a pull request's file list use), else relative to the
// current folder, else as given; always with forward slashes, so the
// report reads the same on Windows.
func displayPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if top := gitTop(abs); top != "" {
		if rel, ok := below(top, abs); ok {
			return rel
		}
	}
	if cwd, err := os.Getwd(); err == nil {
		if rel, ok := below(cwd, abs); ok {
			return rel
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// below is p relative to base, slashed, when p is base or inside it.
func below(base, p string) (string, bool) {
	rel, err := filepath.Rel(base, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// gitTop is the nearest folder at or above abs holding .git (a folder in a
// clone, a file in a worktree or submodule), or "".
func gitTop(abs string) string {
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// fileProblemError is a file that must not be read: a link out of the
// registry, or something other than a regular file (a FIFO would block
// the run, a device could be read for ever).
type fileProblemError struct{ why string }

func (e *fileProblemError) Error() string { return e.why }

// readFile reads one of an agent's files, at most limit bytes. It looks at
// the file without following links first, so that a FIFO or device
// planted as agent.json is refused without being opened, and a link is
// followed only when it stays inside the registry root.
func (u *place) readFile(p string, limit int64) ([]byte, error) {
	if !u.dirLink {
		data, link, err := readPlain(p, limit, u.alloc)
		if !link {
			return data, err
		}
	}
	st, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if st.Mode()&fs.ModeSymlink != 0 || u.dirLink {
		if why := u.outside(p); why != "" {
			return nil, &fileProblemError{why}
		}
		if st, err = os.Stat(p); err != nil {
			return nil, err
		}
	}
	switch {
	case st.IsDir():
		return nil, &fileProblemError{"is a folder, not a file"}
	case !st.Mode().IsRegular():
		return nil, &fileProblemError{"is not a regular file (a " + registry.FileKind(st.Mode()) + ")"}
	case st.Size() > limit:
		return nil, &registry.TooLargeError{Path: p, Limit: limit}
	}
	// Read exactly the size the stat gave: a file that grows meanwhile is
	// read as it was, and the usual file costs one read and no EOF probe.
	buf := u.alloc(int(st.Size()))
	n, err := readAt(p, buf)
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// outside says why the link p (or p inside a linked agent folder) leaves
// the registry root, or "" when it stays inside.
func (u *place) outside(p string) string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := os.Lstat(p); lerr == nil {
				return "is a symbolic link to nothing"
			}
		}
		return ""
	}
	root, err := filepath.EvalSymlinks(u.root)
	if err != nil {
		return fmt.Sprintf("cannot be placed inside the registry: %v", causeOf(err))
	}
	if _, ok := below(root, real); !ok {
		return "is a symbolic link to a file outside the registry"
	}
	return ""
}

// showJoin names a file of an agent folder in reports.
func showJoin(dir, name string) string { return path.Join(dir, name) }

// fileBufs recycles the bytes of agent files in lean runs, where nothing
// keeps them once an agent's problems are recorded: a fifth of what a run
// allocates, and so of its garbage collection.
var fileBufs = sync.Pool{New: func() any { return new([]byte) }}

// alloc returns a buffer of n bytes for one of the unit's files.
func (u *place) alloc(n int) []byte {
	if !u.recycle || n > 64<<10 {
		return make([]byte, n)
	}
	bp := fileBufs.Get().(*[]byte)
	if cap(*bp) < n {
		*bp = make([]byte, n, max(n, 4<<10))
	}
	u.bufs = append(u.bufs, bp)
	return (*bp)[:n]
}

// release returns the unit's buffers; nothing may use its files after.
func (u *place) release() {
	for _, bp := range u.bufs {
		fileBufs.Put(bp)
	}
	u.bufs = nil
}
