//go:build windows

package launch

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysState is the job object the agent runs in: closing or terminating it
// ends every process in it, children included. Children the agent starts
// in the instant before it joins the job escape it; there is no way to
// start a process inside a job with os/exec.
type sysState struct {
	mu  sync.Mutex
	job windows.Handle
}

func setSysProcAttr(cmd *exec.Cmd, foreground bool) {
	if !foreground {
		// A console without a window, not ours: the agent cannot write to
		// the user's console, and children it starts inherit the hidden
		// one instead of popping up windows of their own.
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW}
	}
}

func (c *contained) afterStart() {
	job, err := killOnCloseJob(c.cmd.Process.Pid)
	if err != nil {
		return
	}
	c.sys.mu.Lock()
	c.sys.job = job
	c.sys.mu.Unlock()
}

// killOnCloseJob puts process pid in a new job object that ends every
// process in it when its last handle closes: ours, which Windows closes
// when this process exits, however it exits.
func killOnCloseJob(pid int) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// DieWithUs makes p, and every process it starts from now on, end when
// this process ends, however it ends (acp run on Windows, where there is
// no exec: an editor that kills acp.exe would leave the agent running).
// It holds p in a kill-on-close job object for the rest of this process's
// life. Children p starts in the instant before it joins escape it.
func DieWithUs(p *os.Process) error {
	_, err := killOnCloseJob(p.Pid)
	return err
}

func (c *contained) isolation() string {
	c.sys.mu.Lock()
	defer c.sys.mu.Unlock()
	if c.sys.job != 0 {
		return "job object"
	}
	return "process"
}

func (c *contained) killTree() {
	c.sys.mu.Lock()
	job := c.sys.job
	c.sys.job = 0
	c.sys.mu.Unlock()
	if job != 0 {
		_ = windows.TerminateJobObject(job, 1)
		windows.CloseHandle(job)
	}
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
	}
}

func describeSignal(st *os.ProcessState) string { return st.String() }
