package installer

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
	for _, p := range procs {
		for _, path := range p.paths {
			for _, d := range dirs {
				if d == "" {
					continue
				}
				d = filepath.Clean(d)
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
