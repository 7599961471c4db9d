//go:build linux

package launch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The supervisor ("shim") is this executable, re-run. Supervise, called
// first in main, recognises it by its argv[0] and an environment variable
// together.
const (
	shimArg0  = "acp-agent-supervisor"
	shimEnv   = "ACP_LAUNCH_SUPERVISOR"
	shimMagic = "v1"
)

// limitedArg0 is the same executable run once more by the supervisor, to
// set the agent's resource limits in the process that then becomes the
// agent (execve keeps them), so that not one instruction of the agent
// runs without them.
const limitedArg0 = "acp-agent-limits"

// hooked: this program's main called Supervise, so this executable, re-run
// as shimArg0, is a supervisor (any other program would run its own main).
var hooked atomic.Bool

func supervise() (int, bool) {
	hooked.Store(true)
	if len(os.Args) == 1 && os.Getenv(shimEnv) == shimMagic {
		switch os.Args[0] {
		case shimArg0:
			return runShim(), true
		case limitedArg0:
			return runLimited(), true
		}
	}
	return 0, false
}

// shimConfig travels to the supervisor on descriptor 3, so that the
// agent's environment never applies to the supervisor itself (a
// manifest's LD_PRELOAD or GODEBUG would).
type shimConfig struct {
	Path       string   `json:"path"`
	Args       []string `json:"args"`
	Env        []string `json:"env"`
	Foreground bool     `json:"foreground"`
	// Namespaces: the supervisor runs as root of a new user, PID and mount
	// namespace; UID and GID are the caller's, which the agent gets back
	// in a nested user namespace.
	Namespaces bool `json:"namespaces"`
	UID        int  `json:"uid"`
	GID        int  `json:"gid"`
	// Limits, when set, are applied through limitedArg0 (Self).
	Limits    *Limits `json:"limits,omitempty"`
	Self      string  `json:"self,omitempty"`
	NoCgroups bool    `json:"noCgroups,omitempty"`
}

// shimEvent is one line the supervisor writes on descriptor 4.
type shimEvent struct {
	Started     bool   `json:"started,omitempty"`
	PrivateProc bool   `json:"privateProc,omitempty"`
	Error       string `json:"error,omitempty"`
	Exited      bool   `json:"exited,omitempty"`
	Code        int    `json:"code,omitempty"`
	Signal      int    `json:"signal,omitempty"`
	// CPUMillis is the CPU time the agent's own process used (the
	// kernel's count, which RLIMIT_CPU is held to).
	CPUMillis int64 `json:"cpuMillis,omitempty"`
	// Processes is how many tasks the agent's tree may have, held by
	// ProcessesBy: "cgroup" (pids.max) or "pid_max" (its PID namespace's,
	// Linux 6.14 and later; raised to the kernel's least). "" when neither
	// holds it.
	Processes   int    `json:"processes,omitempty"`
	ProcessesBy string `json:"processesBy,omitempty"`
	// MemoryTree: Limits.Memory holds the agent's whole tree (a cgroup);
	// else NoTree says why not.
	MemoryTree bool   `json:"memoryTree,omitempty"`
	NoTree     string `json:"noTree,omitempty"`
	// HitMemory, HitProcesses (with Exited): the kernel enforced the
	// tree's limit (an out-of-memory kill, a fork refused).
	HitMemory    bool `json:"hitMemory,omitempty"`
	HitProcesses bool `json:"hitProcesses,omitempty"`
}

// nsRefused remembers that this machine refuses user namespaces (a
// sysctl, a container's seccomp profile, AppArmor), so every later start
// goes straight to the fallback.
var nsRefused atomic.Bool

var protectOnce sync.Once

// protectSelf makes this process non-dumpable: its /proc entries (environ,
// fd/, mem) then belong to root and ptrace is refused, so an agent running
// as the same user, outside a private /proc, cannot read our environment
// or write into our stdout. Root agents are not stopped by it.
//
// A non-dumpable process cannot give a child a user namespace (the
// child's uid_map becomes root's to write), so from then on every agent of
// this process takes the fallback.
func protectSelf() {
	protectOnce.Do(func() {
		nsRefused.Store(true)
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	})
}

type contained struct {
	limits     Limits    // as applied
	asked      Limits    // as asked
	tree       shimEvent // how the limits hold: Processes, ProcessesBy, MemoryTree, NoTree
	cmd        *exec.Cmd
	status     *bufio.Reader
	statusFile *os.File
	foreground bool
	ns         bool
	proc       bool
	direct     bool // no supervisor: see startDirect

	err   error
	agent *shimEvent // the agent's exit, as the supervisor saw it
}

// selfExe is the path that runs this executable again, read before
// protectSelf: once we are non-dumpable, a child in a new user namespace
// may no longer follow /proc/self/exe. /proc/self/exe stays the fallback
// (it works even when the file was replaced on disk by an upgrade).
var selfExe = sync.OnceValue(func() string {
	if p, err := os.Executable(); err == nil && !strings.HasSuffix(p, " (deleted)") {
		return p
	}
	return "/proc/self/exe"
})

func startContained(path string, spec Spec, env []string, stdin io.Reader, stdout, stderr io.Writer, a attachment, o Options) (*contained, error) {
	if !hooked.Load() {
		return startDirect(path, spec, env, stdin, stdout, stderr, a)
	}
	selfExe()
	cfg := shimConfig{Path: path, Args: append([]string{spec.Command}, spec.Args...), Env: env, Foreground: a == attached}
	if a == detached {
		l := o.limits()
		cfg.Limits, cfg.Self, cfg.NoCgroups = &l, selfExe(), o.NoCgroups
	}
	if !o.NoNamespaces && a == detached && !nsRefused.Load() {
		c, err := startShim(cfg, spec.Dir, stdin, stdout, stderr, newNamespaces)
		if err == nil {
			// Root's tasks ignore RLIMIT_NPROC whatever the namespace:
			// only a cgroup or the namespace's pid_max holds them.
			nproc := nprocHolds
			if os.Getuid() == 0 {
				nproc = nprocIgnored
			}
			c.setLimits(*cfg.Limits, nproc)
			if !c.proc {
				// A PID namespace but the host's /proc (AppArmor lets
				// the namespace be made but not the mount).
				protectSelf()
			}
			return c, nil
		}
		if isAgentStart(err) {
			return nil, err
		}
		nsRefused.Store(true)
	}
	if a == detached {
		protectSelf()
	}
	c, err := startShim(cfg, spec.Dir, stdin, stdout, stderr, hostNamespaces)
	if err == nil && cfg.Limits != nil {
		// Without a user namespace of its own RLIMIT_NPROC would count
		// all of the user's processes (Limits): only a cgroup holds them.
		c.setLimits(*cfg.Limits, nprocIgnored)
	}
	if err == nil || isAgentStart(err) {
		return c, err
	}
	// The supervisor itself could not run (this executable on a noexec
	// mount, say): the agent alone, in a session of its own, is still
	// better than no agent.
	return startDirect(path, spec, env, stdin, stdout, stderr, a)
}

// agentStartError is the agent's own start failing, as the supervisor
// reports it: not the supervisor's failure, so nothing to retry.
type agentStartError struct{ msg string }

func (e *agentStartError) Error() string { return e.msg }

func isAgentStart(err error) bool {
	var e *agentStartError
	return errors.As(err, &e)
}

// startDirect runs the agent without a supervisor: Stop then reaches only
// its session's process group.
func startDirect(path string, spec Spec, env []string, stdin io.Reader, stdout, stderr io.Writer, a attachment) (*contained, error) {
	cmd := exec.Command(path, spec.Args...)
	cmd.Args[0] = spec.Command
	cmd.Env, cmd.Dir = env, spec.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if a == detached {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	closeInheritedOnExec()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &contained{cmd: cmd, foreground: a == attached, direct: true}, nil
}

// namespaces says whether the supervisor gets a user, PID and mount
// namespace of its own.
type namespaces int

const (
	hostNamespaces namespaces = iota
	newNamespaces
)

func startShim(cfg shimConfig, dir string, stdin io.Reader, stdout, stderr io.Writer, nss namespaces) (*contained, error) {
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stR, stW, err := os.Pipe()
	if err != nil {
		cfgR.Close()
		cfgW.Close()
		return nil, err
	}
	// GOMAXPROCS=1: the supervisor mostly waits; with one P the Go
	// runtime starts fewer threads, which verify pays ten times at once
	// on a two-core machine. The agent's environment is cfg.Env, not this.
	cmd := &exec.Cmd{
		Path: selfExe(), Args: []string{shimArg0}, Env: []string{shimEnv + "=" + shimMagic, "GOMAXPROCS=1"},
		Dir: dir, Stdin: stdin, Stdout: stdout, Stderr: stderr,
		ExtraFiles: []*os.File{cfgR, stW},
	}
	// Pdeathsig: if we die, the supervisor still removes the agent's tree.
	attr := &syscall.SysProcAttr{Setsid: !cfg.Foreground, Pdeathsig: syscall.SIGTERM}
	if nss == newNamespaces {
		cfg.Namespaces, cfg.UID, cfg.GID = true, os.Getuid(), os.Getgid()
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: cfg.UID, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: cfg.GID, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	cmd.SysProcAttr = attr
	err = cmd.Start()
	cfgR.Close()
	stW.Close()
	if err != nil {
		cfgW.Close()
		stR.Close()
		return nil, err
	}
	go func() {
		_ = json.NewEncoder(cfgW).Encode(cfg)
		cfgW.Close()
	}()
	c := &contained{cmd: cmd, status: bufio.NewReader(stR), statusFile: stR, foreground: cfg.Foreground, ns: nss == newNamespaces}
	var first shimEvent
	line, rerr := c.status.ReadBytes('\n')
	if rerr != nil || json.Unmarshal(line, &first) != nil || (!first.Started && first.Error == "") {
		c.wait()
		return nil, fmt.Errorf("the agent's supervisor %s before starting it", c.describe())
	}
	if first.Error != "" {
		c.wait()
		return nil, &agentStartError{first.Error}
	}
	c.proc = first.PrivateProc
	c.tree = first
	return c, nil
}

// nprocRule says whether RLIMIT_NPROC holds the agent's tasks: it does in
// a user namespace of its own, for a user other than root.
type nprocRule int

const (
	nprocIgnored nprocRule = iota
	nprocHolds
)

// setLimits records the limits asked and how they hold (c.tree).
func (c *contained) setLimits(l Limits, nproc nprocRule) {
	c.asked, c.limits = l, l
	switch {
	case c.tree.ProcessesBy != "":
		// RLIMIT_NPROC holds too where it can: the lower one counts.
		if c.limits.Processes = c.tree.Processes; nproc == nprocHolds {
			c.limits.Processes = min(l.Processes, c.tree.Processes)
		}
	case nproc == nprocIgnored:
		c.limits.Processes = 0
	}
}

// limitsText says which limits hold the agent and how (Process.Limits).
func (c *contained) limitsText() string {
	if c.direct {
		return "none (started without the supervisor)"
	}
	l, a := c.limits, c.asked
	var parts []string
	switch {
	case a.Processes <= 0:
		parts = append(parts, "processes=none")
	case l.Processes <= 0:
		parts = append(parts, "processes=none (asked "+strconv.Itoa(a.Processes)+": no cgroup, user namespace or pid_max of its own for it here)")
	default:
		by := "its user namespace"
		switch c.tree.ProcessesBy {
		case "cgroup":
			by = "a cgroup"
		case "pid_max":
			by = "its PID namespace's pid_max"
		}
		p := "processes=" + strconv.Itoa(l.Processes) + " for its whole tree (" + by + ")"
		if l.Processes > a.Processes {
			p += ", raised from " + strconv.Itoa(a.Processes) + ": the least this kernel accepts"
		}
		parts = append(parts, p)
	}
	switch {
	case l.Memory <= 0:
		parts = append(parts, "memory=none")
	case c.tree.MemoryTree:
		parts = append(parts, "memory="+l.memString()+" for its whole tree (a cgroup)")
	default:
		why := c.tree.NoTree
		if why == "" {
			why = "no cgroup"
		}
		parts = append(parts, "memory="+l.memString()+" per process ("+why+")")
	}
	if l.OpenFiles > 0 {
		parts = append(parts, "files="+strconv.Itoa(l.OpenFiles)+" per process")
	} else {
		parts = append(parts, "files=none")
	}
	if l.CPU > 0 {
		parts = append(parts, "cpu="+l.CPU.String()+" per process")
	} else {
		parts = append(parts, "cpu=none")
	}
	return strings.Join(parts, ", ")
}

// wait reads the supervisor's last word (the agent's exit) and reaps it.
func (c *contained) wait() {
	if c.direct {
		c.err = c.cmd.Wait()
		c.kill()
		return
	}
	for {
		line, err := c.status.ReadBytes('\n')
		var ev shimEvent
		if len(line) > 0 && json.Unmarshal(line, &ev) == nil && ev.Exited {
			c.agent = &ev
		}
		if err != nil {
			break
		}
	}
	c.err = c.cmd.Wait()
	c.statusFile.Close()
}

func (c *contained) applied() Limits { return c.limits }

// signal is the signal that ended the agent, 0 for none, and the CPU
// time it had used.
func (c *contained) signal() (int, time.Duration) {
	if c.agent != nil {
		return c.agent.Signal, time.Duration(c.agent.CPUMillis) * time.Millisecond
	}
	return 0, 0
}

// hit is which of the tree's limits the kernel enforced.
func (c *contained) hit() (memory, processes bool) {
	if c.agent != nil {
		return c.agent.HitMemory, c.agent.HitProcesses
	}
	return false, false
}

func (c *contained) waitErr() error {
	if c.agent != nil {
		return nil
	}
	return c.err
}

func (c *contained) describe() string {
	if a := c.agent; a != nil {
		if a.Signal != 0 {
			return "was killed by signal " + syscall.Signal(a.Signal).String()
		}
		return fmt.Sprintf("exited with status %d", a.Code)
	}
	st := c.cmd.ProcessState
	if st == nil {
		if c.err != nil {
			return c.err.Error()
		}
		return "is still running"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was killed by signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exited with status %d", st.ExitCode())
}

func (c *contained) code() int {
	if a := c.agent; a != nil {
		if a.Signal != 0 {
			return -1
		}
		return a.Code
	}
	if c.cmd.ProcessState == nil {
		return -1
	}
	return c.cmd.ProcessState.ExitCode()
}

func (c *contained) isolation() string {
	switch {
	case c.direct:
		return "session"
	case c.ns && c.proc:
		return "private PID namespace and /proc"
	case c.ns:
		return "private PID namespace"
	}
	return "supervised session"
}

// terminate asks the supervisor to remove the agent's whole tree.
func (c *contained) terminate() {
	if c.direct {
		c.kill()
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
}

// kill is the last resort, for a supervisor that does not answer: its
// session, then itself (in a PID namespace, the kernel then kills the rest).
func (c *contained) kill() {
	if !c.foreground {
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = c.cmd.Process.Kill()
}

// runShim is the supervisor: it starts the agent, forwards nothing (the
// agent has our stdio), reaps every process the agent leaves behind, and
// when the agent exits or we are told to stop, kills all of them before
// reporting the agent's exit and exiting.
func runShim() int {
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	// The agent may not rewrite our report through /proc/1/fd/4.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	report := os.NewFile(4, "status")
	say := func(ev shimEvent) {
		data, _ := json.Marshal(ev)
		_, _ = report.Write(append(data, '\n'))
	}
	var cfg shimConfig
	cf := os.NewFile(3, "config")
	if err := json.NewDecoder(io.LimitReader(cf, 64<<20)).Decode(&cfg); err != nil {
		say(shimEvent{Error: "read the launch configuration: " + err.Error()})
		return 127
	}
	cf.Close()
	pid1 := cfg.Namespaces && os.Getpid() == 1
	privateProc := shimProc(pid1)
	started := shimEvent{Started: true, PrivateProc: privateProc}
	// The tree's limits are the agent's alone: a cgroup the supervisor
	// is not in, else pids the supervisor's threads do not need.
	g := &agentCgroup{}
	if l := cfg.Limits; l != nil {
		g = &agentCgroup{why: "cgroups turned off"}
		if !cfg.NoCgroups {
			g = newAgentCgroup(*l)
		}
		defer g.remove()
		if g.pids == "" && pid1 {
			if n := limitPIDs(l.Processes); n > 0 {
				started.Processes, started.ProcessesBy = n, "pid_max"
			}
		}
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT)

	agent, err := forkAgent(cfg, g.join)
	if err != nil {
		say(shimEvent{Error: err.Error()})
		return 127
	}
	if g.pids != "" {
		started.Processes, started.ProcessesBy = cfg.Limits.Processes, "cgroup"
	}
	started.MemoryTree, started.NoTree = g.memory != "", g.why
	say(started)
	r := reapAll(agent)
	ws, got := r.untilEnd(cfg, sigs)
	r.killUntilGone(pid1, sigs)
	select {
	case w := <-r.agentWS:
		ws, got = w, true
	default:
	}
	if !got {
		ws = syscall.WaitStatus(syscall.SIGKILL) // killed on our orders
	}
	ev := shimEvent{Exited: true, Code: ws.ExitStatus(), CPUMillis: r.agentCPU.Load()}
	ev.HitMemory, ev.HitProcesses = g.hit()
	if ws.Signaled() {
		ev.Code, ev.Signal = -1, int(ws.Signal())
	}
	say(ev)
	if ev.Signal != 0 {
		return 128 + ev.Signal
	}
	return ev.Code
}

// shimProc readies the supervisor's process tree: as PID 1 of its own
// namespace, a /proc that shows only that namespace (true when mounted);
// otherwise it becomes the subreaper of the agent's orphans.
func shimProc(pid1 bool) (privateProc bool) {
	if !pid1 {
		// Orphans of the agent (double forks, setsid daemons) become our
		// children instead of init's.
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
		return false
	}
	// Our mounts are our own (CLONE_NEWNS): make sure none propagates
	// back, then a /proc that shows only this PID namespace.
	return syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, "") == nil &&
		syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "") == nil
}

// reaper waits for every child of the supervisor: the agent's status and
// CPU time arrive on agentWS and agentCPU, and allGone closes when no
// child is left.
type reaper struct {
	agentWS  chan syscall.WaitStatus
	agentCPU atomic.Int64
	allGone  chan struct{}
}

func reapAll(agent int) *reaper {
	r := &reaper{agentWS: make(chan syscall.WaitStatus, 1), allGone: make(chan struct{})}
	go func() {
		defer close(r.allGone)
		for {
			var ws syscall.WaitStatus
			var ru syscall.Rusage
			pid, err := syscall.Wait4(-1, &ws, 0, &ru)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				return // ECHILD: nothing left
			}
			if pid == agent {
				r.agentCPU.Store((ru.Utime.Nano() + ru.Stime.Nano()) / 1e6)
				r.agentWS <- ws
			}
		}
	}()
	return r
}

// untilEnd waits for the agent's exit or our order to stop; got says
// whether ws is the agent's status.
func (r *reaper) untilEnd(cfg shimConfig, sigs <-chan os.Signal) (ws syscall.WaitStatus, got bool) {
	for {
		select {
		case ws = <-r.agentWS:
			return ws, true
		case s := <-sigs:
			if cfg.Foreground && (s == syscall.SIGINT || s == syscall.SIGQUIT) {
				continue // the agent got it from the terminal too; its call
			}
			return ws, false
		}
	}
}

// killUntilGone kills every process the agent left, again and again
// (whatever forked while we were killing), until none is left.
func (r *reaper) killUntilGone(pid1 bool, sigs <-chan os.Signal) {
	killAll := func() {
		if pid1 {
			_ = syscall.Kill(-1, syscall.SIGKILL)
			return
		}
		for _, pid := range descendants(os.Getpid()) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	killAll()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-r.allGone:
			return
		case <-tick.C:
			killAll()
		case <-sigs:
		}
	}
}

// forkAgent starts the agent for the supervisor: in a nested user
// namespace when we have one (falling back without it), with descriptors
// 0-2 only, and through limitedArg0 when it has limits.
func forkAgent(cfg shimConfig, join func(pid int)) (int, error) {
	sys := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if cfg.Namespaces {
		// A nested user namespace gives the agent back the caller's ids
		// (not root, which npm, git and agents treat differently) and
		// locks the mounts it inherits: even as root there it cannot
		// unmount our /proc to reach the host's beneath.
		sys.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: cfg.UID, HostID: 0, Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: cfg.GID, HostID: 0, Size: 1}}
		sys.GidMappingsEnableSetgroups = false
	}
	// What our caller left open without close-on-exec came to us through
	// exec; it stops here.
	closeInheritedOnExec()
	attr := &syscall.ProcAttr{Env: cfg.Env, Files: []uintptr{0, 1, 2}, Sys: sys}
	start := syscall.ForkExec
	if cfg.Limits != nil {
		start = func(string, []string, *syscall.ProcAttr) (int, error) { return startLimited(cfg, attr, join) }
	}
	agent, err := start(cfg.Path, cfg.Args, attr)
	if err != nil && sys.Cloneflags != 0 {
		sys.Cloneflags, sys.UidMappings, sys.GidMappings = 0, nil, nil
		agent, err = start(cfg.Path, cfg.Args, attr)
	}
	return agent, err
}

// descendants lists every process below root, from /proc (children
// before their parents do not matter: each is killed).
func descendants(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	kids := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name is in parentheses and may hold anything,
		// parentheses and spaces included: read after the last ')'.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		kids[ppid] = append(kids[ppid], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, k := range kids[p] {
			out = append(out, k)
			queue = append(queue, k)
		}
	}
	return out
}
