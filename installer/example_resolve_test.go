package installer_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// What `acp resolve demo --json` does, in-process: find the agent in the
// registry, install it if needed (download, sha256 check, safe
// extraction, atomic rename), and get the command to start it with. The
// editor then starts Command with Args and Env added to its environment,
// in the user's project, and speaks ACP on its stdin and stdout.
func ExampleInstaller_Resolve() {
	registryJSON, stop := serveAgent("1.0.0") // a registry.json naming a served archive
	defer stop()

	idx, err := registry.ParseIndex(registryJSON)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := idx.Find("demo")
	root, _ := os.MkdirTemp("", "acp-example-") // an editor: its data folder
	defer os.RemoveAll(root)
	in := &installer.Installer{Root: root, Platform: "linux-x86_64"} // Platform: default this machine's
	spec, err := in.Resolve(context.Background(), installer.Request{Agent: m}, installer.InstallIfMissing)
	if err != nil {
		fmt.Println(err) // errors.Is(err, installer.ErrDownload), ErrChecksum, … tell the cases apart
		return
	}
	fmt.Println(spec.ID, spec.Version, spec.Distribution)
	fmt.Println(filepath.Base(spec.Command), spec.Args, spec.Env)
	// Output:
	// demo 1.0.0 binary
	// demo-agent [--acp] map[DEMO_MODE:acp]
}

// serveAgent serves a tar.gz holding an executable on a loopback server
// and returns a registry.json offering it as version v of demo, and the
// server's stop.
func serveAgent(v string) (registryJSON []byte, stop func()) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	script := "#!/bin/sh\necho demo agent\n"
	tw.WriteHeader(&tar.Header{Name: "demo-agent", Mode: 0o755, Size: int64(len(script))})
	tw.Write([]byte(script))
	tw.Close()
	zw.Close()
	archive := buf.Bytes()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(archive) }))
	sum := sha256.Sum256(archive)
	registryJSON = fmt.Appendf(nil, `{"version": "1.0.0", "extensions": [], "agents": [{
		"id": "demo", "name": "Demo", "version": %q, "description": "A demo agent",
		"distribution": {"binary": {"linux-x86_64": {
			"archive": %q, "sha256": %q,
			"cmd": "./demo-agent", "args": ["--acp"], "env": {"DEMO_MODE": "acp"}}}}}]}`,
		v, srv.URL+"/demo-"+v+"-linux-x86_64.tar.gz", hex.EncodeToString(sum[:]))
	return registryJSON, srv.Close
}
