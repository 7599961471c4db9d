package installer

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// deadMirror is a Node.js mirror on loopback that nobody can use: it
// refuses (takes each connection and closes it) or, with hang, takes
// each connection and never answers. It counts the connections.
func deadMirror(t testing.TB, hang bool) (url string, conns func() int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	var mu sync.Mutex
	var held []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			if !hang {
				c.Close()
				continue
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	return "http://" + l.Addr().String() + "/dist/", n.Load
}

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
	refusing, refused := deadMirror(t, false)
	in.NodeMirror = refusing
	if _, _, err := in.Install(context.Background(), Request{Agent: claudeManifest()}); err != nil {
		t.Fatal(err)
	}
	if refused() == 0 {
		t.Fatal("the install did not try to bring Node.js ≥ 95 (the test's premise)")
	}
	hanging, answered := deadMirror(t, true)
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
