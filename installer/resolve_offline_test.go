package installer

import (
	"errors"
	"net/http"
	"os"

	"context"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// Issue 26: an installed agent resolves without the network, always. The
// only node here is older than the package's engines.node and nodejs.org
// cannot be reached: the install records that node (with its warning),
// and five resolves in a row, with a mirror that refuses and then with
// one that never answers, make no request and show no download.
func TestInstalledResolveFetchesNothing(t *testing.T) {
	home, toolEnv := fakeHome(t)
	old := testkit.LinkSelf(t, filepath.Join(home, ".volta/tools/image/node/v94.0.0/bin/node"))
	in := npxInstaller(t, shapedNPM(t, claudeShaped(">=95"), ""), toolEnv)
	in.ManageRuntimes = true
	refusing, refused := testkit.DeadServer(t, testkit.Refuses)
	in.NodeMirror = refusing
	if _, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()}); err != nil {
		t.Fatal(err)
	}
	if refused() == 0 {
		t.Fatal("the install did not try to bring Node.js ≥ 95 (the test's premise)")
	}
	hanging, answered := testkit.DeadServer(t, testkit.Hangs)
	for _, m := range []struct {
		url   string
		conns func() int64
	}{{refusing, refused}, {hanging, answered}} {
		before := m.conns()
		for i := range 5 {
			fresh := npxInstaller(t, filepath.Join(t.TempDir(), "no-npm"), toolEnv)
			fresh.Root, fresh.ManageRuntimes, fresh.NodeMirror = in.Root, true, m.url
			var events strings.Builder
			fresh.Progress = progress.NewJSON(&events)
			spec, err := fresh.ResolveAgent(context.Background(), Query{ID: "claude-agent"}, Sources{})
			if err != nil {
				t.Fatalf("resolve %d with %s: %v", i+1, m.url, err)
			}
			if spec.Command != old || len(spec.Warnings) != 1 || !strings.Contains(spec.Warnings[0], ">=95") {
				t.Errorf("resolve %d: %+v, want %s with the old-node warning", i+1, spec, old)
			}
			if strings.Contains(events.String(), `"phase"`) {
				t.Errorf("resolve %d reported progress: %s", i+1, events.String())
			}
		}
		if n := m.conns() - before; n != 0 {
			t.Errorf("five resolves made %d connections to %s", n, m.url)
		}
	}
}

func hintOf(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return h.Hint()
	}
	return ""
}

// Issue 26: no node, no npm and no uv here, and neither can be
// downloaded: runtime-missing (not network) with the next step in the
// hint, and not remembered (installing node is the fix). With managed
// runtimes off, the same code and the install pages.
func TestRuntimeMissingSaysWhatToDo(t *testing.T) {
	_, toolEnv := fakeHome(t)
	mirror, conns := testkit.DeadServer(t, testkit.Refuses)
	in := managedInstaller(t, mirror, toolEnv)
	in.UVMirror = mirror
	_, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()})
	if !errors.Is(err, ErrRuntimeMissing) || !strings.Contains(err.Error(), "no Node.js and no npm here, and Node.js could not be downloaded from "+mirror) {
		t.Fatalf("npx: %v", err)
	}
	for _, want := range []string{"install Node.js (your package manager or nodejs.org)", "ACP_NODE_MIRROR to a mirror in nodejs.org's layout", "ACP_MANAGED_RUNTIMES=0 to use only your own"} {
		if !strings.Contains(hintOf(err), want) {
			t.Errorf("npx hint lacks %q: %q", want, hintOf(err))
		}
	}
	before := conns()
	if _, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()}); !errors.Is(err, ErrRuntimeMissing) || conns() == before {
		t.Errorf("a missing runtime was remembered instead of tried again: %v", err)
	}

	_, _, err = in.Install(context.Background(), Request{Agent: uvxManifest("1.0.0")})
	if !errors.Is(err, ErrRuntimeMissing) || !strings.Contains(err.Error(), "no uv here, and uv could not be downloaded from "+mirror) {
		t.Fatalf("uvx: %v", err)
	}
	if h := hintOf(err); !strings.Contains(h, "https://docs.astral.sh/uv/getting-started/installation/") || !strings.Contains(h, "ACP_UV_MIRROR") {
		t.Errorf("uvx hint: %q", h)
	}

	in.ManageRuntimes = false
	for _, m := range []*registry.Manifest{claudeManifest(), uvxManifest("1.0.0")} {
		_, _, err := in.Install(context.Background(), Request{Agent: m})
		h := hintOf(err)
		if !errors.Is(err, ErrRuntimeMissing) || !strings.Contains(h, "install ") || strings.Contains(h, "MIRROR") {
			t.Errorf("%s without managed runtimes: %v (hint %q)", m.ID, err, h)
		}
	}
}

// Issue 26: a resolve that finds the install damaged installs it again,
// and says so: a repair phase naming what was wrong, and a line on
// stderr (a warning event under --progress json).
func TestResolveSaysItRepairs(t *testing.T) {
	srv := newServer(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	in := newInstaller(t)
	m := binaryManifest("demo", "1.0.0", srv.add("/a.tgz", body), "agent", sha(body))
	if _, _, err := in.Install(context.Background(), Request{Agent: m}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(in.Root, "agents", "demo", "1.0.0", "agent"))
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)
	idx := &registry.Index{Agents: []registry.Manifest{*m}}
	spec, err := in.ResolveAgent(context.Background(), Query{ID: "demo"}, Sources{Registry: func(context.Context) (*registry.Index, error) { return idx, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spec.Command); err != nil {
		t.Fatalf("not repaired: %v", err)
	}
	got := events.String()
	if !strings.Contains(got, `"phase":"repair"`) || !strings.Contains(got, "is missing") || !strings.Contains(got, `"event":"warning"`) || !strings.Contains(got, "demo 1.0.0 is damaged (") {
		t.Errorf("the repair was not said:\n%s", got)
	}
}

// Issue 26: a failure is remembered for what it was about. Once the
// user changes what the attempt depended on (a mirror, a node on PATH,
// their settings), the next install tries again at once instead of
// replaying the old error for five minutes.
func TestFailureForgottenWhenInputsChange(t *testing.T) {
	srv := newServer(t)
	url := srv.handle("/a.tgz", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) })
	in := newInstaller(t)
	in.CacheDir = t.TempDir()
	m := binaryManifest("demo", "1.0.0", url, "agent", "")
	tries := func() int { return srv.count("/a.tgz") }
	if _, _, err := in.Install(context.Background(), Request{Agent: m}); !errors.Is(err, ErrDownload) {
		t.Fatalf("err = %v", err)
	}
	node := filepath.Join(t.TempDir(), "node")
	for _, change := range []struct {
		what string
		do   func()
	}{
		{"nothing", func() {}},
		{"a Node.js mirror set", func() { in.NodeMirror = "http://127.0.0.1:9/dist/" }},
		{"the config file changed", func() { in.Settings = "config.json 120 1764300000" }},
		{"a node on PATH", func() {
			in.LookPath = func(name string) (string, error) {
				if name == "node" {
					return node, nil
				}
				return "", errors.New("not found")
			}
		}},
	} {
		before := tries()
		change.do()
		_, _, err := in.Install(context.Background(), Request{Agent: m})
		recalled := err != nil && strings.Contains(err.Error(), "this failed")
		if want := change.what == "nothing"; recalled != want || (tries() == before) != want {
			t.Errorf("after %s: recalled %v, %d downloads (%v)", change.what, recalled, tries()-before, err)
		}
	}
}

// When the node recorded at install is gone, resolve takes the best node
// here without any download, and says so once (on the reporter and in
// the spec's warnings), naming install --force.
func TestRecordedNodeGoneSaidOnce(t *testing.T) {
	home, toolEnv := fakeHome(t)
	first := testkit.LinkSelf(t, filepath.Join(home, ".nvm/versions/node/v96.1.0/bin/node"))
	in := npxInstaller(t, shapedNPM(t, claudeShaped(">=95"), ""), toolEnv)
	if _, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()}); err != nil {
		t.Fatal(err)
	}
	other := testkit.LinkSelf(t, filepath.Join(home, ".volta/tools/image/node/v95.0.0/bin/node"))
	os.Remove(first)
	mirror, conns := testkit.DeadServer(t, testkit.Refuses)
	in.ManageRuntimes, in.NodeMirror = true, mirror
	var events strings.Builder
	in.Progress = progress.NewJSON(&events)
	spec, err := in.ResolveAgent(context.Background(), Query{ID: "claude-agent"}, Sources{})
	if err != nil || spec.Command != other {
		t.Fatalf("spec = %+v, %v; want %s", spec, err, other)
	}
	if len(spec.Warnings) != 1 || !strings.Contains(spec.Warnings[0], first+") is gone") || !strings.Contains(spec.Warnings[0], "acp install claude-agent --force") {
		t.Errorf("warnings = %q", spec.Warnings)
	}
	if n := strings.Count(events.String(), "is gone"); n != 1 || conns() != 0 {
		t.Errorf("said %d times, %d connections to the mirror:\n%s", n, conns(), events.String())
	}
}
