//go:build windows

package launch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysState is the job object the agent runs in: closing or terminating it
// ends every process in it, children included. The agent is in it before
// it runs its first instruction (started suspended), so none of its
// children escapes it.
type sysState struct {
	mu  sync.Mutex
	job windows.Handle
}

func setSysProcAttr(cmd *exec.Cmd, a attachment) {
	if a == detached {
		// A console without a window, not ours: the agent cannot write to
		// the user's console, and children it starts inherit the hidden
		// one instead of popping up windows of their own.
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW}
	}
}

func (c *contained) start() error {
	job, err := startInJob(c.cmd)
	if err != nil {
		return err
	}
	c.sys.mu.Lock()
	c.sys.job = job
	c.sys.mu.Unlock()
	return nil
}

// startInJob starts cmd suspended, puts it in a new job object that ends
// every process in it when its last handle closes (ours, which Windows
// closes when this process exits, however it exits), and only then lets
// it run. A .cmd or .bat program is run through cmd.exe with its
// arguments quoted by cmd's rules (batchCommand). When the job cannot be
// made (a parent's job that forbids nesting, on old Windows) the process
// runs without one: contained less, but running.
func startInJob(cmd *exec.Cmd) (windows.Handle, error) {
	if err := batchCommand(cmd); err != nil {
		return 0, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	job, jerr := killOnCloseJob(cmd.Process.Pid)
	if err := resume(uint32(cmd.Process.Pid)); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if job != 0 {
			windows.CloseHandle(job)
		}
		return 0, fmt.Errorf("resume the started process: %w", err)
	}
	if jerr != nil {
		return 0, nil
	}
	return job, nil
}

// resume lets the threads of suspended process pid run (there is one:
// its main thread; os/exec does not hand out its handle).
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed++
	}
	if resumed == 0 {
		return errors.New("no thread of the process found")
	}
	return nil
}

// killOnCloseJob puts process pid in a new job object that ends every
// process in it when its last handle closes.
func killOnCloseJob(pid int) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	if err := setJobLimits(job, windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE); err != nil {
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

// setJobLimits sets the job's limit flags (JOB_OBJECT_LIMIT_*; 0 clears
// them).
func setJobLimits(job windows.Handle, flags uint32) error {
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = flags
	_, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	return err
}

// StartTied starts cmd as acp run's agent. On Windows, where acp cannot
// exec, the agent starts suspended, joins a kill-on-close job and then
// runs: an editor that kills acp.exe ends the agent and everything it
// started, as its kill would reach the agent itself on Unix. Call untie
// once the agent has exited on its own: what it left running then lives
// on, as after an exec'd agent on Unix (docs/security.md). A .cmd or .bat
// agent gets its arguments quoted by cmd.exe's rules, or an error where
// none is safe. On Unix StartTied is cmd.Start.
func StartTied(cmd *exec.Cmd) (untie func(), err error) {
	job, err := startInJob(cmd)
	if err != nil {
		return nil, err
	}
	return func() {
		if job != 0 {
			_ = setJobLimits(job, 0) // no kill on close: what it left lives on
			windows.CloseHandle(job)
			job = 0
		}
	}, nil
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

// batchCommand makes cmd, when its program is a .cmd or .bat file, run
// through cmd.exe with a command line quoted by cmd's rules (batCommandLine):
// left to CreateProcess, the arguments would be quoted for a program's
// argv parser, which cmd does not use, and an argument such as
// q"&calc would run calc.
func batchCommand(cmd *exec.Cmd) error {
	ext := strings.ToLower(filepath.Ext(cmd.Path))
	if ext != ".cmd" && ext != ".bat" {
		return nil
	}
	line, err := batCommandLine(cmd.Path, cmd.Args[1:])
	if err != nil {
		return err
	}
	sys, err := windows.GetSystemDirectory()
	if err != nil {
		return err
	}
	cmd.Path = filepath.Join(sys, "cmd.exe")
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CmdLine = line
	return nil
}
