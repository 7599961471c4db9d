//go:build unix

package launch

import (
	"os"
	"strconv"
	"syscall"
)

// closeInheritedOnExec marks every descriptor above stderr close-on-exec.
// Go opens its own that way, but this process may have inherited others
// from whoever started it (a shell's `exec 7<secret`), and exec would pass
// those on to the agent. Marking them, rather than closing them, leaves
// this process's use of them intact.
func closeInheritedOnExec() {
	dir := "/dev/fd"
	if _, err := os.Stat("/proc/self/fd"); err == nil {
		dir = "/proc/self/fd"
	}
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
