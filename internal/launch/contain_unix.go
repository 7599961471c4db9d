//go:build unix && !linux

package launch

import (
	"os"
	"os/exec"
	"syscall"
)

type sysState struct{}

// A session of its own: no controlling terminal, and a process group we
// can kill as a whole. Children that call setsid() themselves escape it;
// these systems offer no subreaper to catch them.
func setSysProcAttr(cmd *exec.Cmd, a attachment) {
	closeInheritedOnExec()
	if a == detached {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
}

func (c *contained) start() error { return c.cmd.Start() }

func (c *contained) isolation() string { return "session" }

func (c *contained) killTree() {
	if c.cmd.Process == nil {
		return
	}
	if !c.foreground {
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = c.cmd.Process.Kill()
}

func describeSignal(st *os.ProcessState) string {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by signal " + ws.Signal().String()
	}
	return st.String()
}
