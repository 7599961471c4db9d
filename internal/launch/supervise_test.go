//go:build linux

package launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A program that links this package but never calls Supervise runs its
// own main, even started the way the supervisor is (argv[0] and the
// environment variable): a library never takes over a program, nor exits
// it. It still starts agents, only without the supervisor.
func TestNoSupervisorWithoutTheCall(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "nohook")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/nohook").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, arg0 := range []string{shimArg0, limitedArg0} {
		cmd := &exec.Cmd{Path: bin, Args: []string{arg0}, Env: []string{shimEnv + "=" + shimMagic}}
		out, err := cmd.CombinedOutput()
		if err != nil || string(out) != "main ran\n" {
			t.Errorf("run as %s: %v, output %q; want main to run", arg0, err, out)
		}
	}
	out, err := exec.Command(bin, "/bin/sh", "-c", "echo hi").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `agent said "hi\n", contained as "session"`) {
		t.Errorf("agent start without the supervisor: %v, output %q", err, out)
	}
	_ = os.Remove(bin)
}
