package testkit

import (
	"os"
	"strconv"
	"strings"
)

// LiveProcesses lists the running processes (zombies aside) whose command
// line, program first, match accepts: the tests that prove an agent left
// nothing behind look for a token only their own children carry. It reads
// Linux's /proc; elsewhere it finds none, so those tests skip off Linux.
func LiveProcesses(match func(args []string) bool) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !match(strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")) {
			continue
		}
		// The state follows the command name, which may hold spaces and
		// parentheses: read it after the last ')'.
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 {
			if f := strings.Fields(string(stat)[i+1:]); len(f) > 0 && f[0] != "Z" && f[0] != "X" {
				out = append(out, pid)
			}
		}
	}
	return out
}
