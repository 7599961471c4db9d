//go:build linux

package launch

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// agentCgroup is the control group the supervisor makes for one agent, so
// that Limits.Memory and Limits.Processes bound the agent's whole tree
// rather than each of its processes, and never the supervisor itself
// (which must keep the threads it needs while the agent forks without
// end). Each controller is taken where the machine has it: the cgroup v1
// hierarchy that carries it, else the unified (v2) one. A controller this
// process may not use is left out, and the limit falls back to the
// per-process one (see Process.Limits).
type agentCgroup struct {
	memory, pids string   // the folder holding each limit, "" when not ours
	made         []string // folders we made, removed when the agent is gone
	why          string   // why memory is not limited for the tree
}

const cgroupRoot = "/sys/fs/cgroup"

// newAgentCgroup makes the agent's cgroups for l's memory and process
// limits, as far as this machine and user allow.
func newAgentCgroup(l Limits) *agentCgroup {
	g := &agentCgroup{}
	if l.Memory <= 0 && l.Processes <= 0 {
		return g
	}
	mounts, paths, err := cgroupPlaces()
	if err != nil {
		g.why = err.Error()
		return g
	}
	name := fmt.Sprintf("acp-agent-%016x", rand.Uint64())
	var v2 string // the unified folder, once made
	for _, c := range []struct {
		ctrl  string
		want  bool
		dir   *string
		write func(dir string) error
	}{
		{"memory", l.Memory > 0, &g.memory, func(dir string) error { return limitMemory(dir, l.Memory) }},
		{"pids", l.Processes > 0, &g.pids, func(dir string) error { return writeCgroup(dir, "pids.max", strconv.Itoa(l.Processes)) }},
	} {
		if !c.want {
			continue
		}
		dir, err := g.place(c.ctrl, name, mounts, paths, &v2)
		if err == nil {
			err = c.write(dir)
		}
		if err != nil {
			if c.ctrl == "memory" {
				g.why = err.Error()
			}
			continue
		}
		*c.dir = dir
	}
	return g
}

// place makes (or, for the unified hierarchy, reuses) the folder name for
// controller ctrl.
func (g *agentCgroup) place(ctrl, name string, mounts map[string]mountPoint, paths map[string]string, v2 *string) (string, error) {
	if m, ok := mounts[ctrl]; ok {
		base := m.dir(paths[ctrl])
		dir := filepath.Join(base, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", fmt.Errorf("no cgroup of its own (%s)", firstLine(err))
		}
		g.made = append(g.made, dir)
		return dir, nil
	}
	m, ok := mounts[""]
	if !ok {
		return "", errors.New("no cgroup " + ctrl + " controller on this machine")
	}
	if *v2 == "" {
		// Our own cgroup holds processes (us), so it may not hand
		// controllers to a child of its own; a sibling under a parent
		// that hands them out works (a delegated systemd slice, a
		// container's root).
		base := m.dir(paths[""])
		parents := []string{base}
		if p := filepath.Dir(base); base != m.mount && strings.HasPrefix(p, m.mount) {
			parents = append(parents, p)
		}
		for _, p := range parents {
			if !hasWord(readCgroup(p, "cgroup.subtree_control"), ctrl) {
				continue
			}
			dir := filepath.Join(p, name)
			if os.Mkdir(dir, 0o755) == nil {
				g.made = append(g.made, dir)
				*v2 = dir
				break
			}
		}
		if *v2 == "" {
			return "", fmt.Errorf("no cgroup this user may make with the %s controller", ctrl)
		}
	}
	if !hasWord(readCgroup(*v2, "cgroup.controllers"), ctrl) {
		return "", fmt.Errorf("no cgroup this user may make with the %s controller", ctrl)
	}
	return *v2, nil
}

// limitMemory bounds a cgroup's memory, swap included: swap would let the
// tree hold more than the limit.
func limitMemory(dir string, n int64) error {
	v := strconv.FormatInt(n, 10)
	if _, err := os.Stat(filepath.Join(dir, "memory.max")); err == nil {
		if err := writeCgroup(dir, "memory.max", v); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(dir, "memory.swap.max")); err == nil {
			return writeCgroup(dir, "memory.swap.max", "0")
		}
		return nil
	}
	if err := writeCgroup(dir, "memory.limit_in_bytes", v); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "memory.memsw.limit_in_bytes")); err == nil {
		return writeCgroup(dir, "memory.memsw.limit_in_bytes", v)
	}
	return nil
}

// join moves process pid (the agent, before it runs its program) into the
// cgroups; a limit whose cgroup refuses it is left to the per-process one.
func (g *agentCgroup) join(pid int) {
	for _, dir := range []*string{&g.memory, &g.pids} {
		if *dir == "" {
			continue
		}
		if err := writeCgroup(*dir, "cgroup.procs", strconv.Itoa(pid)); err != nil {
			if dir == &g.memory {
				g.why = "its cgroup refused it (" + firstLine(err) + ")"
			}
			*dir = ""
		}
	}
}

// hit reports which of the tree's limits the kernel enforced: an
// out-of-memory kill, a fork refused at pids.max.
func (g *agentCgroup) hit() (memory, processes bool) {
	if g.memory != "" {
		ev := readCgroup(g.memory, "memory.events")
		if ev == "" {
			ev = readCgroup(g.memory, "memory.oom_control")
		}
		memory = counter(ev, "oom_kill") > 0 || counter(ev, "oom") > 0
	}
	if g.pids != "" {
		processes = counter(readCgroup(g.pids, "pids.events"), "max") > 0
	}
	return memory, processes
}

// remove deletes the folders, empty once the agent's tree is reaped.
func (g *agentCgroup) remove() {
	for i := len(g.made) - 1; i >= 0; i-- {
		_ = os.Remove(g.made[i])
	}
}

// mountPoint is where a cgroup hierarchy is mounted, and which of its
// folders that is (a container may see only its own subtree).
type mountPoint struct{ mount, root string }

func (m mountPoint) dir(path string) string {
	if m.root != "/" {
		path = strings.TrimPrefix(path, m.root)
	}
	return filepath.Join(m.mount, path)
}

// cgroupPlaces reads where each controller's hierarchy is mounted (v1: by
// controller name; v2: "") and this process's folder in each.
func cgroupPlaces() (map[string]mountPoint, map[string]string, error) {
	mounts := map[string]mountPoint{}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, nil, errors.New("no /proc/self/mountinfo")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		a, b := strings.Fields(pre), strings.Fields(post)
		if !ok || len(a) < 5 || len(b) < 3 || !strings.HasPrefix(a[4], cgroupRoot) {
			continue
		}
		m := mountPoint{mount: a[4], root: a[3]}
		switch b[0] {
		case "cgroup2":
			mounts[""] = m
		case "cgroup":
			for _, opt := range strings.Split(b[2], ",") {
				if opt == "memory" || opt == "pids" {
					mounts[opt] = m
				}
			}
		}
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, nil, errors.New("no /proc/self/cgroup")
	}
	paths := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			paths[""] = parts[2]
		}
		for _, c := range strings.Split(parts[1], ",") {
			paths[c] = parts[2]
		}
	}
	for k := range mounts {
		if _, ok := paths[k]; !ok {
			delete(mounts, k)
		}
	}
	return mounts, paths, nil
}

func writeCgroup(dir, file, value string) error {
	return os.WriteFile(filepath.Join(dir, file), []byte(value), 0)
}

func readCgroup(dir, file string) string {
	data, _ := os.ReadFile(filepath.Join(dir, file))
	return string(data)
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// counter reads "name N" from a cgroup's key-value file.
func counter(s, name string) int64 {
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == name {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
