package installer_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

// Example does in-process what `acp resolve demo --json` does: read the
// registry, find the agent, install it unless it is installed, and get
// the launch spec to start it with (command, args, env; the working
// directory is the editor's choice). An editor uses installer.DefaultDirs()
// for the directories, shared with the acp command, and the public registry
// (Registry left empty); this example runs against a registry of its own.
func Example() {
	registryURL, where, cleanup := exampleRegistry()
	defer cleanup()

	ctx := context.Background()
	idx, _, err := source.Load(ctx, source.Options{Registry: registryURL, CacheDir: where.Cache})
	if err != nil {
		panic(err)
	}
	agent, err := idx.Lookup("demo") // a *registry.NotFoundError lists close ids
	if err != nil {
		panic(err)
	}
	in := &installer.Installer{Root: where.Data} // Platform: this machine's

	spec, err := in.Resolve(ctx, installer.Request{Agent: agent}, installer.InstallIfMissing)
	if err != nil {
		panic(err)
	}
	fmt.Println(spec.ID, spec.Version, spec.Distribution, filepath.Base(spec.Command), spec.Args, spec.Env)
	// Output: demo 1.0.0 binary demo-agent [--acp] map[DEMO_MODE:editor]
}

// exampleRegistry serves a one-agent registry and its archive on
// loopback, and gives directories to install into.
func exampleRegistry() (string, installer.Dirs, func()) {
	archive := testarchive.TarGz(testarchive.File{Name: "bin/demo-agent", Body: "#!/bin/sh\n"})
	sum := sha256.Sum256(archive)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	target := fmt.Sprintf(`{"archive":%q,"sha256":%q,"cmd":"./bin/demo-agent","args":["--acp"],"env":{"DEMO_MODE":"editor"}}`, srv.URL+"/demo.tar.gz", hex.EncodeToString(sum[:]))
	var targets string
	for _, p := range []string{"linux-x86_64", "linux-aarch64", "darwin-x86_64", "darwin-aarch64", "windows-x86_64", "windows-aarch64"} {
		if targets != "" {
			targets += ","
		}
		targets += fmt.Sprintf("%q:%s", p, target)
	}
	index := `{"version":"1.0.0","agents":[{"id":"demo","name":"Demo","version":"1.0.0","description":"An example agent","distribution":{"binary":{` + targets + `}}}],"extensions":[]}`
	mux.HandleFunc("/registry.json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, index) })
	mux.HandleFunc("/demo.tar.gz", func(w http.ResponseWriter, r *http.Request) { w.Write(archive) })
	tmp, err := os.MkdirTemp("", "acp-example-")
	if err != nil {
		panic(err)
	}
	where := installer.Dirs{Data: filepath.Join(tmp, "data"), Cache: filepath.Join(tmp, "cache")}
	return srv.URL + "/registry.json", where, func() { srv.Close(); os.RemoveAll(tmp) }
}
