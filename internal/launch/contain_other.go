//go:build !linux

package launch

import (
	"io"
	"os/exec"
	"time"
)

// Without Linux's subreaper and namespaces the agent is started directly:
// on other Unix systems in a session of its own (see contain_unix.go), on
// Windows in a job object (contain_windows.go).
type contained struct {
	cmd        *exec.Cmd
	foreground bool
	err        error
	sys        sysState
}

func startContained(path string, spec Spec, env []string, stdin io.Reader, stdout, stderr io.Writer, a attachment, o Options) (*contained, error) {
	cmd := exec.Command(path, spec.Args...)
	cmd.Args[0] = spec.Command
	cmd.Env = env
	cmd.Dir = spec.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	c := &contained{cmd: cmd, foreground: a == attached}
	setSysProcAttr(cmd, a)
	if err := c.start(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *contained) wait() {
	c.err = c.cmd.Wait()
	// What the agent left behind goes with it.
	c.killTree()
}

func (c *contained) waitErr() error { return c.err }

// Resource limits are Linux's here (see Limits): none is applied.
func (c *contained) applied() Limits { return Limits{} }

func (c *contained) signal() (int, time.Duration) { return 0, 0 }

func (c *contained) hit() (memory, processes bool) { return false, false }

func (c *contained) limitsText() string { return "none (limits are applied on Linux)" }

func (c *contained) describe() string {
	st := c.cmd.ProcessState
	if st == nil {
		if c.err != nil {
			return c.err.Error()
		}
		return "is still running"
	}
	if code := st.ExitCode(); code >= 0 {
		return "exited with status " + itoa(code)
	}
	return "was " + describeSignal(st)
}

func (c *contained) code() int {
	if c.cmd.ProcessState == nil {
		return -1
	}
	return c.cmd.ProcessState.ExitCode()
}

func (c *contained) terminate() { c.killTree() }

func (c *contained) kill() { c.killTree() }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}

// The supervisor is Linux's.
func supervise() (int, bool) { return 0, false }
