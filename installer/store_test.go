package installer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func installVersions(t *testing.T, in *Installer, srv *server, versions ...string) {
	t.Helper()
	for _, v := range versions {
		body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
		url := srv.add("/"+v+".tgz", body)
		if _, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", v, url, "agent", sha(body))}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestInstalledCurrentGCUninstall(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	if _, err := in.Current("demo"); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("current before install: %v", err)
	}
	// 1.10.0 after 1.9.0 by semver, not by string; 1.2.0 installed last.
	installVersions(t, in, srv, "1.9.0", "1.10.0", "1.2.0")
	rs, err := in.Installed("demo")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.Version)
	}
	if !reflect.DeepEqual(got, []string{"1.10.0", "1.9.0", "1.2.0"}) {
		t.Errorf("installed = %v", got)
	}
	cur, err := in.Current("demo")
	if err != nil || cur.Version != "1.2.0" {
		t.Errorf("current = %+v %v, want the last installed 1.2.0", cur, err)
	}
	// A crash leftover and a half-written folder without receipt.
	os.MkdirAll(filepath.Join(in.Root, "agents", "demo", ".tmp-3.0.0-123"), 0o755)
	os.MkdirAll(filepath.Join(in.Root, "agents", "demo", "3.0.0"), 0o755)
	list, err := in.List()
	if err != nil || len(list) != 1 || list[0].Version != "1.2.0" {
		t.Errorf("list = %+v %v", list, err)
	}
	removed, err := gcVersions(in, "demo")
	if err != nil || !reflect.DeepEqual(removed, []string{"1.10.0", "1.9.0"}) {
		t.Errorf("gc removed %v, %v", removed, err)
	}
	entries, _ := os.ReadDir(filepath.Join(in.Root, "agents", "demo"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"1.2.0", "current"}) {
		t.Errorf("after gc the agent folder holds %v", names)
	}
	if _, err := in.Remove(context.Background(), "demo"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(in.Root, "agents", "demo")); !os.IsNotExist(err) {
		t.Errorf("uninstall left the agent folder")
	}
	if _, err := in.Remove(context.Background(), "demo"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("second uninstall: %v", err)
	}
	if list, err := in.List(); err != nil || len(list) != 0 {
		t.Errorf("list after uninstall = %v %v", list, err)
	}
}

func TestHostileVersionsAndIDs(t *testing.T) {
	in := newInstaller(t)
	for _, v := range []string{"../../etc", "1.0.0/../../x", ".hidden", "1.0.0\x00"} {
		m := binaryManifest("demo", v, "https://example.invalid/a.tgz", "agent", "")
		if _, _, err := in.Install(context.Background(), Request{Agent: m}); err == nil {
			t.Errorf("version %q accepted", v)
		}
	}
	if _, err := in.Installed("../x"); err == nil {
		t.Errorf("id ../x accepted")
	}
}

// Versions name folders beside agents/<id>/current: a registry that offers
// version "current" (or, on a case-insensitive disk, "Current"; on Windows
// a device name such as "CON") must not replace the marker or turn it into
// an install.
func TestVersionCannotShadowStoreNames(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	installVersions(t, in, srv, "1.0.0")
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	url := srv.add("/hostile.tgz", body)
	for _, v := range []string{"current", "Current", "CON", "locks", "v", "1.0.0."} {
		m := binaryManifest("demo", v, url, "agent", sha(body))
		if _, _, err := in.Install(context.Background(), Request{Agent: m}); err == nil {
			t.Errorf("version %q accepted", v)
		}
	}
	if cur, err := in.Current("demo"); err != nil || cur.Version != "1.0.0" {
		t.Errorf("current = %+v %v, want 1.0.0 untouched", cur, err)
	}
	if data, err := os.ReadFile(filepath.Join(in.Root, "agents", "demo", "current")); err != nil || string(data) != "1.0.0\n" {
		t.Errorf("the current marker is now %q %v", data, err)
	}
	if srv.count("/hostile.tgz") != 0 {
		t.Errorf("a refused version was downloaded")
	}
	// A plain version with a leading v, as some tags are written, still installs.
	installVersions(t, in, srv, "v2.0.0")
}

// gcVersions runs GCAgent on id and returns the complete versions it
// removed, newest first.
func gcVersions(in *Installer, id string) ([]string, error) {
	rep, err := in.GCAgent(context.Background(), id)
	removed := []string{}
	if rep != nil {
		for _, r := range rep.Removed {
			if r.Why == WhyOlder || r.Why == WhyNewer {
				removed = append(removed, r.Version)
			}
		}
	}
	sort.Slice(removed, func(i, j int) bool { return registry.Newer(removed[i], removed[j]) })
	return removed, err
}
