//go:build linux

package launch

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
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
func startLimited(cfg shimConfig, attr *syscall.ProcAttr) (int, error) {
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

// shimTasks is what the supervisor itself takes of its PID namespace's
// pids: itself and the runtime's threads (GOMAXPROCS=1).
const shimTasks = 8

// limitPIDs caps this PID namespace (whose PID 1 we are) at n tasks of the
// agent's, through the namespace's own pid_max: then root's agents, which
// RLIMIT_NPROC does not hold, are held too. Kernels before 6.14 have one
// pid_max for the machine and refuse the write; so does a value below
// the kernel's least (301).
func limitPIDs(n int) bool {
	if n <= 0 {
		return false
	}
	return os.WriteFile("/proc/sys/kernel/pid_max", []byte(strconv.Itoa(n+shimTasks+1)), 0) == nil
}
