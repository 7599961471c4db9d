package installer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// A pinned npx install (a project's lock, a version the registry does not
// offer) is checked against the integrity asked for, as npm recorded it:
// other bytes install nothing. It lands beside the current version and is
// never made current, not even as the only install.
func TestPinnedInstallChecksIntegrityAndStaysBesideCurrent(t *testing.T) {
	npm := nativeNPM(t, "pin-agent",
		testkit.FakeStep{Write: "$prefix/node_modules/.package-lock.json", Text: `{"lockfileVersion":3,"packages":{"node_modules/pin-agent":{"integrity":"sha512-good"}}}`})
	in := newInstaller(t)
	in.NPM = npm
	in.LookPath = func(string) (string, error) { return npm, nil }
	m := func(v string) *registry.Manifest {
		return &registry.Manifest{ID: "pin", Name: "pin", Version: v, Description: "d",
			Distribution: registry.Distribution{Npx: &registry.Package{Package: "pin-agent@" + v}}}
	}
	ctx := context.Background()

	_, _, err := in.Install(ctx, Request{Agent: m("1.0.0"), Integrity: "sha512-other", Pinned: true})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("other bytes: %v", err)
	}
	if _, err := os.Stat(filepath.Join(in.Root, "agents", "pin", "1.0.0")); !os.IsNotExist(err) {
		t.Fatalf("a mismatched install left its folder: %v", err)
	}

	rc, _, err := in.Install(ctx, Request{Agent: m("1.0.0"), Integrity: "sha512-good", Pinned: true})
	if err != nil || !rc.Pinned || rc.Integrity != "sha512-good" {
		t.Fatalf("pinned install: %+v %v", rc, err)
	}
	if cur, err := in.Current("pin"); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("the only install, pinned, became current: %+v %v", cur, err)
	}
	if _, _, err := in.Install(ctx, Request{Agent: m("0.9.0")}); err != nil {
		t.Fatal(err)
	}
	if cur, err := in.Current("pin"); err != nil || cur.Version != "0.9.0" {
		t.Fatalf("current after the registry's 0.9.0: %+v %v", cur, err)
	}
	// Resolving the pin again reads its receipt: installed, checked.
	spec, err := in.Resolve(ctx, Request{Agent: &registry.Manifest{ID: "pin", Version: "1.0.0"}, Integrity: "sha512-good"}, NoInstall)
	if err != nil || spec.Version != "1.0.0" {
		t.Fatalf("resolve the pin: %+v %v", spec, err)
	}
	if cur, _ := in.Current("pin"); cur.Version != "0.9.0" {
		t.Fatalf("resolving the pin changed current to %s", cur.Version)
	}
}
