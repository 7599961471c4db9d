package installer_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

// phases is an editor's own progress reporter: it keeps the phases an
// install goes through, to draw them in its UI. Any type with these three
// methods will do; the installer calls them from its own goroutines.
type phases struct {
	mu    sync.Mutex
	seen  []string
	bytes int64
}

func (p *phases) Phase(agent, phase, what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, agent+":"+phase)
}

func (p *phases) Bytes(agent string, n, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bytes = n
}

func (p *phases) Warn(msg string) { fmt.Println("warning:", msg) }

var _ progress.Reporter = (*phases)(nil)

// An editor installs an agent with its own progress reporter, then reads
// the receipt: what was installed, from where, and the launch spec to
// start it with.
func ExampleInstaller_Install() {
	registryURL, where, cleanup := exampleRegistry()
	defer cleanup()
	ctx := context.Background()
	idx, _, err := source.Load(ctx, source.Options{Registry: registryURL, CacheDir: where.Cache})
	if err != nil {
		panic(err)
	}
	agent, err := idx.Lookup("demo")
	if err != nil {
		panic(err)
	}

	rep := &phases{}
	in := &installer.Installer{Root: where.Data, Progress: rep}
	var r *installer.Receipt
	r, already, err := in.Install(ctx, installer.Request{Agent: agent})
	if err != nil {
		panic(err)
	}
	fmt.Println("already installed:", already)
	fmt.Println("phases:", strings.Join(rep.seen, " "), "bytes:", rep.bytes > 0)
	fmt.Println("receipt:", r.ID, r.Version, r.Distribution, len(r.SHA256), "hex digits of sha256, from", filepath.Base(r.URL))
	fmt.Println("folder:", filepath.Base(filepath.Dir(r.Dir))+"/"+filepath.Base(r.Dir))

	var spec installer.LaunchSpec = r.Launch
	fmt.Println("launch:", filepath.Base(spec.Command), spec.Args, spec.Env["DEMO_MODE"], len(spec.Warnings), "warnings")
	// Output:
	// already installed: false
	// phases: demo:download demo:verify demo:extract demo:done bytes: true
	// receipt: demo 1.0.0 binary 64 hex digits of sha256, from demo.tar.gz
	// folder: demo/1.0.0
	// launch: demo-agent [--acp] editor 0 warnings
}
