package store

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procsCanTell: on Linux /proc says which files running processes use.
const procsCanTell = true

// scanProcesses lists the processes of this machine that use a file under
// root: as their executable, their working directory, a path in their
// command line (node and python run scripts from the install), a mapped
// file (shared libraries) or an open file. Processes of other users are
// not readable and not seen; this process is skipped.
func scanProcesses(root string) []procUse {
	root = filepath.Clean(root)
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	prefix := root + string(filepath.Separator)
	under := func(p string) bool { return strings.HasPrefix(p, prefix) }
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []procUse
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		dir := "/proc/" + e.Name()
		var paths []string
		add := func(p string) {
			p = strings.TrimSuffix(p, " (deleted)")
			if under(p) {
				paths = append(paths, p)
			}
		}
		for _, l := range []string{"exe", "cwd"} {
			if p, err := os.Readlink(dir + "/" + l); err == nil {
				add(p)
			}
		}
		if cmdline, err := os.ReadFile(dir + "/cmdline"); err == nil {
			for _, a := range bytes.Split(cmdline, []byte{0}) {
				if len(a) > 0 && a[0] == '/' {
					add(filepath.Clean(string(a)))
				}
			}
		}
		if f, err := os.Open(dir + "/maps"); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
			for sc.Scan() {
				line := sc.Bytes()
				if i := bytes.IndexByte(line, '/'); i >= 0 && bytes.Contains(line[i:], []byte(prefix)) {
					add(string(line[i:]))
				}
			}
			f.Close()
		}
		if fds, err := os.ReadDir(dir + "/fd"); err == nil {
			for _, fd := range fds {
				if p, err := os.Readlink(dir + "/fd/" + fd.Name()); err == nil && len(p) > 0 && p[0] == '/' {
					add(p)
				}
			}
		}
		if len(paths) == 0 {
			continue
		}
		name := ""
		if comm, err := os.ReadFile(dir + "/comm"); err == nil {
			name = strings.TrimSpace(string(comm))
		}
		out = append(out, procUse{pid: pid, name: name, paths: paths})
	}
	return out
}
