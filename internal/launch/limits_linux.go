//go:build linux

package launch

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// limitedConfig travels to limitedArg0 on descriptor 3.
type limitedConfig struct {
	Path   string   `json:"path"`
	Args   []string `json:"args"`
	Env    []string `json:"env"`
	Limits Limits   `json:"limits"`
	// Processes: the agent has a user namespace of its own, where
	// RLIMIT_NPROC counts its own tasks only (Limits).
	Processes bool `json:"processes"`
}

// startLimited starts the agent through limitedArg0 with attr's
// namespaces and stdio, and returns its pid once it runs the agent's
// program: the helper's own failure to set a limit or to exec comes back
// on a second pipe, which a successful exec closes.
func startLimited(cfg shimConfig, attr *syscall.ProcAttr, join func(pid int)) (int, error) {
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer cfgW.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		cfgR.Close()
		return 0, err
	}
	defer errR.Close()
	helper := *attr
	helper.Env = []string{shimEnv + "=" + shimMagic, "GOMAXPROCS=1"}
	helper.Files = []uintptr{0, 1, 2, cfgR.Fd(), errW.Fd()}
	pid, err := syscall.ForkExec(cfg.Self, []string{limitedArg0}, &helper)
	cfgR.Close()
	errW.Close()
	if err != nil {
		return 0, err
	}
	// Into the agent's cgroups before it reads its configuration, so
	// before the agent's program runs.
	join(pid)
	lc := limitedConfig{Path: cfg.Path, Args: cfg.Args, Env: cfg.Env, Limits: *cfg.Limits, Processes: cfg.Namespaces}
	_ = json.NewEncoder(cfgW).Encode(lc)
	cfgW.Close()
	msg, _ := io.ReadAll(io.LimitReader(errR, 4096))
	if len(msg) > 0 {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
		return 0, errors.New(string(msg))
	}
	return pid, nil
}

// runLimited is limitedArg0: set the limits, become the agent.
func runLimited() int {
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	report := os.NewFile(4, "errors")
	fail := func(err error) int {
		_, _ = report.WriteString(err.Error())
		return 127
	}
	var lc limitedConfig
	cf := os.NewFile(3, "config")
	if err := json.NewDecoder(io.LimitReader(cf, 64<<20)).Decode(&lc); err != nil {
		return fail(err)
	}
	cf.Close()
	l := lc.Limits
	// Only ever lowered: a hard limit already below ours stays, since
	// raising it takes a privilege the agent must not need.
	set := func(resource int, soft, hard uint64) error {
		var cur syscall.Rlimit
		if soft == 0 || syscall.Getrlimit(resource, &cur) != nil {
			return nil
		}
		return syscall.Setrlimit(resource, &syscall.Rlimit{Cur: min(soft, cur.Max), Max: min(hard, cur.Max)})
	}
	cpu := uint64((l.CPU + 999_999_999) / 1_000_000_000)
	procs := uint64(l.Processes)
	if !lc.Processes {
		procs = 0
	}
	for _, err := range []error{
		set(unix.RLIMIT_NPROC, procs, procs),
		set(syscall.RLIMIT_NOFILE, uint64(l.OpenFiles), uint64(l.OpenFiles)),
		set(syscall.RLIMIT_CPU, cpu, cpu+1),
		// Memory last: from here on this runtime may not grow.
		set(syscall.RLIMIT_DATA, uint64(l.Memory), uint64(l.Memory)),
	} {
		if err != nil {
			return fail(errors.New("set the agent's resource limits: " + err.Error()))
		}
	}
	err := syscall.Exec(lc.Path, lc.Args, lc.Env)
	return fail(err)
}

// reservedPIDs is the kernel's RESERVED_PIDS: once a PID namespace's pids
// wrap around, new ones are numbered from here, not from 1.
const reservedPIDs = 300

// limitPIDs caps the agent's tasks at about n through this PID namespace's
// own pid_max (Linux 6.14 and later; whose PID 1 we are): then root's
// agents, which RLIMIT_NPROC does not hold, are held too. It returns the
// number applied, 0 for none (an older kernel refuses the write).
//
// The agent's pids are kept in [reservedPIDs, pid_max) from the start (by
// moving the namespace's last pid there), so that n holds the same before
// and after pids wrap around, and the supervisor's own threads, made
// before (reserveThreads), sit below it: the agent can never take the
// pids the supervisor needs. The kernel refuses a pid_max below its least
// (301, or 8 per possible CPU on big machines): n is raised to what it
// accepts, and the caller says so.
func limitPIDs(n int) int {
	if n <= 0 {
		return 0
	}
	const file, last = "/proc/sys/kernel/pid_max", "/proc/sys/kernel/ns_last_pid"
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	was, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	reserveThreads()
	try := func(max int) bool { return os.WriteFile(file, []byte(strconv.Itoa(max)), 0) == nil }
	want := reservedPIDs + n
	if !try(want) {
		// Below the kernel's least, or no pid_max per namespace: find
		// the least it accepts (a few writes), if any.
		lo, hi := want+1, was
		if hi < lo || !try(hi) {
			return 0
		}
		for lo < hi {
			if mid := (lo + hi) / 2; try(mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		if !try(hi) {
			return 0
		}
		want = hi
	}
	if os.WriteFile(last, []byte(strconv.Itoa(reservedPIDs)), 0) != nil {
		try(was)
		return 0
	}
	return want - reservedPIDs
}

// reserveThreads makes the Go runtime start, while pids are plenty, the
// threads the supervisor will ever need at once: it keeps idle threads
// for reuse, and one it could not make once the agent has taken every pid
// would crash the supervisor ("failed to create new OS thread", its dump
// read as the agent's stderr).
func reserveThreads() {
	const n = 6
	var ready, release sync.WaitGroup
	release.Add(1)
	for range n {
		ready.Add(1)
		go func() {
			// A locked goroutine that waits keeps its thread: the
			// others need new ones.
			runtime.LockOSThread()
			ready.Done()
			release.Wait()
			runtime.UnlockOSThread()
		}()
	}
	ready.Wait()
	release.Done()
}
