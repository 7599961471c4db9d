package probe

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
)

// A fork bomb, a runaway allocation, a descriptor flood and a busy loop
// stop at the agent's limits, and the verdict names the limit. The
// behaviours are bounded and the limits low, so that a run without them
// costs the machine little.
func TestHandshakeNamesTheLimitHit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("resource limits are applied on Linux")
	}
	for _, c := range []struct {
		behaviour string
		limits    launch.Limits
		extra     []string
		want      string
	}{
		{fakeagent.ForkBomb, launch.Limits{Processes: 320}, []string{"ACP_FAKE_COUNT", "400"}, "it hit its limit of 320 processes and threads"},
		{fakeagent.BigAlloc, launch.Limits{Memory: 192 << 20}, []string{"ACP_FAKE_MIB", "400"}, "it hit its memory limit of 192MiB"},
		{fakeagent.FDFlood, launch.Limits{OpenFiles: 64}, []string{"ACP_FAKE_COUNT", "200"}, "it hit its limit of 64 open files"},
		{fakeagent.CPUSpin, launch.Limits{CPU: time.Second}, []string{"ACP_FAKE_SPIN", "20"}, "it used up its CPU time limit of 1s"},
	} {
		t.Run(c.behaviour, func(t *testing.T) {
			t.Parallel()
			spec := fakeagent.Spec(t, c.behaviour, c.extra...)
			out := Handshake(context.Background(), spec, HandshakeOptions{Sandbox: t.TempDir(), Timeout: 30 * time.Second, Client: testClient, Launch: launch.Options{Limits: &c.limits}})
			if c.behaviour == fakeagent.ForkBomb && out.Init != nil && (!strings.Contains(out.Isolation, "namespace") || os.Getuid() == 0) {
				t.Skipf("no process limit here: it needs user namespaces, and for root a kernel with a pid_max per namespace (%s)", out.Isolation)
			}
			if out.Init != nil {
				t.Fatalf("the agent answered: the limit did not hold (%s)", out.Isolation)
			}
			if !strings.Contains(out.Failure, c.want) || !strings.Contains(out.Failure, launch.LimitsEnv) {
				t.Errorf("failure %q, want it to say %q", out.Failure, c.want)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	l, err := launch.ParseLimits("processes=256, memory=2GiB,files=none,cpu=90", launch.DefaultLimits())
	if err != nil || l != (launch.Limits{Processes: 256, Memory: 2 << 30, OpenFiles: 0, CPU: 90 * time.Second}) {
		t.Errorf("limits %+v, %v", l, err)
	}
	if got := l.String(); got != "processes=256,memory=2GiB,files=none,cpu=1m30s" {
		t.Errorf("String = %q", got)
	}
	for _, bad := range []string{"procs=1", "memory=2GB", "cpu=-1s", "files", "processes=-3"} {
		if _, err := launch.ParseLimits(bad, launch.Limits{}); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestResolveLimits(t *testing.T) {
	l, err := launch.ResolveLimits("files=100,cpu=none", "files=200")
	want := launch.DefaultLimits()
	want.OpenFiles, want.CPU = 200, 0
	if err != nil || l != want {
		t.Errorf("limits %+v, %v; want %+v", l, err, want)
	}
	if _, err := launch.ResolveLimits("bogus=1", ""); err == nil || !strings.Contains(err.Error(), launch.LimitsEnv) {
		t.Errorf("a bad %s: %v", launch.LimitsEnv, err)
	}
	if _, err := launch.ResolveLimits("", "cpu=soon"); err == nil || !strings.Contains(err.Error(), "--limits") {
		t.Errorf("a bad --limits: %v", err)
	}
}
