package installer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// installScript installs version v of demo whose executable is script.
func installScript(t *testing.T, in *Installer, srv *server, v, script string) *Receipt {
	t.Helper()
	body := makeTar(t, []entry{exe("agent", script), file("lib/data.txt", "data")}, "gz")
	url := srv.add("/"+v+".tgz", body)
	r, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", v, url, "agent", sha(body))})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func removedPaths(rep *GCReport) map[string]Removed {
	m := map[string]Removed{}
	for _, r := range rep.Removed {
		m[r.Path] = r
	}
	return m
}

// gc and uninstall keep a version whose files a running process uses (an
// editor launched it from acp resolve and holds nothing): found through
// /proc by its command line and its working directory. Force removes it.
func TestGCKeepsAVersionARunningAgentUses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("running processes' files are found through /proc")
	}
	srv := newServer(t)
	in := newInstaller(t)
	old := installScript(t, in, srv, "1.0.0", "#!/bin/sh\necho running\nsleep 30\necho done\n")
	installScript(t, in, srv, "2.0.0", agentScript)
	cwdUser := installScript(t, in, srv, "1.5.0", agentScript)
	installScript(t, in, srv, "2.5.0", agentScript) // kept for rollback
	installScript(t, in, srv, "3.0.0", agentScript) // current
	agent := exec.Command(old.Launch.Command)
	out, err := agent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	// sh runs the script once it says so (it holds the file open).
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "running\n" {
		t.Fatalf("the agent did not start: %q %v", line, err)
	}
	sleeper := exec.Command("sleep", "30")
	sleeper.Dir = filepath.Join(cwdUser.Dir, "lib")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })

	rep, err := in.GCAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]string{}
	for _, k := range rep.Kept {
		kept[k.Version] = k.Why
	}
	if !strings.Contains(kept["1.0.0"], "in use by process") || !strings.Contains(kept["1.5.0"], "(sleep)") || kept["2.5.0"] != WhyRollback || len(kept) != 3 {
		t.Errorf("kept = %v, want 1.0.0 and 1.5.0 in use, 2.5.0 for rollback", kept)
	}
	rm := removedPaths(rep)
	if r, ok := rm[filepath.Join(in.Root, "agents", "demo", "2.0.0")]; !ok || r.Bytes == 0 || r.Why != WhyOlder || r.Version != "2.0.0" {
		t.Errorf("removed = %+v, want 2.0.0 with its size", rep.Removed)
	}
	for _, v := range []string{"1.0.0", "1.5.0", "2.5.0", "3.0.0"} {
		if _, err := os.Stat(filepath.Join(in.Root, "agents", "demo", v, "agent")); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}

	// Uninstall keeps it too, and says so.
	rep, err = in.Remove(context.Background(), "demo")
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "1.0.0 (in use by process") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("uninstall: %v", err)
	}
	if _, ok := removedPaths(rep)[filepath.Join(in.Root, "agents", "demo", "3.0.0")]; !ok {
		t.Errorf("uninstall did not remove the unused 3.0.0: %+v", rep.Removed)
	}
	if cur, err := in.Current("demo"); err != nil || (cur.Version != "1.0.0" && cur.Version != "1.5.0") {
		t.Errorf("after a partial uninstall current = %+v %v", cur, err)
	}

	// --force removes what is in use.
	in.ReplaceInUse = true
	if _, err := in.Remove(context.Background(), "demo"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(in.Root, "agents", "demo")); !os.IsNotExist(err) {
		t.Errorf("forced uninstall left agents/demo")
	}
}

// acp run holds the version it runs; gc keeps it until released.
func TestHoldKeepsAVersion(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	// The hold alone: not the recent use it also marks, which keeps a
	// version a while where the OS cannot tell who runs it (Windows,
	// macOS; TestRecentlyResolvedIsKeptWhereTheOSCannotTell). The gc
	// after the release looks a minute later (file times and the clock
	// may disagree by a tick).
	in.RecentUse = time.Second
	installVersions(t, in, srv, "1.0.0", "2.0.0", "3.0.0")
	release, err := in.Hold(context.Background(), "demo", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := in.GCAll(context.Background())
	if err != nil || len(rep.Kept) != 2 || rep.Kept[0].Why != "in use by acp run" || !rep.Kept[1].Rollback || len(rep.Removed) != 0 {
		t.Fatalf("gc while held: %+v %v", rep, err)
	}
	release()
	in.Now = func() time.Time { return time.Now().Add(time.Minute) }
	rep, err = in.GCAll(context.Background())
	if err != nil || len(rep.Removed) != 1 || rep.Removed[0].Version != "1.0.0" {
		t.Fatalf("gc after release: %+v %v", rep, err)
	}
	if _, err := in.Hold(context.Background(), "demo", "1.0.0"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("hold of a removed version: %v", err)
	}
}

// Where the OS cannot tell which files running processes use, a version
// resolved in the last days is kept.
func TestRecentlyResolvedIsKeptWhereTheOSCannotTell(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	in.osCannotTell = true
	now := time.Now()
	in.Now = func() time.Time { return now }
	installVersions(t, in, srv, "1.0.0", "2.0.0", "3.0.0")
	if err := in.MarkUsed("demo", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	rep, err := in.GCAll(context.Background())
	if err != nil || len(rep.Kept) != 2 || !strings.Contains(rep.Kept[0].Why, "resolved moments ago") {
		t.Fatalf("gc: %+v %v", rep, err)
	}
	now = now.Add(4 * 24 * time.Hour)
	rep, err = in.GCAll(context.Background())
	if err != nil || len(rep.Kept) != 1 || len(rep.Removed) != 1 {
		t.Fatalf("gc 4 days later: %+v %v", rep, err)
	}
}

// gc removes every leftover of interrupted installs, first installs and
// failed deletes included, and reports each with its size.
func TestGCRemovesEveryLeftover(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	installVersions(t, in, srv, "1.0.0")
	agents := filepath.Join(in.Root, "agents")
	write := func(p string, n int) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// An interrupted first install of "fresh": nothing complete.
	write(filepath.Join(agents, "fresh", ".tmp-1.0.0-123", "agent"), 1000)
	write(filepath.Join(agents, "fresh", ".dl-456"), 500)
	// A failed delete and a crash next to a good install.
	write(filepath.Join(agents, "demo", ".rm-0.9.0-789", "bin", "agent"), 300)
	write(filepath.Join(agents, "demo", ".dl-1"), 20)
	// An uninstall whose delete failed half-way.
	write(filepath.Join(agents, ".rm-gone-1", "1.0.0", "agent"), 7)

	rep, err := in.GCAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		bytes int64
		why   string
	}{
		filepath.Join(agents, "fresh", ".tmp-1.0.0-123"): {1000, "interrupted install"},
		filepath.Join(agents, "fresh", ".dl-456"):        {500, "partial download"},
		filepath.Join(agents, "demo", ".rm-0.9.0-789"):   {300, "failed delete"},
		filepath.Join(agents, "demo", ".dl-1"):           {20, "partial download"},
		filepath.Join(agents, ".rm-gone-1"):              {7, "failed delete"},
	}
	got := removedPaths(rep)
	if len(got) != len(want) {
		t.Errorf("removed %+v", rep.Removed)
	}
	for p, w := range want {
		if r, ok := got[p]; !ok || r.Bytes != w.bytes || r.Why != w.why {
			t.Errorf("%s: removed %+v, want %d bytes (%s)", p, r, w.bytes, w.why)
		}
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there", p)
		}
	}
	if rep.Bytes() != 1827 {
		t.Errorf("total = %d bytes", rep.Bytes())
	}
	if _, err := os.Stat(filepath.Join(agents, "fresh")); !os.IsNotExist(err) {
		t.Errorf("the agent folder of a first install that never finished is still there")
	}
	if cur, err := in.Current("demo"); err != nil || cur.Version != "1.0.0" {
		t.Errorf("gc damaged the install: %+v %v", cur, err)
	}
	// Nothing left: a second gc removes nothing and says so truthfully.
	if rep, err := in.GCAll(context.Background()); err != nil || len(rep.Removed) != 0 {
		t.Errorf("second gc: %+v %v", rep, err)
	}
}

// When an installed cmd is deleted by hand, everyone agrees the install is
// broken: Installed and List leave it out, Current says why.
func TestDeletedCmdIsNotInstalledForAnyone(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	installVersions(t, in, srv, "1.0.0")
	cur, _ := in.Current("demo")
	os.Remove(cur.Launch.Command)
	if rs, err := in.Installed("demo"); err != nil || len(rs) != 0 {
		t.Errorf("installed = %+v %v", rs, err)
	}
	if list, err := in.List(); err != nil || len(list) != 0 {
		t.Errorf("list = %+v %v", list, err)
	}
	if _, err := in.Current("demo"); !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "is broken") || !strings.Contains(err.Error(), "is missing") {
		t.Errorf("current = %v", err)
	}
	// gc takes the broken install away with everything else of the agent.
	rep, err := in.GCAll(context.Background())
	if err != nil || len(rep.Removed) != 1 || !strings.HasPrefix(rep.Removed[0].Why, "broken install") {
		t.Errorf("gc = %+v %v", rep, err)
	}
}

// Hard-linked files (uv links its cache into each environment) take their
// bytes once, however many names they have: uninstall --json reported
// 587 MB for 295 MB on disk.
func TestRemovedBytesCountHardLinksOnce(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file identities are read on Unix")
	}
	srv := newServer(t)
	in := newInstaller(t)
	installVersions(t, in, srv, "1.0.0", "2.0.0")
	big := bytes.Repeat([]byte("x"), 1<<20)
	v1, v2 := filepath.Join(in.Root, "agents", "demo", "1.0.0"), filepath.Join(in.Root, "agents", "demo", "2.0.0")
	if err := os.WriteFile(filepath.Join(v1, "big"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{filepath.Join(v1, "big2"), filepath.Join(v2, "big")} {
		if err := os.Link(filepath.Join(v1, "big"), l); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	small := filesSize(t, v2) - 1<<20
	rep, err := in.Remove(context.Background(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Bytes(), int64(1<<20)+2*small; got != want {
		t.Errorf("removed %d bytes, want %d (the 1 MiB file once)", got, want)
	}
}

// On Windows, which refuses itself to delete a running program's files
// (and acp turns that refusal into a sentence), an explicit uninstall
// needs no --force for a version resolved in the last days; gc still
// keeps it.
func TestExplicitUninstallTrustsTheOSRefusalOnWindows(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	in.osCannotTell = true
	in.osRefusesInUseDelete = true
	installVersions(t, in, srv, "1.0.0", "2.0.0", "3.0.0")
	if err := in.MarkUsed("demo", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	if rep, err := in.GCAll(context.Background()); err != nil || len(rep.Kept) != 2 || !strings.Contains(rep.Kept[0].Why, "resolved moments ago") {
		t.Fatalf("gc kept %+v (%v); want 1.0.0, resolved moments ago, and 2.0.0 for rollback", rep, err)
	}
	rep, err := in.Remove(context.Background(), "demo")
	if err != nil || len(rep.Removed) != 3 || len(rep.Kept) != 0 {
		t.Fatalf("uninstall: %+v %v", rep, err)
	}
}

// filesSize adds up the sizes of the regular files under dir.
func filesSize(t *testing.T, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			fi, ierr := d.Info()
			if ierr != nil {
				return ierr
			}
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
