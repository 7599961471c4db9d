package installer

import (
	"context"
	"sync"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// One install decides its distribution once: the runners a choice needs
// (node and npm, uv) are looked for by that one decision, not again by
// every step that wants to know what was chosen. Where node is not on
// PATH, each look is a search of every version manager's folders.
func TestInstallChoosesOnce(t *testing.T) {
	npm := nativeNPM(t, "once-agent")
	uv, _ := fakeUV(t, false)
	var mu sync.Mutex
	looked := map[string]int{}
	in := newInstaller(t)
	in.NPM, in.UV = npm, uv
	in.LookPath = func(name string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		looked[name]++
		if name == "uv" {
			return uv, nil
		}
		return npm, nil // node and npm: a native bin needs no node to run
	}
	for _, c := range []struct {
		name string
		m    *registry.Manifest
	}{
		{"npx", &registry.Manifest{ID: "once", Version: "1.0.0", Distribution: registry.Distribution{Npx: &registry.Package{Package: "once-agent@1.0.0"}}}},
		{"uvx", uvxManifest("0.4.1")},
	} {
		clear(looked)
		if _, _, err := in.Install(context.Background(), Request{Agent: c.m}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, name := range []string{"node", "npm", "uv"} {
			if looked[name] > 1 {
				t.Errorf("%s install: %s looked for %d times, want at most once: %v", c.name, name, looked[name], looked)
			}
		}
	}
}
