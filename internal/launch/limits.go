package launch

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Limits bound what an agent under check may take (probe, verify,
// matrix), so that a fork bomb, a runaway allocation or a descriptor flood
// stops at the agent instead of taking the machine. A zero field is no
// limit. They are applied on Linux, as resource limits (setrlimit) set in
// the agent's process before it runs, inherited by everything it starts:
//
//   - Processes counts the processes and threads of the agent's whole tree
//     (never the supervisor's). It is held by a cgroup (pids.max) where
//     this process may make one; else by the agent's PID namespace's own
//     pid_max (Linux 6.14 and later; a machine with many CPUs may make
//     the count larger: the kernel's least pid_max); else, for a user other than
//     root in user namespaces of its own, by RLIMIT_NPROC. Otherwise it is
//     not applied, and Process.Limits says so. A fork past it fails with
//     EAGAIN.
//   - Memory holds the agent's whole tree where this process may make a
//     cgroup with the memory controller (swap included: an allocation past
//     it is met by the kernel's out-of-memory kill); each process is held
//     too, as everywhere else, by RLIMIT_DATA: private writable memory
//     (heap and anonymous mappings, not code, files or address space merely
//     reserved, which V8 and Go reserve far more of than they use). An
//     allocation past that fails with ENOMEM, which runtimes turn into an
//     "out of memory" exit.
//   - OpenFiles (RLIMIT_NOFILE) is the highest descriptor number plus one,
//     per process; open past it fails with EMFILE.
//   - CPU (RLIMIT_CPU) is CPU time per process, in whole seconds (ParseLimits
//     rounds a fraction up): SIGXCPU at the limit, then SIGKILL a second
//     later for a process that ignores it.
type Limits struct {
	Processes int
	Memory    int64
	OpenFiles int
	CPU       time.Duration
}

// DefaultLimits are roomy for real agents (npx starts npm, then node, each
// with a dozen threads; node's heap may grow to 4 GiB) and far below what
// hurts a CI runner.
func DefaultLimits() Limits {
	return Limits{Processes: 1024, Memory: 4 << 30, OpenFiles: 4096, CPU: 10 * time.Minute}
}

// LimitsEnv is the environment variable that changes the limits, in
// ParseLimits' syntax; a command's --limits flag goes on top of it.
const LimitsEnv = "ACP_AGENT_LIMITS"

// ParseLimits applies s ("processes=256,memory=2GiB,files=1024,cpu=5m";
// "none" or 0 lifts one) to base. Memory takes a number of bytes or KiB,
// MiB, GiB; cpu a Go duration or a number of seconds.
func ParseLimits(s string, base Limits) (Limits, error) {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return base, fmt.Errorf("limit %q: write name=value, e.g. processes=256", part)
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if v == "none" {
			v = "0"
		}
		var err error
		switch k {
		case "processes":
			base.Processes, err = count(v)
		case "files":
			base.OpenFiles, err = count(v)
		case "memory":
			base.Memory, err = size(v)
		case "cpu":
			base.CPU, err = seconds(v)
		default:
			return base, fmt.Errorf("limit %q: unknown name %q; use processes, memory, files or cpu", part, k)
		}
		if err != nil {
			return base, fmt.Errorf("limit %q: %w", part, err)
		}
	}
	return base, nil
}

func count(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 1<<30 {
		return 0, fmt.Errorf("%q is not a count: write a whole number, or none", v)
	}
	return n, nil
}

func size(v string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if s, ok := strings.CutSuffix(v, u.suffix); ok {
			v, mult = s, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > (1<<50)/mult {
		return 0, fmt.Errorf("%q is not a size: write bytes or a number of KiB, MiB or GiB (2GiB), or none", v)
	}
	return n * mult, nil
}

func seconds(v string) (time.Duration, error) {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration: write 90s, 5m or a number of seconds, or none", v)
	}
	// The kernel counts CPU time in whole seconds (RLIMIT_CPU): a
	// fraction is rounded up, here, so that every report says what holds.
	if r := d % time.Second; r != 0 {
		d += time.Second - r
	}
	return d, nil
}

// String is the limits in ParseLimits' syntax.
func (l Limits) String() string {
	part := func(name string, set bool, v string) string {
		if !set {
			return name + "=none"
		}
		return name + "=" + v
	}
	mem := strconv.FormatInt(l.Memory, 10)
	switch {
	case l.Memory%(1<<30) == 0:
		mem = strconv.FormatInt(l.Memory>>30, 10) + "GiB"
	case l.Memory%(1<<20) == 0:
		mem = strconv.FormatInt(l.Memory>>20, 10) + "MiB"
	}
	return strings.Join([]string{
		part("processes", l.Processes > 0, strconv.Itoa(l.Processes)),
		part("memory", l.Memory > 0, mem),
		part("files", l.OpenFiles > 0, strconv.Itoa(l.OpenFiles)),
		part("cpu", l.CPU > 0, l.CPU.String()),
	}, ",")
}

// limitHint names the limit an agent that ended so most likely hit, from
// how it ended (signal, 0 for none; the CPU time it used) and what its
// stderr said (seen), or "" when nothing points at one.
func limitHint(l Limits, signal int, cpu time.Duration, seen uint32) string {
	const change = " (" + LimitsEnv + " or --limits to change it)"
	// SIGXCPU comes at the limit; a process that ignores it (Go's runtime
	// does) gets SIGKILL a second later.
	switch {
	case l.CPU > 0 && (signal == sigXCPU || signal == sigKILL && cpu >= l.CPU):
		return "it used up its CPU time limit of " + l.CPU.String() + change
	case l.OpenFiles > 0 && seen&(1<<saidFiles) != 0:
		return "it hit its limit of " + strconv.Itoa(l.OpenFiles) + " open files" + change
	case l.Processes > 0 && seen&(1<<saidThreads) != 0:
		// Before memory: Java words a thread it may not start as an
		// OutOfMemoryError.
		return "it hit its limit of " + strconv.Itoa(l.Processes) + " processes and threads" + change
	case l.Memory > 0 && seen&(1<<saidMemory) != 0:
		return "it hit its memory limit of " + Limits{Memory: l.Memory}.memString() + change
	case l.Processes > 0 && seen&(1<<saidProcesses) != 0:
		return "it hit its limit of " + strconv.Itoa(l.Processes) + " processes and threads" + change
	}
	return ""
}

// What runtimes print when a limit bites: they word the errors
// differently, but all quote the C library's text for the errno (EMFILE,
// ENOMEM, EAGAIN) or their own out-of-memory line. Lower case.
const (
	saidFiles = iota
	saidMemory
	saidProcesses
	saidThreads
)

var limitWords = [...][]string{
	saidFiles:     {"too many open files", "emfile"},
	saidMemory:    {"out of memory", "cannot allocate memory", "memoryerror", "bad_alloc", "enomem"},
	saidProcesses: {"resource temporarily unavailable", "eagain"},
	// A thread refused: EAGAIN from clone, which runtimes word their way.
	saidThreads: {"failed to create new os thread", "unable to create native thread", "can't start new thread", "failed to spawn thread", "pthread_create"},
}

// stderrWatch passes an agent's stderr through and notes which of
// limitWords went by: a crash dump pushes the line that says why out of
// any tail worth keeping.
type stderrWatch struct {
	io.ReadCloser
	seen  atomic.Uint32
	carry []byte // the end of the last read, for words cut in two
}

func (w *stderrWatch) Read(b []byte) (int, error) {
	n, err := w.ReadCloser.Read(b)
	if n > 0 {
		text := bytes.ToLower(append(w.carry, b[:n]...))
		for i, words := range limitWords {
			for _, word := range words {
				if bytes.Contains(text, []byte(word)) {
					w.seen.Or(1 << i)
				}
			}
		}
		const keep = 40 // longer than any word
		w.carry = append(w.carry[:0], text[max(0, len(text)-keep):]...)
	}
	return n, err
}

func (l Limits) memString() string {
	_, v, _ := strings.Cut(strings.Split(l.String(), ",")[1], "=")
	if !strings.HasSuffix(v, "iB") {
		v += " bytes"
	}
	return v
}

// SIGXCPU's and SIGKILL's numbers on Linux, where limits apply.
const (
	sigXCPU = 24
	sigKILL = 9
)

// ResolveLimits is DefaultLimits, changed by env (the value of LimitsEnv),
// then by flag (a command's --limits); an error names which was wrong.
func ResolveLimits(env, flag string) (Limits, error) {
	l, err := ParseLimits(env, DefaultLimits())
	if err != nil {
		return l, fmt.Errorf("%s: %w", LimitsEnv, err)
	}
	if l, err = ParseLimits(flag, l); err != nil {
		return l, fmt.Errorf("--limits: %w", err)
	}
	return l, nil
}
