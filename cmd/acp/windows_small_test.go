package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/installer"
)

// A % in the install path makes the cmd.exe line impossible: that is a
// launch problem with a way out, not a usage error with the usage page.
func TestResolveForCmdWithPercentInPath(t *testing.T) {
	fakeRegistry(t)
	t.Setenv("ACP_HOME", filepath.Join(t.TempDir(), "100% home"))
	if code, _, errs := acpText(t, "install", "fake"); code != 0 {
		t.Fatalf("install: %d\n%s", code, errs)
	}
	code, out, errs := acpText(t, "resolve", "fake", "--shell", "cmd")
	if code == 2 || code == 0 || out != "" || strings.Contains(errs, "Usage:") || !strings.Contains(errs, "--shell powershell") {
		t.Errorf("exit %d\nstdout %q\nstderr %s", code, out, errs)
	}
}

// A leftover of no agent is named alone, with one space after "removed".
func TestRemovedLeftoverHasOneSpace(t *testing.T) {
	var out strings.Builder
	g := &globalOpts{}
	g.streams.Out = &out
	printRemoved(g, []installer.Removed{{Path: filepath.Join(os.TempDir(), ".rm-x-1"), Why: "failed delete"}})
	if got, want := out.String(), "removed .rm-x-1 (failed delete, 0 B)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
