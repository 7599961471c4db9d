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

// Options choose how far an agent is contained.
type Options struct {
	// NoNamespaces turns off the private PID namespace and /proc that Start
	// gives an agent where the OS allows it (Linux with user namespaces),
	// as if the OS refused them: the agent still gets a session of its
	// own, Stop still removes every process it started, and this process
	// makes itself non-dumpable, after which no agent it starts gets
	// namespaces. For tests of the fallback.
	NoNamespaces bool
	// NoCgroups turns off the cgroups that hold an agent's whole tree
	// (Limits), as if the machine had none: the fallbacks then hold it.
	// For tests of the fallback.
	NoCgroups bool
	// Limits for the agent and everything it starts; nil means
	// DefaultLimits, &Limits{} none. Interactive sign-ins get none.
	Limits *Limits
}

// limits resolves Options.Limits.
func (o Options) limits() Limits {
	if o.Limits == nil {
		return DefaultLimits()
	}
	return *o.Limits
}

// Process is a started agent with its stdio on pipes that we own. Pipes
// are made with os.Pipe rather than exec's StdoutPipe so that Wait never
// closes them under a reader that is still draining them.
type Process struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Stderr io.ReadCloser

	c      *contained
	stderr *stderrWatch
	exited chan struct{}
	stop   sync.Once
}

// Start runs spec with exactly env as its environment, with stdin, stdout
// and stderr on pipes, contained: in a session of its own without a
// controlling terminal (it cannot write to the caller's terminal or join
// its process group), and on Linux under a small supervisor (this same
// executable, re-run) that collects every process the agent starts, so
// that Stop leaves none behind, setsid and double forks included. Where
// user namespaces are allowed, the agent also gets a private PID namespace
// and /proc: the caller's environment and descriptors are out of its
// reach. Isolation reports what was obtained.
func Start(spec Spec, env []string) (*Process, error) {
	return StartWith(spec, env, Options{})
}

// StartWith is Start with options.
func StartWith(spec Spec, env []string, o Options) (*Process, error) {
	if spec.Command == "" {
		return nil, ErrNoCommand
	}
	path, err := exec.LookPath(spec.Command)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Command, err)
	}
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
	c, err := startContained(path, spec, env, inR, outW, errW, detached, o)
	if err != nil {
		return fail(fmt.Errorf("start %s: %w", spec.Command, err))
	}
	// The child holds its own copies; ours must go, or we would never see
	// EOF on stdout when it exits.
	inR.Close()
	outW.Close()
	errW.Close()

	watch := &stderrWatch{ReadCloser: errR}
	p := &Process{Stdin: inW, Stdout: outR, Stderr: watch, stderr: watch, c: c, exited: make(chan struct{})}
	go func() {
		c.wait()
		close(p.exited)
	}()
	return p, nil
}

// Isolation says how the agent is contained, for reports: "pid
// namespace, private /proc", "supervised session" or "session".
func (p *Process) Isolation() string { return p.c.isolation() }

// LimitHint names the resource limit (Limits) the agent most likely hit,
// judged from how it ended and what it said on stderr (as read so far
// from Stderr), as a clause for a verdict ("it hit its limit of 64 open
// files (…)"); "" when nothing points at one, or while it runs.
func (p *Process) LimitHint() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	sig, cpu := p.c.signal()
	seen := p.stderr.seen.Load()
	// The kernel's own count, where a cgroup holds the tree, whatever
	// the agent said.
	if mem, procs := p.c.hit(); mem || procs {
		if mem {
			seen |= 1 << saidMemory
		}
		if procs {
			seen |= 1 << saidThreads
		}
	}
	return limitHint(p.c.applied(), sig, cpu, seen)
}

// Limits says which resource limits hold the agent, as applied (a limit
// below what the kernel accepts raised, CPU time in whole seconds), and
// whether each holds its whole tree or each process ("processes=1024 for
// its whole tree (a cgroup), memory=4GiB per process (no cgroup …),
// files=4096 per process, cpu=10m0s per process"), for reports.
func (p *Process) Limits() string { return p.c.limitsText() }

// Exited is closed once the process has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitDescription says how the process ended ("exited with status 1",
// "was killed by signal killed"); call it after Exited is closed.
func (p *Process) ExitDescription() string {
	select {
	case <-p.exited:
	default:
		return "is still running"
	}
	return p.c.describe()
}

// ExitCode is the exit status, -1 when killed by a signal or still running.
func (p *Process) ExitCode() int {
	select {
	case <-p.exited:
		return p.c.code()
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

// stopGrace is how long the supervisor has to remove the agent's
// processes before it is killed itself.
const stopGrace = 3 * time.Second

// Stop ends the agent and every process it started, waits for it to be
// reaped and closes our ends of the pipes. It is safe to call more than
// once.
func (p *Process) Stop() {
	p.stop.Do(func() {
		p.c.terminate()
		if !p.WaitExit(stopGrace) {
			p.c.kill()
			<-p.exited
		}
		// Members of the session that outlived the leader: kill again in
		// case one forked while we waited.
		p.c.kill()
		p.Stdin.Close()
		p.Stdout.Close()
		// What the agent wrote to stderr just before it was stopped may
		// still sit in the pipe: with every process gone the reader gets
		// it and then EOF. Close our end only after a grace, for a process
		// that escaped and still holds the pipe.
		time.AfterFunc(stderrDrainGrace, func() { p.Stderr.Close() })
	})
}

// stderrDrainGrace bounds how long a stopped agent's stderr may still be
// read (a pipe buffer's worth takes microseconds).
const stderrDrainGrace = 500 * time.Millisecond

// attachment is how a started process stands to our terminal.
type attachment int

const (
	detached attachment = iota // an agent: a session of its own, its limits, stopped as a tree
	attached                   // Interactive: in our process group, so it reads the keyboard and Ctrl-C reaches it
)

// Interactive runs spec with the caller's terminal (stdin, stdout,
// stderr) and env, and returns its exit status. It stays in our process
// group: a terminal sign-in must be in the foreground to read the
// keyboard, and Ctrl-C reaches it directly. Every process it started is
// gone when it returns (on Linux; elsewhere those that stayed in its
// process group). When ctx ends first the process is killed.
func Interactive(ctx context.Context, spec Spec, env []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if spec.Command == "" {
		return -1, ErrNoCommand
	}
	path, err := exec.LookPath(spec.Command)
	if err != nil {
		return -1, fmt.Errorf("start %s: %w", spec.Command, err)
	}
	c, err := startContained(path, spec, env, stdin, stdout, stderr, attached, Options{NoNamespaces: true})
	if err != nil {
		return -1, fmt.Errorf("start %s: %w", spec.Command, err)
	}
	done := make(chan struct{})
	go func() { c.wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		// Ctrl-C already reached the child through the terminal; give it
		// a moment to clean up before forcing it.
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			c.terminate()
			select {
			case <-done:
			case <-time.After(stopGrace):
				c.kill()
				<-done
			}
		}
	}
	if err := c.waitErr(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return -1, fmt.Errorf("run %s: %w", spec.Command, err)
		}
	}
	return c.code(), nil
}
