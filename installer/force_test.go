package installer

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// install --force of a version acp run holds does not replace the files
// under the running agent; Installer.ReplaceInUse, the stronger switch, does.
func TestForcedInstallRefusesAHeldVersion(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	m := binaryManifest("demo", "1.0.0", srv.add("/a.tgz", body), "agent", sha(body))
	if _, _, err := in.Install(context.Background(), Request{Agent: m}); err != nil {
		t.Fatal(err)
	}
	release, err := in.Hold(context.Background(), "demo", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	before := snapshot(t, in.Root)
	_, _, err = in.Install(context.Background(), Request{Agent: m, Force: true})
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "demo 1.0.0 is in use by acp run: close it and try again") {
		t.Errorf("forced install of a held version: %v", err)
	}
	if after := snapshot(t, in.Root); !sameList(before, after) || srv.count("/a.tgz") != 1 {
		t.Errorf("the refused install changed files or downloaded (%d downloads):\n%v\n%v", srv.count("/a.tgz"), before, after)
	}
	// Not remembered as a failure: the next plain resolve just works.
	if _, err := in.Resolve(context.Background(), Request{Agent: m}, NoInstall); err != nil {
		t.Errorf("resolve after the refusal: %v", err)
	}
	in.ReplaceInUse = true
	if _, already, err := in.Install(context.Background(), Request{Agent: m, Force: true}); err != nil || already || srv.count("/a.tgz") != 2 {
		t.Errorf("Installer.ReplaceInUse: already=%v err=%v downloads=%d", already, err, srv.count("/a.tgz"))
	}
}

// A recent resolve, the guess used where the OS cannot tell, does not
// block --force: an editor resolves on every launch.
func TestForcedInstallIgnoresRecentResolves(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	in.osCannotTell = true
	in.Now = time.Now
	installVersions(t, in, srv, "1.0.0")
	if err := in.MarkUsed("demo", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	m := binaryManifest("demo", "1.0.0", srv.add("/b.tgz", body), "agent", sha(body))
	if _, _, err := in.Install(context.Background(), Request{Agent: m, Force: true}); err != nil {
		t.Errorf("forced install after a resolve: %v", err)
	}
}

// On Linux a running agent is found through /proc, with or without acp run.
func TestForcedInstallRefusesARunningAgent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("running processes' files are found through /proc")
	}
	srv := newServer(t)
	in := newInstaller(t)
	// One process, no child to outlive the kill below: the agent's folder
	// is its working folder, which /proc shows from Start on (Go's Start
	// returns once exec is done).
	r := installScript(t, in, srv, "1.0.0", "#!/bin/sh\nexec sleep 30\n")
	agent := exec.Command(r.Launch.Command)
	agent.Dir = r.Dir
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { agent.Process.Kill(); agent.Wait() }()
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	m := binaryManifest("demo", "1.0.0", srv.add("/new.tgz", body), "agent", sha(body))
	_, _, err := in.Install(context.Background(), Request{Agent: m, Force: true})
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "demo 1.0.0 is in use by process ") {
		t.Errorf("forced install of a running version: %v", err)
	}
	if srv.count("/new.tgz") != 0 {
		t.Errorf("downloaded before refusing")
	}
	if cur, err := in.Current("demo"); err != nil || filepath.Dir(cur.Launch.Command) != r.Dir {
		t.Errorf("current = %+v %v", cur, err)
	}
	agent.Process.Kill()
	agent.Wait()
	if _, _, err := in.Install(context.Background(), Request{Agent: m, Force: true}); err != nil {
		t.Errorf("forced install once the agent ended: %v", err)
	}
}
