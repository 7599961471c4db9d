package verify

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// A hostile upstream release that passes verify and leaves a daemon
// behind would read the secrets of the steps that follow in the same CI
// job: when Run returns, no process an agent started is alive.
func TestRunLeavesNoProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("catching setsid descendants needs Linux")
	}
	token := strconv.Itoa(rand.Int())
	dir := t.TempDir()
	install := func(ctx context.Context, m *registry.Manifest, kind registry.Kind, _ string) (launch.Spec, error) {
		return fakeagent.Spec(t, m.Name, "ACP_FAKE_TOKEN", token, "ACP_FAKE_READY", filepath.Join(dir, m.ID)), nil
	}
	daemon, setsid := manifest("daemon", registry.KindNpx), manifest("setsid", registry.KindNpx)
	daemon.Name, setsid.Name = fakeagent.Daemon, fakeagent.SetsidChild
	rep, err := Run(context.Background(), []*registry.Manifest{daemon, setsid}, Options{
		Timeout: 10 * time.Second, Sandbox: t.TempDir(), Install: install, Client: acpclient.Implementation{Name: "verify-test", Version: "0"},
	})
	if err != nil || rep.Summary.Pass != 2 {
		t.Fatalf("err %v, results %+v", err, rep.Results)
	}
	for _, id := range []string{"daemon", "setsid"} {
		if _, err := os.Stat(filepath.Join(dir, id)); err != nil {
			t.Fatalf("%s: the daemon never ran (the test is broken): %v", id, err)
		}
	}
	left := testkit.LiveProcesses(func(args []string) bool { return slices.Contains(args, "--fake-token="+token) })
	for _, pid := range left {
		t.Errorf("process %d outlived verify", pid)
	}
}
