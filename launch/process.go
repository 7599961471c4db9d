package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Spec is what to run: a command (absolute or found on PATH), its
// arguments, the manifest's env additions and a working directory ("" for
// the caller's). It mirrors installer.LaunchSpec without depending on it.
type Spec struct {
	Command string
	Args    []string
	Env     map[string]string
	Dir     string
}

// String is the command line, for messages.
func (s Spec) String() string { return Quote(append([]string{s.Command}, s.Args...)) }

// Process is a started agent with its stdio on pipes that we own. Pipes
// are made with os.Pipe rather than exec's StdoutPipe so that Wait never
// closes them under a reader that is still draining them.
type Process struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Stderr io.ReadCloser

	cmd    *exec.Cmd
	exited chan struct{}
	state  *os.ProcessState
	err    error
	stop   sync.Once
}

// Start runs spec with exactly env as its environment, in a new process
// group, with stdin, stdout and stderr on pipes.
func Start(spec Spec, env []string) (*Process, error) {
	if spec.Command == "" {
		return nil, ErrNoCommand
	}
	cmd := exec.Command(spec.Command, spec.Args...)
	cmd.Env = env
	cmd.Dir = spec.Dir
	setGroup(cmd)

	var closers []io.Closer
	fail := func(err error) (*Process, error) {
		for _, c := range closers {
			c.Close()
		}
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return fail(fmt.Errorf("create stdin pipe: %w", err))
	}
	closers = append(closers, inR, inW)
	outR, outW, err := os.Pipe()
	if err != nil {
		return fail(fmt.Errorf("create stdout pipe: %w", err))
	}
	closers = append(closers, outR, outW)
	errR, errW, err := os.Pipe()
	if err != nil {
		return fail(fmt.Errorf("create stderr pipe: %w", err))
	}
	closers = append(closers, errR, errW)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("start %s: %w", spec.Command, err))
	}
	// The child holds its own copies; ours must go, or we would never see
	// EOF on stdout when it exits.
	inR.Close()
	outW.Close()
	errW.Close()

	p := &Process{Stdin: inW, Stdout: outR, Stderr: errR, cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	return p, nil
}

// Pid is the process id (and process-group id on Unix).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the process has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitDescription says how the process ended ("exited with status 1",
// "was killed by signal: killed"); call it after Exited is closed.
func (p *Process) ExitDescription() string {
	if p.state == nil {
		if p.err != nil {
			return p.err.Error()
		}
		return "is still running"
	}
	if code := p.state.ExitCode(); code >= 0 {
		return fmt.Sprintf("exited with status %d", code)
	}
	return "was " + describeSignal(p.state)
}

// ExitCode is the exit status, -1 when killed by a signal or still running.
func (p *Process) ExitCode() int {
	select {
	case <-p.exited:
		return p.state.ExitCode()
	default:
		return -1
	}
}

// WaitExit waits up to d for the process to exit on its own.
func (p *Process) WaitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// Stop kills the whole process group, waits for the process to be reaped
// and closes our ends of the pipes (which ends any reader blocked on a
// pipe that a stray grandchild outside the group still holds). It is safe
// to call more than once.
func (p *Process) Stop() {
	p.stop.Do(func() {
		killGroup(p.cmd)
		<-p.exited
		// Members of the group that outlived the leader were killed with
		// it; kill again in case one forked while we waited.
		killGroup(p.cmd)
		p.Stdin.Close()
		p.Stdout.Close()
		p.Stderr.Close()
	})
}

// Interactive runs spec with the caller's terminal (stdin, stdout,
// stderr) and env, and returns its exit status. It stays in our process
// group: a terminal sign-in must be in the foreground to read the
// keyboard, and Ctrl-C reaches it directly. When ctx ends first the
// process is killed.
func Interactive(ctx context.Context, spec Spec, env []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if spec.Command == "" {
		return -1, ErrNoCommand
	}
	cmd := exec.Command(spec.Command, spec.Args...)
	cmd.Env = env
	cmd.Dir = spec.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Start(); err != nil {
		return -1, fmt.Errorf("start %s: %w", spec.Command, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		// Ctrl-C already reached the child through the terminal; give it
		// a moment to clean up before forcing it.
		select {
		case err = <-done:
		case <-time.After(3 * time.Second):
			_ = cmd.Process.Kill()
			err = <-done
		}
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return -1, fmt.Errorf("run %s: %w", spec.Command, err)
	}
	return cmd.ProcessState.ExitCode(), nil
}
