package verify

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/probe"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

var update = flag.Bool("update", false, "rewrite golden files")

func manifest(id string, kinds ...registry.Kind) *registry.Manifest {
	m := &registry.Manifest{ID: id, Name: id, Version: "1.0.0"}
	for _, k := range kinds {
		switch k {
		case registry.KindBinary:
			m.Distribution.Binary = map[registry.Platform]registry.BinaryTarget{"linux-x86_64": {Archive: "https://example.com/a.tar.gz", Cmd: "a"}}
		case registry.KindNpx:
			m.Distribution.Npx = &registry.Package{Package: id + "@1.0.0"}
		case registry.KindUvx:
			m.Distribution.Uvx = &registry.Package{Package: id + "==1.0.0"}
		}
	}
	return m
}

// fakeInstall maps agent ids to fake-agent behaviours; uvx is "missing"
// here, to exercise skips, and an id "broken" fails to install.
func fakeInstall(t testing.TB, behaviours map[string]string, extraEnv ...string) InstallFunc {
	return func(ctx context.Context, m *registry.Manifest, kind registry.Kind, dir string) (launch.Spec, error) {
		if kind == registry.KindUvx {
			return launch.Spec{}, Skip("uvx needs uv, which is not installed (https://docs.astral.sh/uv/)")
		}
		if m.ID == "broken" {
			return launch.Spec{}, errors.New("download https://example.com/a.tar.gz: unexpected status 404")
		}
		return fakeagent.Spec(t, behaviours[m.ID], extraEnv...), nil
	}
}

func TestRunReport(t *testing.T) {
	agents := []*registry.Manifest{
		manifest("zeta", registry.KindNpx),
		manifest("alpha", registry.KindNpx, registry.KindBinary, registry.KindUvx),
		manifest("keyonly", registry.KindNpx),
		manifest("held", registry.KindBinary, registry.KindNpx),
		manifest("broken", registry.KindBinary),
		manifest("chatty", registry.KindNpx),
	}
	behaviours := map[string]string{"chatty": fakeagent.LogBefore, "zeta": fakeagent.Valid, "alpha": fakeagent.Untyped, "keyonly": fakeagent.EnvVarOnly, "held": fakeagent.Valid}
	var progress bytes.Buffer
	rep, err := Run(context.Background(), agents, Options{
		Jobs: 3, Timeout: 5 * time.Second, Sandbox: t.TempDir(),
		Quarantine: map[string]string{"held": "hangs on start, issue #12"},
		Install:    fakeInstall(t, behaviours), Client: acpclient.Implementation{Name: "verify-test", Version: "0.0.0"}, Progress: &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		r.InstallMs, r.HandshakeMs = 0, 0 // timings vary; the golden pins the shape
	}
	var got bytes.Buffer
	if err := cli.WriteJSON(&got, rep); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.golden.json", got.Bytes())
	if !rep.Failed() || rep.Summary != (Summary{Pass: 4, Fail: 2, Skip: 3, Quarantined: 2}) {
		t.Errorf("summary %+v", rep.Summary)
	}
	if n := strings.Count(progress.String(), "\n"); n != len(rep.Results) {
		t.Errorf("%d progress lines for %d results", n, len(rep.Results))
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	golden(t, "report.golden.txt", []byte(stripTimes(text.String())))

}

func TestRunKindsFilter(t *testing.T) {
	rep, err := Run(context.Background(), []*registry.Manifest{manifest("alpha", registry.KindNpx, registry.KindBinary)}, Options{
		Kinds: []registry.Kind{registry.KindBinary}, Timeout: 5 * time.Second, Sandbox: t.TempDir(),
		Install: fakeInstall(t, map[string]string{"alpha": fakeagent.Valid}), Client: acpclient.Implementation{Name: "verify-test", Version: "0.0.0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].Distribution != registry.KindBinary || rep.Results[0].Status != probe.StatusPass {
		t.Errorf("results %+v, want one passing binary result", rep.Results)
	}
}

// Ten agents that each take 1 s to answer must not take 10 s in all.
func TestRunConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a second")
	}
	el := runTen(t)
	if el > 5*time.Second { // generous: this is a guard, the benchmark measures
		t.Errorf("10 agents answering in 1s each took %s with the default --jobs", el)
	}
}

func runTen(t testing.TB) time.Duration {
	var agents []*registry.Manifest
	behaviours := map[string]string{}
	for i := 0; i < 10; i++ {
		id := "agent-" + string(rune('a'+i))
		agents = append(agents, manifest(id, registry.KindNpx))
		behaviours[id] = fakeagent.Valid
	}
	start := time.Now()
	// Default Jobs and InstallJobs: the defaults must fit work that waits.
	rep, err := Run(context.Background(), agents, Options{
		Timeout: 10 * time.Second, Sandbox: t.TempDir(),
		Install: fakeInstall(t, behaviours, "ACP_FAKE_DELAY", "1s"), Client: acpclient.Implementation{Name: "verify-test", Version: "0.0.0"},
	})
	el := time.Since(start)
	if err != nil || rep.Summary.Pass != 10 {
		t.Fatalf("err %v, summary %+v", err, rep.Summary)
	}
	return el
}

// BenchmarkVerifyTenSlowAgents is the target: 10 agents each
// answering after 1 s, with the default flags, in at most 1.2 s (the
// Python check: 10.4 s; our old default --jobs 4: 3.4 s).
func BenchmarkVerifyTenSlowAgents(b *testing.B) {
	for b.Loop() {
		el := runTen(b)
		b.ReportMetric(el.Seconds(), "s/run")
	}
}

// 200 agents must not start 200 installs (npm, uv) at once: at most
// DefaultInstallJobs run together, and more than one does.
func TestRunBoundsInstalls(t *testing.T) {
	var agents []*registry.Manifest
	for i := range 200 {
		agents = append(agents, manifest(fmt.Sprintf("agent-%03d", i), registry.KindNpx))
	}
	var mu sync.Mutex
	running, most := 0, 0
	// The first installs wait until the pool is full, so the test sees
	// the bound reached (and any install beyond it) without guessing
	// how long an install must last to overlap another.
	full := make(chan struct{})
	var fill sync.Once
	install := func(ctx context.Context, m *registry.Manifest, kind registry.Kind, dir string) (launch.Spec, error) {
		mu.Lock()
		running++
		most = max(most, running)
		if running == DefaultInstallJobs {
			fill.Do(func() { close(full) })
		}
		mu.Unlock()
		select {
		case <-full:
		case <-time.After(10 * time.Second):
			t.Errorf("the pool never held %d installs at once", DefaultInstallJobs)
		}
		mu.Lock()
		running--
		mu.Unlock()
		return launch.Spec{}, Skip("no runner")
	}
	rep, err := Run(context.Background(), agents, Options{Sandbox: t.TempDir(), Install: install})
	if err != nil || rep.Summary.Skip != 200 {
		t.Fatalf("err %v, summary %+v", err, rep.Summary)
	}
	if most != DefaultInstallJobs {
		t.Errorf("%d installs ran at once, want %d", most, DefaultInstallJobs)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func stripTimes(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, "; install "); i >= 0 {
			l = l[:i]
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func TestMatrixWriteFilesOutIsAFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "matrix")
	if err := os.WriteFile(out, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := (&Matrix{}).WriteFiles(out)
	if err == nil || !strings.Contains(err.Error(), "exists and is not a folder: remove it or choose another --out") {
		t.Errorf("err = %v", err)
	}
}
