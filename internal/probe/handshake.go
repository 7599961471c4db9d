package probe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
)

// HandshakeOptions configure one launch + initialize.
type HandshakeOptions struct {
	// Sandbox is a folder for the agent's HOME and TMPDIR (created). The
	// working directory is Sandbox/work unless the spec sets one.
	Sandbox string
	// HostEnv is the environment the allow-list is applied to; nil means
	// os.Environ().
	HostEnv []string
	// Timeout bounds the wait for the answer (not the launch). Zero means
	// DefaultTimeout.
	Timeout time.Duration
	// Client names us in initialize.
	Client acpclient.Implementation
	// KeepHome keeps what an earlier handshake in Sandbox left in its
	// HOME (a retry after a first run that installed a shim there);
	// otherwise HOME and TMPDIR start empty.
	KeepHome bool
	// Params, when set, are the initialize request's params instead of
	// acpclient.InitializeParams(Client) (comparison runs send the public
	// registry's exact request).
	Params any
	// Limits for what the agent may send; zero values take the defaults.
	Limits acpclient.Options
	// Launch tunes the containment (tests of the fallback).
	Launch launch.Options
	// AfterInit, when set, goes on talking to an agent that answered
	// initialize (the protocol matrix's session probes), in the agent's
	// working folder, before the agent is stopped.
	AfterInit func(ctx context.Context, c *acpclient.Client, workDir string, init *acpclient.InitializeResult)
}

// exitGrace is how long an answer may still arrive after the agent's
// process exited.
const exitGrace = time.Second

// reapGrace bounds the wait for an agent that closed its stdout (not one
// whose output broke a limit, which goes on running) to be reaped:
// it returns at the exit, so only an agent that closed stdout and lingers
// pays it, while a loaded machine (a CI runner) may take more than a
// second to report an exit that already happened (the matrix then said
// -15, stopped, for an agent that exited 0).
const reapGrace = 5 * time.Second

var errExited = errors.New("agent process exited")

// DefaultTimeout is how long an agent has to answer initialize.
const DefaultTimeout = 120 * time.Second

// Outcome is what one handshake found. Exactly one of Init and Failure is
// set: Failure is a sentence saying why there is no usable answer.
type Outcome struct {
	Init       *acpclient.InitializeResult
	Failure    string
	Duration   time.Duration
	StderrTail string
	// NonJSON are stdout lines that were not JSON-RPC (a stdio-rule
	// breach worth a warning).
	NonJSON []string
	Stats   acpclient.Stats
	// Isolation is how the agent was contained (launch.Process.Isolation),
	// empty when it could not be launched.
	Isolation string
	// Limits are the resource limits that held it (launch.Process.Limits).
	Limits string
	// ExitCode is the agent's exit status when its process ended on its
	// own before the handshake stopped it (-1 for a signal), nil when it
	// was still running or never started.
	ExitCode *int
	// Stopped: the agent was still running when the handshake stopped it
	// (the registry's matrix records that as exit code -15, its SIGTERM).
	Stopped bool
}

// Handshake launches spec in a sandbox, sends initialize and waits for the
// answer, then kills the agent's process group. It never returns without
// having reaped the agent.
func Handshake(ctx context.Context, spec launch.Spec, o HandshakeOptions) *Outcome {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	host := o.HostEnv
	if host == nil {
		host = os.Environ()
	}
	home, tmp, work := filepath.Join(o.Sandbox, "home"), filepath.Join(o.Sandbox, "tmp"), filepath.Join(o.Sandbox, "work")
	if err := prepareSandbox(home, tmp, work, o.KeepHome); err != nil {
		return &Outcome{Failure: fmt.Sprintf("could not prepare the sandbox: %v", err)}
	}
	if spec.Dir == "" {
		spec.Dir = work
	}
	start := time.Now()
	p, err := launch.StartWith(spec, launch.SandboxEnv(host, home, tmp, spec.Env), o.Launch)
	if err != nil {
		return &Outcome{Failure: fmt.Sprintf("could not launch %s: %v", spec.Command, err)}
	}
	c := acpclient.New(p.Stdin, p.Stdout, p.Stderr, o.Limits)
	hctx, cancel := context.WithTimeout(ctx, o.Timeout)
	// An agent whose process exits while a child of it keeps stdout open
	// would otherwise be waited for until the timeout: a short grace
	// after the exit is enough for an answer already written.
	hctx, cancelExit := context.WithCancelCause(hctx)
	watchDone := make(chan struct{})
	go func() {
		select {
		case <-p.Exited():
			t := time.NewTimer(exitGrace)
			defer t.Stop()
			select {
			case <-t.C:
				cancelExit(errExited)
			case <-watchDone:
			}
		case <-watchDone:
		}
	}()
	params := o.Params
	if params == nil {
		params = acpclient.InitializeParams(o.Client)
	}
	res, err := c.InitializeWith(hctx, params)
	exited := context.Cause(hctx) == errExited
	close(watchDone)
	cancelExit(nil)
	cancel()
	out := &Outcome{Init: res, Duration: time.Since(start), Isolation: p.Isolation(), Limits: p.Limits()}
	if err == nil && o.AfterInit != nil {
		o.AfterInit(ctx, c, spec.Dir, res)
	}
	if err != nil {
		out.Init = nil
		if exited {
			err = errExited
		}
		// Raw: JSON keeps it exact, and every text printer passes it
		// through safetext.
		out.Failure = explain(ctx, err, p, c, o.Timeout)
	}
	stop(out, p, c)
	return out
}

// stop ends the agent and records how it ended and what it said.
func stop(out *Outcome, p *launch.Process, c *acpclient.Client) {
	// An agent whose stdout closed, or that no longer takes its stdin, is
	// on its way out: let it be reaped, so that its own exit is told apart
	// from the one Stop causes (a write can fail before the read of its
	// stdout sees the end).
	closing := c.WriteFailed()
	select {
	case <-c.Done():
		closing = closing || errors.Is(c.Err(), acpclient.ErrClosed)
	default:
	}
	if closing {
		p.WaitExit(reapGrace)
	}
	select {
	case <-p.Exited():
		code := p.ExitCode()
		out.ExitCode = &code
	default:
		out.Stopped = true
	}
	p.Stop()
	// With every process gone the stderr drain reaches EOF at once (Stop
	// closes our end after a grace, should one have escaped).
	<-c.StderrDone()
	out.StderrTail = c.StderrTail()
	out.NonJSON = c.NonJSONLines()
	out.Stats = c.Stats()
}

// prepareSandbox makes the sandbox's folders. A kept sandbox (--sandbox)
// is reused: HOME and TMP start empty every time, or one run's state would
// leak into the next.
func prepareSandbox(home, tmp, work string, keepHome bool) error {
	for _, d := range []string{home, tmp, work} {
		if d != work && !(keepHome && d == home) {
			if err := os.RemoveAll(d); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	if runtime.GOOS == "windows" {
		// APPDATA and LOCALAPPDATA point here (launch.SandboxEnv); agents
		// expect them to exist.
		for _, d := range []string{filepath.Join(home, "AppData", "Roaming"), filepath.Join(home, "AppData", "Local")} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return err
			}
		}
	}
	return nil
}

// explain turns a failed initialize into a sentence a maintainer can act on.
func explain(ctx context.Context, err error, p *launch.Process, c *acpclient.Client, timeout time.Duration) string {
	var rpcErr *acpclient.RPCError
	var idErr *acpclient.IDTypeError
	switch {
	case errors.As(err, &rpcErr):
		return "initialize returned an " + rpcErr.Error()
	case errors.As(err, &idErr):
		return "the agent " + idErr.Error() + " (JSON-RPC matches ids by type and value: no client takes this answer)"
	case errors.Is(err, acpclient.ErrBadResult):
		return "initialize answer is unusable: " + strings.TrimPrefix(err.Error(), acpclient.ErrBadResult.Error()+": ")
	case errors.Is(err, acpclient.ErrLineTooLong), errors.Is(err, acpclient.ErrTooMuchOutput), errors.Is(err, acpclient.ErrTooDeep):
		msg := c.Err().Error()
		_, after, _ := strings.Cut(msg, ": ")
		return after + " before answering initialize"
	case ctx.Err() != nil:
		return "interrupted before the agent answered initialize"
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer to initialize within " + Seconds(timeout)
	}
	// Stdout closed or stdin refused our request: the agent is exiting or
	// gone. Its exit status and last words are the useful part.
	what := "closed its stdout"
	if p.WaitExit(2 * time.Second) {
		what = p.ExitDescription()
		select {
		case <-c.StderrDone():
		case <-time.After(500 * time.Millisecond):
		}
	}
	msg := "agent " + what + " before answering initialize"
	if hint := p.LimitHint(); hint != "" {
		msg += ": " + hint
	}
	if tail := lastWords(c.StderrTail(), 300); tail != "" {
		msg += "; stderr: " + tail
	}
	return msg
}

// lastWords is the end of a stderr tail on one line, at most n bytes.
func lastWords(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for i := 0; i < len(s) && i < 4; i++ {
		if s[i]&0xC0 != 0x80 {
			return "…" + s[i:]
		}
	}
	return "…" + s
}

// Seconds writes a duration the way people write timeouts: "120s", "1.5s".
func Seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
