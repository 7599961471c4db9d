package installer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// GCReport says exactly what gc or uninstall removed, with sizes, and what
// it kept because a running process uses it.
type GCReport struct {
	Removed []Removed `json:"removed"`
	Kept    []Kept    `json:"kept"`
}

// Removed is one thing gc or uninstall deleted.
type Removed struct {
	Agent string `json:"agent"`
	// Version is set for an install (complete or not), empty for leftovers.
	Version string `json:"version,omitempty"`
	Path    string `json:"path"`
	Bytes   int64  `json:"bytes"`
	// Why: "older version", "uninstalled", "broken install: …",
	// "interrupted install", "partial download", "failed delete", …
	Why string `json:"why"`
}

// Kept is an install gc or uninstall left in place besides the current
// one: because it is in use, or (gc) as the previous version, kept for
// rollback.
type Kept struct {
	Agent   string `json:"agent"`
	Version string `json:"version"`
	Path    string `json:"path"`
	// Why names the user: "in use by process 1234 (node)", "in use by acp
	// run", a recent resolve where the OS cannot tell, or WhyRollback.
	Why string `json:"why"`
	// Rollback is set for the previous version, the one Rollback would
	// make current.
	Rollback bool `json:"rollback,omitempty"`
}

// Why of the previous version gc keeps, and of the versions it removes
// besides broken and incomplete ones.
const (
	WhyRollback     = "the previous version, kept for rollback"
	WhyOlder        = "older than the previous version kept for rollback"
	WhyNewer        = "newer than the current version (left by a rollback)"
	whyUninstalled  = "uninstalled"
	whyNoReceipt    = "incomplete install (no readable receipt)"
	whyBrokenPrefix = "broken install: "
)

// Bytes is the total size of what was removed.
func (r *GCReport) Bytes() int64 {
	var n int64
	for _, x := range r.Removed {
		n += x.Bytes
	}
	return n
}

func newReport() *GCReport { return &GCReport{Removed: []Removed{}, Kept: []Kept{}} }

// DefaultRecentUse is how long a resolved version counts as in use where
// the OS cannot tell which files running processes use.
const DefaultRecentUse = 3 * 24 * time.Hour

// GCAll tidies every agent: removes versions other than the current one
// and the previous one (the newest complete install older than the
// current, kept so that Rollback can return to it), unless a running
// process uses them (see Force), and every leftover of
// interrupted installs and failed deletes, first installs included (an
// agent folder with no complete install goes entirely). The report lists
// each removal with its size. An error after some removals still returns
// the report of what was done.
func (in *Installer) GCAll(ctx context.Context) (*GCReport, error) {
	rep := newReport()
	agents := filepath.Join(in.Root, "agents")
	entries, err := os.ReadDir(agents)
	if errors.Is(err, fs.ErrNotExist) {
		return rep, in.gcRuntimes(ctx, rep)
	}
	if err != nil {
		return rep, fmt.Errorf("gc: %w", err)
	}
	procs := in.processes()
	var first error
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(agents, name)
		switch {
		case strings.HasPrefix(name, ".rm-"):
			// An uninstall renamed the agent aside, then failed to delete it.
			first = firstErr(first, in.removeLeftover(ctx, rep, "", p, "failed delete"))
		case e.IsDir() && registry.ValidID(name):
			first = firstErr(first, in.sweep(ctx, name, false, procs, rep))
		}
		if ctx.Err() != nil {
			return rep, stopped(ctx)
		}
	}
	// After the installs: a runtime only an old version used goes with it.
	first = firstErr(first, in.gcRuntimes(ctx, rep))
	return rep, first
}

// GCAgent is GCAll for one agent.
func (in *Installer) GCAgent(ctx context.Context, id string) (*GCReport, error) {
	if err := checkIDVersion(id, ""); err != nil {
		return nil, err
	}
	rep := newReport()
	return rep, in.sweep(ctx, id, false, in.processes(), rep)
}

// Remove uninstalls id: every version and leftover goes, except a version
// a running process uses (kept and named in the error, wrapping ErrInUse)
// unless Force. ErrNotInstalled when there is nothing of id.
func (in *Installer) Remove(ctx context.Context, id string) (*GCReport, error) {
	if err := checkIDVersion(id, ""); err != nil {
		return nil, err
	}
	rep := newReport()
	err := in.sweep(ctx, id, true, in.processes(), rep)
	if err == nil && len(rep.Kept) > 0 {
		var what []string
		for _, k := range rep.Kept {
			what = append(what, k.Version+" ("+k.Why+")")
		}
		err = errorf(ErrInUse, "uninstall %s: kept %s: close it and run acp uninstall %s again, or pass --force", id, strings.Join(what, ", "), id)
	}
	return rep, err
}

// Uninstall removes every installed version of id (Remove without the
// report).
func (in *Installer) Uninstall(id string) error {
	_, err := in.Remove(context.Background(), id)
	return err
}

// GC removes every installed version of id except the current one and
// the previous one kept for rollback, and leftovers of interrupted
// installs. It returns the complete versions removed, newest first
// (GCAgent says more).
func (in *Installer) GC(id string) ([]string, error) {
	rep, err := in.GCAgent(context.Background(), id)
	removed := []string{}
	if rep != nil {
		for _, r := range rep.Removed {
			if r.Why == WhyOlder || r.Why == WhyNewer {
				removed = append(removed, r.Version)
			}
		}
	}
	sort.Slice(removed, func(i, j int) bool { return newerVersion(removed[i], removed[j]) })
	return removed, err
}

// sweep does gc (or, with uninstall, removal) of one agent under its lock.
func (in *Installer) sweep(ctx context.Context, id string, uninstall bool, procs []procUse, rep *GCReport) error {
	what := "gc " + id
	if uninstall {
		what = "uninstall " + id
	}
	dir := in.agentDir(id)
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if uninstall {
			return errorf(ErrNotInstalled, "%s: it is not installed", what)
		}
		return nil
	}
	unlock, err := in.lock(ctx, id)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer unlock()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	keep, prev := "", ""
	keepTools := map[string]bool{}
	if !uninstall {
		if c, err := in.Current(id); err == nil {
			keep = c.Version
		} else if rs, _ := in.Installed(id); len(rs) > 0 {
			keep = rs[0].Version // the marker names a broken install: keep the best left
		}
		if p := in.previous(id, keep); p != nil {
			prev = p.Version
		}
	}
	var first error
	complete := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !e.IsDir() || !safeVersion(name) {
			continue
		}
		p := filepath.Join(dir, name)
		r, rerr := readReceipt(p)
		tool := ""
		if rerr == nil && r.ToolDir != "" && strings.HasPrefix(r.ToolDir, ".uv-") {
			tool = filepath.Join(dir, r.ToolDir)
		}
		if name == keep {
			complete++
			if tool != "" {
				keepTools[r.ToolDir] = true
			}
			continue
		}
		var why string
		switch {
		case rerr != nil:
			why = whyNoReceipt
		case r.Check() != nil:
			why = whyBrokenPrefix + r.Check().Error()
		case uninstall:
			why = whyUninstalled
		case name == prev:
			rep.Kept = append(rep.Kept, Kept{Agent: id, Version: name, Path: p, Why: WhyRollback, Rollback: true})
			complete++
			if tool != "" {
				keepTools[r.ToolDir] = true
			}
			continue
		case newerVersion(name, keep):
			why = WhyNewer // left by a rollback
		default:
			why = WhyOlder
		}
		if who := in.inUse(id, name, procs, p, tool); who != "" && !in.Force {
			rep.Kept = append(rep.Kept, Kept{Agent: id, Version: name, Path: p, Why: who})
			complete++
			if tool != "" {
				keepTools[r.ToolDir] = true
			}
			continue
		}
		size := dirSize(p) + dirSize(tool)
		if err := removeDir(ctx, p); err != nil {
			first = firstErr(first, deleteFailed(what, p, err))
			continue
		}
		if tool != "" {
			removeDir(ctx, tool) // otherwise a leftover for the next gc
		}
		os.Remove(in.usePath(id, name))
		rep.Removed = append(rep.Removed, Removed{Agent: id, Version: name, Path: p, Bytes: size, Why: why})
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".") || keepTools[name] {
			continue
		}
		first = firstErr(first, in.removeLeftover(ctx, rep, id, filepath.Join(dir, name), leftoverWhy(name)))
	}
	if complete == 0 {
		// Nothing complete is left (a first install that never finished,
		// or an uninstall): the agent folder goes with its marker.
		if err := removeDir(ctx, dir); err != nil {
			first = firstErr(first, deleteFailed(what, dir, err))
		}
	}
	return first
}

func (in *Installer) removeLeftover(ctx context.Context, rep *GCReport, id, p, why string) error {
	size := dirSize(p)
	if err := removeDir(ctx, p); err != nil {
		return deleteFailed("gc", p, err)
	}
	rep.Removed = append(rep.Removed, Removed{Agent: id, Path: p, Bytes: size, Why: why})
	return nil
}

func leftoverWhy(name string) string {
	switch {
	case strings.HasPrefix(name, ".tmp-"):
		return "interrupted install"
	case strings.HasPrefix(name, ".dl-"):
		return "partial download"
	case strings.HasPrefix(name, ".rm-"):
		return "failed delete"
	case strings.HasPrefix(name, ".uv-"):
		return "uv environment of no install"
	case strings.HasPrefix(name, ".cur-"):
		return "interrupted write of the current marker"
	}
	return "leftover"
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// inUse names who uses version of id (files under paths), or "": acp run
// holding it (Hold), a running process found through the OS, or, where the
// OS cannot tell, a resolve within RecentUse (MarkUsed).
func (in *Installer) inUse(id, version string, procs []procUse, paths ...string) string {
	if who := in.running(id, version, procs, paths...); who != "" {
		return who
	}
	fi, err := os.Lstat(in.usePath(id, version))
	if !in.procsCanTell() && err == nil {
		recent := in.RecentUse
		if recent <= 0 {
			recent = DefaultRecentUse
		}
		if ago := in.now().Sub(fi.ModTime()); ago < recent {
			return fmt.Sprintf("resolved %s ago (this OS does not tell which files running agents use, so a version resolved in the last %s is kept)", roundAgo(ago), roundAgo(recent))
		}
	}
	return ""
}

// running is inUse without the guess from recent resolves: acp run
// holding the version, or a running process found through the OS.
func (in *Installer) running(id, version string, procs []procUse, paths ...string) string {
	use := in.usePath(id, version)
	if fi, err := os.Lstat(use); err == nil && fi.Mode().IsRegular() {
		fl := flock.New(use)
		ok, err := fl.TryLock()
		if ok {
			fl.Unlock()
		}
		fl.Close()
		if err == nil && !ok {
			return "in use by acp run"
		}
	}
	if who := user(procs, paths...); who != "" {
		return "in use by " + who
	}
	return ""
}

func roundAgo(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days", int(d.Hours()/24))
	case d >= time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	case d >= time.Minute:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	}
	return "moments"
}

func (in *Installer) procsCanTell() bool { return procsCanTell && !in.osCannotTell }

func (in *Installer) processes() []procUse {
	if !in.procsCanTell() {
		return nil
	}
	return scanProcesses(in.Root)
}

// usePath is the file acp run holds a shared lock on while the version
// runs, and whose time MarkUsed sets.
func (in *Installer) usePath(id, version string) string {
	return filepath.Join(in.Root, "locks", id+"@"+version+".use")
}

// MarkUsed records that version of id was just resolved, so gc, uninstall
// and upgrade keep it for a while where the OS cannot tell which files
// running processes use. It costs one file-time update; resolve calls it.
func (in *Installer) MarkUsed(id, version string) error {
	if err := checkIDVersion(id, version); err != nil || version == "" {
		return fmt.Errorf("mark %s %s used: not a valid id and version", id, version)
	}
	p := in.usePath(id, version)
	now := in.now()
	if err := os.Chtimes(p, now, now); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	return os.Chtimes(p, now, now)
}

// Hold keeps version of id from being deleted while the caller runs it
// (acp run holds it for the agent's whole life): gc, uninstall and
// upgrade's cleanup keep a held version unless Force. The hold is a shared
// lock, released by the returned function or when the process ends. The
// wait for a gc or an install of the agent is bounded by ctx and LockWait.
func (in *Installer) Hold(ctx context.Context, id, version string) (release func(), err error) {
	if err := checkIDVersion(id, version); err != nil || version == "" {
		return nil, fmt.Errorf("hold %s %s: not a valid id and version", id, version)
	}
	unlock, err := in.lock(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("hold %s %s: %w", id, version, err)
	}
	defer unlock()
	r, err := readReceipt(in.versionDir(id, version))
	if err == nil {
		err = r.Check()
	}
	if err != nil {
		return nil, errorf(ErrNotInstalled, "%s %s is not installed (%v): run acp install %s", id, version, err, id)
	}
	release, err = in.lockFile(ctx, in.usePath(id, version), id+" "+version, true)
	if err != nil {
		return nil, fmt.Errorf("hold %s %s: %w", id, version, err)
	}
	now := in.now()
	os.Chtimes(in.usePath(id, version), now, now)
	return release, nil
}

// dirSize is the size of the files under p (0 when p is "" or gone).
func dirSize(p string) int64 {
	if p == "" {
		return 0
	}
	var n int64
	filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// removeDir renames a tree aside before deleting it, so a half-deleted
// install never looks like a complete one; what a failed delete leaves is
// a .rm-* folder that the next gc removes.
func removeDir(ctx context.Context, p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if !fi.IsDir() {
		return os.Remove(p)
	}
	base := filepath.Base(p)
	if !strings.HasPrefix(base, ".rm-") {
		trash := filepath.Join(filepath.Dir(p), fmt.Sprintf(".rm-%s-%d", strings.TrimPrefix(base, "."), time.Now().UnixNano()))
		if err := rename(ctx, p, trash); err != nil {
			return err
		}
		p = trash
	}
	return os.RemoveAll(p)
}

// deleteFailed words a failed delete: Windows refuses to delete the files
// of a running program, and that deserves a sentence, not
// "unlinkat …: Access is denied.".
func deleteFailed(what, p string, err error) error {
	if isInUseErr(err) {
		return errorf(ErrInUse, "%s: %s is in use by a running agent; close it and run acp gc", what, p)
	}
	return fmt.Errorf("%s: remove %s: %w", what, p, err)
}
