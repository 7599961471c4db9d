package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/dirs"
	"github.com/agentclientprotocol/acp-registry-go/internal/platform"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

// Check statuses: only "fail" makes doctor exit 1; a missing runner is a
// warning because agents of other kinds still work.
const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "fail"
	statusSkip = "skip"
)

type check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

type doctorReport struct {
	Checks []check `json:"checks"`
}

func newDoctorCmd(g *globalOpts) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "doctor [--json]",
		Example: `  acp doctor
  acp doctor --json | jq '.checks[] | select(.status != "ok")'`,
		Short: "Check runners (node, npm, uv), directories, registry reachability, platform and installed agents",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep := doctor(cmd.Context(), g)
			if asJSON {
				if err := cli.WriteJSON(g.streams.Out, rep); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(g.streams.Out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "CHECK\tSTATUS\tDETAIL")
				for _, c := range rep.Checks {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Status, safetext.Terminal(c.Detail))
				}
				tw.Flush()
			}
			for _, c := range rep.Checks {
				if c.Status == statusFail {
					return &cli.ExitError{Code: cli.ExitFailure, Msg: "doctor: " + c.Name + ": " + c.Detail}
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func doctor(ctx context.Context, g *globalOpts) *doctorReport {
	rep := &doctorReport{}
	add := func(name, status, detail string) {
		rep.Checks = append(rep.Checks, check{Name: name, Status: status, Detail: detail})
	}

	if p, err := platform.From(g.getenv(platform.EnvOverride)); err != nil {
		add("platform", statusFail, err.Error())
	} else {
		d := string(p)
		if libc := platform.Libc(); libc != "" {
			d += " (" + libc + ")"
			if libc == "musl" {
				add("platform", statusWarn, d+": registry binaries are built for glibc and may not start; prefer --dist npx")
				d = ""
			}
		}
		if g.getenv(platform.EnvOverride) != "" {
			d += ", set by " + platform.EnvOverride
		}
		if d != "" {
			add("platform", statusOK, d)
		}
	}

	runnerChecks(ctx, g.getenv(installer.EnvManagedRuntimes) != "0", add)

	if d, err := g.dataDir(); err != nil {
		add("data dir", statusFail, err.Error())
	} else if err := writable(d); err != nil {
		add("data dir", statusFail, err.Error())
	} else {
		add("data dir", statusOK, d)
	}
	if d, err := g.cacheDir(); err != nil {
		add("cache dir", statusFail, err.Error())
	} else if err := writable(d); err != nil {
		add("cache dir", statusFail, err.Error())
	} else {
		add("cache dir", statusOK, d)
	}

	layoutChecks(add)
	installs(ctx, g, add)

	src := g.registrySource()
	switch {
	case src != "" && !strings.Contains(src, "://"), strings.HasPrefix(src, "file://"):
		idx, _, err := source.Load(ctx, source.Options{Registry: src})
		if err != nil {
			add("registry", statusFail, err.Error())
		} else {
			add(registryCheck(src, idx))
		}
	case g.offline:
		add("registry", statusSkip, "--offline")
	default:
		if src == "" {
			src = source.DefaultURL
		}
		// Asked even when a recent failure is remembered: finding out
		// is doctor's job.
		if idx, err := source.Fetch(ctx, source.Options{Registry: src}); err != nil {
			add("registry", statusWarn, err.Error()+" (acp falls back to the cached or built-in registry)")
		} else {
			add(registryCheck(src, idx))
		}
	}
	return rep
}

// layoutChecks name installs left in the Windows layout from before data
// and cache were apart, and say what becomes of an agent acp run started
// when acp is killed.
func layoutChecks(add func(name, status, detail string)) {
	if d, err := dirs.Default(); err == nil {
		if old := dirs.OldWindowsLayout(d, runtime.GOOS); len(old) > 0 {
			add("old layout", statusWarn, strings.Join(old, ", ")+" hold installs of an acp from before data and cache were apart, which this acp does not see: move them into "+d.Data+", or install the agents again and remove them")
		}
	}
	add("run", statusOK, runLifetime[runtime.GOOS == "windows"])
}

// runLifetime says what becomes of an agent started by acp run when acp
// is killed, on Windows (true) and elsewhere.
var runLifetime = map[bool]string{
	false: "acp run becomes the agent (exec): a signal to acp run reaches the agent itself",
	true:  "acp run holds the agent in a job object that ends with acp: if acp.exe is killed, the agent and all it started end too",
}

// runnerChecks are the node, npm and uv lines: each one's version, or
// that it is missing and how to get it.
func runnerChecks(ctx context.Context, managed bool, add func(name, status, detail string)) {
	for _, r := range []struct{ name, hint string }{
		{"node", "npx agents need Node.js: install it from https://nodejs.org"},
		{"npm", "npx agents need npm, which comes with Node.js: https://nodejs.org"},
		{"uv", "uvx agents need uv: https://docs.astral.sh/uv/getting-started/installation/"},
	} {
		if v, err := programVersion(ctx, r.name); err != nil {
			hint := r.hint
			if managed {
				hint = "acp installs its own when an agent needs it (" + installer.EnvManagedRuntimes + "=0 turns that off); or " + hint
			}
			add(r.name, statusWarn, err.Error()+": "+hint)
		} else {
			add(r.name, statusOK, v)
		}
	}
}

// programVersion runs `name --version` with a timeout; a hung runner must
// not hang doctor.
func programVersion(ctx context.Context, name string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s not found on PATH", name)
	}
	line, err := installer.VersionOf(ctx, path)
	if err != nil {
		return "", err
	}
	return truncate(line, 80) + " (" + path + ")", nil
}

// writable creates dir if needed and proves a file can be written in it.
func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// installs checks every installed agent: its current install's runtime
// (a node older than the package asks for is used, with a warning; none
// at all, or a python that is gone, and the agent cannot start) and every
// install whose files were damaged after it was made.
func installs(ctx context.Context, g *globalOpts, add func(name, status, detail string)) {
	in, err := g.installer()
	if err != nil {
		add("installs", statusFail, err.Error())
		return
	}
	in.Progress = progress.Discard // doctor says it in its own report
	checks, err := in.CheckRuntimes(ctx)
	if err != nil {
		add("installs", statusFail, err.Error())
		return
	}
	for _, c := range checks {
		name := "agent " + c.ID
		what := c.Version + " " + string(c.Distribution)
		switch {
		case c.Status == "missing":
			add(name, statusFail, what+": "+c.Message)
		case c.Status == "old":
			add(name, statusWarn, what+": "+c.Message)
		case c.Runtime != "" && c.Found != "":
			detail := fmt.Sprintf("%s, %s %s (%s)", what, c.Runtime, c.Found, c.Path)
			if c.Requires != "" {
				detail += " satisfies " + c.Requires
			}
			add(name, statusOK, detail)
		default:
			add(name, statusOK, what)
		}
	}
	managedRuntimes(in, add)
	broken, err := in.BrokenInstalls()
	if err != nil {
		add("installs", statusFail, err.Error())
		return
	}
	for _, b := range broken {
		add("agent "+b.ID, statusFail, fmt.Sprintf("%s is broken (%s): run acp install %s --force to repair it, or acp gc to remove it", b.Version, b.Problem, b.ID))
	}
}

// managedRuntimes lists the runtimes acp installed itself, with the
// installs that use them (gc removes the unused ones).
func managedRuntimes(in *installer.Installer, add func(name, status, detail string)) {
	if !in.ManageRuntimes {
		add("managed runtimes", statusSkip, installer.EnvManagedRuntimes+"=0: acp uses only the runtimes on this machine")
	}
	rts, err := in.ManagedRuntimes()
	if err != nil {
		add("managed runtimes", statusFail, err.Error())
		return
	}
	for _, rt := range rts {
		if rt.Problem != "" {
			add("runtime "+rt.Name+" "+rt.Version, statusFail, rt.Path+" is broken ("+rt.Problem+"): acp install --force ID replaces it for an agent that uses it, acp gc removes it")
			continue
		}
		used := "used by " + strings.Join(rt.UsedBy, ", ")
		if len(rt.UsedBy) == 0 {
			used = "used by no install (acp gc removes it)"
		}
		add("runtime "+rt.Name+" "+rt.Version, statusOK, rt.Path+", "+used)
	}
}

// registryCheck is the registry line: how many agents it serves, and a
// warning naming those it holds but leaves out (broken manifests, broken
// rules), which every command also says on stderr.
func registryCheck(src string, idx *registry.Index) (string, string, string) {
	detail := fmt.Sprintf("%s (%d agents)", remote.RedactURL(src), len(idx.Agents))
	if len(idx.Refused) == 0 {
		return "registry", statusOK, detail
	}
	ids := make([]string, len(idx.Refused))
	for i, r := range idx.Refused {
		ids[i] = strconv.Quote(r.ID)
	}
	return "registry", statusWarn, fmt.Sprintf("%s; %d left out: %s (acp list says why)", detail, len(ids), strings.Join(ids, ", "))
}
