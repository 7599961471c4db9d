package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

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

// report is a GCReport being written, with the files it has counted:
// a file with several names counts once in one report (see dirSize).
type report struct {
	*GCReport
	seen map[fileID]bool
}

func newReport() *report {
	return &report{GCReport: &GCReport{Removed: []Removed{}, Kept: []Kept{}}, seen: map[fileID]bool{}}
}

// DefaultRecentUse is how long a resolved version counts as in use where
// the OS cannot tell which files running processes use.
const DefaultRecentUse = 3 * 24 * time.Hour

// GCAll tidies every agent: removes versions other than the current one
// and the previous one (the newest complete install older than the
// current, kept so that Rollback can return to it), unless a running
// process uses them (see ReplaceInUse), and every leftover of
// interrupted installs and failed deletes, first installs included (an
// agent folder with no complete install goes entirely). The report lists
// each removal with its size. An error after some removals still returns
// the report of what was done.
func (s *Store) GCAll(ctx context.Context) (*GCReport, error) {
	rep := newReport()
	agents := filepath.Join(s.Root, "agents")
	entries, err := os.ReadDir(agents)
	if errors.Is(err, fs.ErrNotExist) {
		return rep.GCReport, nil
	}
	if err != nil {
		return rep.GCReport, fmt.Errorf("gc: %w", err)
	}
	procs := s.processes()
	var first error
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(agents, name)
		switch {
		case strings.HasPrefix(name, ".rm-"):
			// An uninstall renamed the agent aside, then failed to delete it.
			first = firstErr(first, s.removeLeftover(ctx, rep, "", p, "failed delete"))
		case e.IsDir() && registry.ValidID(name):
			first = firstErr(first, s.sweep(ctx, name, false, procs, rep))
		}
		if ctx.Err() != nil {
			return rep.GCReport, kinds.Stopped(ctx)
		}
	}
	return rep.GCReport, first
}

// GCAgent is GCAll for one agent.
func (s *Store) GCAgent(ctx context.Context, id string) (*GCReport, error) {
	if err := CheckIDVersion(id, ""); err != nil {
		return nil, err
	}
	rep := newReport()
	return rep.GCReport, s.sweep(ctx, id, false, s.processes(), rep)
}

// Remove uninstalls id: every version and leftover goes, except a version
// a running process uses (kept and named in the error, wrapping ErrInUse)
// unless ReplaceInUse. ErrNotInstalled when there is nothing of id.
func (s *Store) Remove(ctx context.Context, id string) (*GCReport, error) {
	if err := CheckIDVersion(id, ""); err != nil {
		return nil, err
	}
	rep := newReport()
	err := s.sweep(ctx, id, true, s.processes(), rep)
	if err == nil && len(rep.Kept) > 0 {
		var what []string
		for _, k := range rep.Kept {
			what = append(what, k.Version+" ("+k.Why+")")
		}
		force := ", or pass --force"
		if runtime.GOOS == "windows" || s.OSRefusesInUseDelete {
			force = "" // the system refuses the delete anyway (deleteFailed)
		}
		err = errorf(ErrInUse, "uninstall %s: kept %s: close it and run acp uninstall %s again%s", id, strings.Join(what, ", "), id, force)
	}
	return rep.GCReport, err
}

// sweep does gc (or, with uninstall, removal) of one agent under its lock.
func (s *Store) sweep(ctx context.Context, id string, uninstall bool, procs []procUse, rep *report) error {
	what := "gc " + id
	if uninstall {
		what = "uninstall " + id
	}
	dir := s.AgentDir(id)
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if uninstall {
			return errorf(ErrNotInstalled, "%s: it is not installed", what)
		}
		return nil
	}
	unlock, err := s.Lock(ctx, id)
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
	if !uninstall {
		keep, prev = s.keepVersions(id)
	}
	complete, keepTools, first := s.sweepVersions(ctx, id, what, entries, keep, prev, uninstall, procs, rep)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".") || keepTools[name] {
			continue
		}
		first = firstErr(first, s.removeLeftover(ctx, rep, id, filepath.Join(dir, name), leftoverWhy(name)))
	}
	if complete == 0 {
		// Nothing complete is left (a first install that never finished,
		// or an uninstall): the agent folder goes with its marker.
		if err := RemoveDir(ctx, dir); err != nil {
			first = firstErr(first, deleteFailed(what, dir, err))
		}
	}
	return first
}

// keepVersions is what gc keeps of id: the current version and the
// previous one, kept for rollback.
func (s *Store) keepVersions(id string) (keep, prev string) {
	if c, err := s.Current(id); err == nil {
		keep = c.Version
	} else if rs, _ := s.Installed(id); len(rs) > 0 {
		keep = rs[0].Version // the marker names a broken install: keep the best left
	}
	if p := s.previous(id, keep); p != nil {
		prev = p.Version
	}
	return keep, prev
}

// sweepVersions removes the versions of id that sweep does not keep (all
// but those in use, with uninstall). It returns how many complete
// installs are left, the uv environments they use, and the first error.
func (s *Store) sweepVersions(ctx context.Context, id, what string, entries []fs.DirEntry, keep, prev string, uninstall bool, procs []procUse, rep *report) (int, map[string]bool, error) {
	dir := s.AgentDir(id)
	keepTools := map[string]bool{}
	var first error
	complete := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !e.IsDir() || !safeVersion(name) {
			continue
		}
		p := filepath.Join(dir, name)
		r, rerr := ReadReceipt(p)
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
		case Check(r) != nil:
			why = whyBrokenPrefix + Check(r).Error()
		case uninstall:
			why = whyUninstalled
		case name == prev:
			rep.Kept = append(rep.Kept, Kept{Agent: id, Version: name, Path: p, Why: WhyRollback, Rollback: true})
			complete++
			if tool != "" {
				keepTools[r.ToolDir] = true
			}
			continue
		case NewerVersion(name, keep):
			why = WhyNewer // left by a rollback
		default:
			why = WhyOlder
		}
		if who := s.inUseCheck(uninstall)(id, name, procs, p, tool); who != "" && !s.ReplaceInUse {
			rep.Kept = append(rep.Kept, Kept{Agent: id, Version: name, Path: p, Why: who})
			complete++
			if tool != "" {
				keepTools[r.ToolDir] = true
			}
			continue
		}
		size := dirSize(rep.seen, p, tool)
		if err := RemoveDir(ctx, p); err != nil {
			first = firstErr(first, deleteFailed(what, p, err))
			continue
		}
		if tool != "" {
			RemoveDir(ctx, tool) // otherwise a leftover for the next gc
		}
		os.Remove(s.usePath(id, name))
		rep.Removed = append(rep.Removed, Removed{Agent: id, Version: name, Path: p, Bytes: size, Why: why})
	}
	return complete, keepTools, first
}

// RemoveLeftover deletes p, a leftover (why says what it was) of agent id
// or of none (""), and records it in rep with its size.
func (s *Store) RemoveLeftover(ctx context.Context, rep *GCReport, id, p, why string) error {
	return s.removeLeftover(ctx, &report{GCReport: rep, seen: map[fileID]bool{}}, id, p, why)
}

func (s *Store) removeLeftover(ctx context.Context, rep *report, id, p, why string) error {
	size := dirSize(rep.seen, p)
	if err := RemoveDir(ctx, p); err != nil {
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
func (s *Store) inUse(id, version string, procs []procUse, paths ...string) string {
	if who := s.running(id, version, procs, paths...); who != "" {
		return who
	}
	fi, err := os.Lstat(s.usePath(id, version))
	if !s.procsCanTell() && err == nil {
		recent := s.RecentUse
		if recent <= 0 {
			recent = DefaultRecentUse
		}
		if ago := s.now().Sub(fi.ModTime()); ago < recent {
			return fmt.Sprintf("resolved %s ago (this OS does not tell which files running agents use, so a version resolved in the last %s is kept)", roundAgo(ago), roundAgo(recent))
		}
	}
	return ""
}

// inUseCheck is inUse, or running for an explicit uninstall where the OS
// refuses to delete a running program's files (Windows): deleteFailed
// then says so, and no guess from recent resolves is needed.
func (s *Store) inUseCheck(uninstall bool) func(id, version string, procs []procUse, paths ...string) string {
	if uninstall && (runtime.GOOS == "windows" || s.OSRefusesInUseDelete) {
		return s.running
	}
	return s.inUse
}

// running is inUse without the guess from recent resolves: acp run
// holding the version, or a running process found through the OS.
func (s *Store) running(id, version string, procs []procUse, paths ...string) string {
	use := s.usePath(id, version)
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

func (s *Store) procsCanTell() bool { return procsCanTell && !s.OSCannotTell }

func (s *Store) processes() []procUse {
	if !s.procsCanTell() {
		return nil
	}
	return scanProcesses(s.Root)
}

// usePath is the file acp run holds a shared lock on while the version
// runs, and whose time MarkUsed sets.
func (s *Store) usePath(id, version string) string {
	return filepath.Join(s.Root, "locks", id+"@"+version+".use")
}

// MarkUsed records that version of id was just resolved, so gc, uninstall
// and upgrade keep it for a while where the OS cannot tell which files
// running processes use. It costs one file-time update; resolve calls it.
func (s *Store) MarkUsed(id, version string) error {
	if err := CheckIDVersion(id, version); err != nil || version == "" {
		return fmt.Errorf("mark %s %s used: not a valid id and version", id, version)
	}
	p := s.usePath(id, version)
	now := s.now()
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
// upgrade's cleanup keep a held version unless ReplaceInUse. The hold is a shared
// lock, released by the returned function or when the process ends. The
// wait for a gc or an install of the agent is bounded by ctx and LockWait.
func (s *Store) Hold(ctx context.Context, id, version string) (release func(), err error) {
	if err := CheckIDVersion(id, version); err != nil || version == "" {
		return nil, fmt.Errorf("hold %s %s: not a valid id and version", id, version)
	}
	unlock, err := s.Lock(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("hold %s %s: %w", id, version, err)
	}
	defer unlock()
	r, err := ReadReceipt(s.VersionDir(id, version))
	if err == nil {
		err = Check(r)
	}
	if err != nil {
		return nil, errorf(ErrNotInstalled, "%s %s is not installed (%v): run acp install %s", id, version, err, id)
	}
	release, err = s.lockFile(ctx, s.usePath(id, version), id+" "+version, true)
	if err != nil {
		return nil, fmt.Errorf("hold %s %s: %w", id, version, err)
	}
	now := s.now()
	os.Chtimes(s.usePath(id, version), now, now)
	return release, nil
}

// dirSize is the size of the files under paths ("" or gone: nothing). A
// file with several names (hard links: uv links its cache into every
// environment) counts once per seen, which one report shares.
func dirSize(seen map[fileID]bool, paths ...string) int64 {
	var n int64
	for _, p := range paths {
		if p == "" {
			continue
		}
		filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			// Only files with other names are remembered, but every file
			// is looked up: those other names may be gone by now (an
			// earlier version of the report, already removed).
			if id, names, ok := fileIdentity(fi); ok {
				if seen[id] {
					return nil
				}
				if names > 1 {
					seen[id] = true
				}
			}
			n += fi.Size()
			return nil
		})
	}
	return n
}

// RemoveDir renames a tree aside before deleting it, so a half-deleted
// install never looks like a complete one; what a failed delete leaves is
// a .rm-* folder that the next gc removes.
func RemoveDir(ctx context.Context, p string) error {
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
		if err := Rename(ctx, p, trash); err != nil {
			return err
		}
		p = trash
	}
	return os.RemoveAll(p)
}

// deleteFailed words a failed delete: Windows refuses to delete, or even
// to move, the files of a running program (TestWindowsRefusesToMoveARunningProgram),
// --force or not, and that deserves a sentence, not "unlinkat …: Access
// is denied.". The one way on is the same for uninstall, gc and a forced
// install: close the agent and run the command again.
func deleteFailed(what, p string, err error) error {
	if isInUseErr(err) {
		return errorf(ErrInUse, "%s: %s is in use by a running agent, and the system does not delete a running program's files (--force cannot either): close the agent (or the editor running it) and run acp %s again", what, p, what)
	}
	return fmt.Errorf("%s: remove %s: %w", what, p, err)
}
