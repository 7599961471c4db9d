package installer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Upgrades keep one previous version, the one a rollback returns to; gc
// removes the older ones and says why; a rollback makes the previous
// version current again, even when the current install is broken.
func TestGCKeepsThePreviousVersionForRollback(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	installVersions(t, in, srv, "1.0.0", "2.0.0", "3.0.0")
	rep, err := in.GCAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(in.Root, "agents", "demo")
	if len(rep.Removed) != 1 || rep.Removed[0].Version != "1.0.0" || rep.Removed[0].Why != WhyOlder || rep.Removed[0].Bytes == 0 {
		t.Errorf("removed = %+v, want 1.0.0 (%s)", rep.Removed, WhyOlder)
	}
	if len(rep.Kept) != 1 || rep.Kept[0].Version != "2.0.0" || !rep.Kept[0].Rollback || rep.Kept[0].Why != WhyRollback || rep.Kept[0].Path != filepath.Join(agent, "2.0.0") {
		t.Errorf("kept = %+v, want 2.0.0 for rollback", rep.Kept)
	}
	for _, v := range []string{"2.0.0", "3.0.0"} {
		if _, err := os.Stat(filepath.Join(agent, v, "agent")); err != nil {
			t.Errorf("gc removed %s: %v", v, err)
		}
	}
	// A second gc removes nothing more.
	if rep, err := in.GCAll(context.Background()); err != nil || len(rep.Removed) != 0 {
		t.Errorf("second gc = %+v %v", rep, err)
	}

	if p, err := in.Previous("demo"); err != nil || p.Version != "2.0.0" {
		t.Fatalf("previous = %+v %v", p, err)
	}
	r, err := in.Rollback(context.Background(), "demo")
	if err != nil || r.Version != "2.0.0" {
		t.Fatalf("rollback = %+v %v", r, err)
	}
	if cur, err := in.Current("demo"); err != nil || cur.Version != "2.0.0" {
		t.Errorf("after rollback current = %+v %v", cur, err)
	}
	// Nothing older is left to roll back to.
	if _, err := in.Rollback(context.Background(), "demo"); !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "no version older than 2.0.0") {
		t.Errorf("second rollback: %v", err)
	}
	// Installing the registry's version again (install, upgrade) makes it
	// current again, without a download.
	m := binaryManifest("demo", "3.0.0", srv.URL+"/3.0.0.tgz", "agent", "")
	hits := srv.count("/3.0.0.tgz")
	if r, already, err := in.Install(context.Background(), Request{Agent: m}); err != nil || !already || r.Version != "3.0.0" || srv.count("/3.0.0.tgz") != hits {
		t.Errorf("install after rollback = %+v %v %v", r, already, err)
	}
	if cur, err := in.Current("demo"); err != nil || cur.Version != "3.0.0" {
		t.Errorf("after install current = %+v %v", cur, err)
	}
	if _, err := in.Rollback(context.Background(), "demo"); err != nil {
		t.Fatal(err)
	}
	// The version rolled back from goes at the next gc.
	rep, err = in.GCAll(context.Background())
	if err != nil || len(rep.Removed) != 1 || rep.Removed[0].Version != "3.0.0" || rep.Removed[0].Why != WhyNewer || len(rep.Kept) != 0 {
		t.Errorf("gc after rollback = %+v %v", rep, err)
	}
	if cur, err := in.Current("demo"); err != nil || cur.Version != "2.0.0" {
		t.Errorf("after gc current = %+v %v", cur, err)
	}
}

// The current install broke (its command deleted): rollback still works.
func TestRollbackFromABrokenInstall(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	installVersions(t, in, srv, "1.0.0", "1.1.0")
	os.Remove(filepath.Join(in.Root, "agents", "demo", "1.1.0", "agent"))
	if _, err := in.Current("demo"); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("current of a broken install: %v", err)
	}
	r, err := in.Rollback(context.Background(), "demo")
	if err != nil || r.Version != "1.0.0" {
		t.Fatalf("rollback = %+v %v", r, err)
	}
	if cur, err := in.Current("demo"); err != nil || cur.Version != "1.0.0" {
		t.Errorf("after rollback current = %+v %v", cur, err)
	}
	if _, err := in.Rollback(context.Background(), "nothing"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("rollback of an agent never installed: %v", err)
	}
}

// Installs order by semver up to the largest part npm and acp accept
// (2^53-1; above it a version is refused where it is read): gc keeps the
// version before the current one, rollback finds it.
func TestGCAndRollbackOrderUpToSafeIntegers(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	installVersions(t, in, srv, "2.0.0", "9007199254740990.0.0", "9007199254740991.0.0")
	rep, err := in.GCAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Removed) != 1 || rep.Removed[0].Version != "2.0.0" || rep.Removed[0].Why != WhyOlder {
		t.Errorf("removed = %+v, want 2.0.0 (%s)", rep.Removed, WhyOlder)
	}
	if r, err := in.Rollback(context.Background(), "demo"); err != nil || r.Version != "9007199254740990.0.0" {
		t.Errorf("rollback = %+v %v", r, err)
	}
}
