//go:build !windows

package runtimes

import (
	"os/exec"
	"syscall"
)

// ownGroup starts npm or uv in a process group of its own, so a stalled
// install is stopped whole: npm runs lifecycle scripts in children of its
// own, and killing npm alone leaves them running.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killGroup ends whatever is left of the group once npm or uv is gone.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
