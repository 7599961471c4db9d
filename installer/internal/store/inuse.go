package store

import (
	"fmt"
	"path/filepath"
	"strings"
)

// procUse is a running process that uses files under the data root.
type procUse struct {
	pid   int
	name  string
	paths []string
}

// user returns the first process that uses a file under one of dirs,
// described for a message ("process 1234 (node)"), or "".
func user(procs []procUse, dirs ...string) string {
	if len(procs) == 0 {
		return ""
	}
	var real []string
	for _, d := range dirs {
		if d == "" {
			continue
		}
		// /proc shows resolved paths; the data root may sit behind a link.
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		real = append(real, filepath.Clean(d))
	}
	for _, p := range procs {
		for _, path := range p.paths {
			for _, d := range real {
				if path == d || strings.HasPrefix(path, d+string(filepath.Separator)) {
					if p.name != "" {
						return fmt.Sprintf("process %d (%s)", p.pid, p.name)
					}
					return fmt.Sprintf("process %d", p.pid)
				}
			}
		}
	}
	return ""
}
