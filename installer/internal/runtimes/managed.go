package runtimes

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/platform"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// DefaultNodeMirror is where official Node.js builds come from unless
// ACP_NODE_MIRROR names a mirror with the same layout.
const DefaultNodeMirror = "https://nodejs.org/dist/"

// Managed is how acp brings runtimes of its own (Node.js, uv) when the
// machine has none that fits. The installer fills it in; Root "" turns it
// off.
type Managed struct {
	// Root is the data folder's runtimes/: node/<version>/, uv/<version>/.
	Root string
	// NodeMirror and UVMirror are base URLs in nodejs.org's /dist layout
	// and in uv's release layout (see DefaultUVMirror).
	NodeMirror, UVMirror string
	// Download fetches url into dir and returns the file; a non-empty
	// sha256 must match before it returns, and a file over max bytes (0:
	// the downloader's own bound) is cut off as it arrives (the
	// installer's downloader: its policy, retries and progress).
	Download func(ctx context.Context, what, url, dir, sha256 string, max int64) (string, error)
	// Extract unpacks an archive into dest (the installer's extraction).
	Extract func(ctx context.Context, archive, dest string) error
}

// nodeRelease is one entry of a mirror's index.json.
type nodeRelease struct {
	Version string          `json:"version"`
	Files   []string        `json:"files"`
	LTS     json.RawMessage `json:"lts"` // false, or the line's name
}

// NodeBuild names the official build for goos/goarch: its archive's
// platform part, extension and the key index.json lists it under.
func NodeBuild(goos, goarch string) (plat, ext, key string, ok bool) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64", "386": "x86", "arm": "armv7l", "ppc64le": "ppc64le", "s390x": "s390x"}[goarch]
	if arch == "" {
		return "", "", "", false
	}
	switch goos {
	case "linux":
		return "linux-" + arch, ".tar.gz", "linux-" + arch, true
	case "darwin":
		return "darwin-" + arch, ".tar.gz", "osx-" + arch + "-tar", true
	case "windows":
		return "win-" + arch, ".zip", "win-" + arch + "-zip", true
	}
	return "", "", "", false
}

// pickNode is the newest release of the newest major line that satisfies
// c and has a build under key, LTS lines first.
func pickNode(rels []nodeRelease, c *registry.Range, key string) *registry.Version {
	var best, bestLTS *registry.Version
	for _, r := range rels {
		v, err := registry.ParseVersion(r.Version)
		if err != nil || v.Prerelease() != "" || !satisfiesEngine(c, v) || !hasFile(r.Files, key) {
			continue
		}
		if best == nil || v.GreaterThan(best) {
			best = v
		}
		lts := len(r.LTS) > 0 && string(r.LTS) != "false" && string(r.LTS) != "null"
		if lts && (bestLTS == nil || v.GreaterThan(bestLTS)) {
			bestLTS = v
		}
	}
	if bestLTS != nil {
		return bestLTS
	}
	return best
}

func hasFile(files []string, key string) bool {
	for _, f := range files {
		if f == key {
			return true
		}
	}
	return false
}

// managedNodeExe is node inside an official build's folder.
func managedNodeExe(dir string) string {
	if runtime.GOOS == "windows" {
		return filepath.Join(dir, "node.exe")
	}
	return filepath.Join(dir, "bin", "node")
}

// managedNodeSearch is the glob of the managed nodes already present.
func (h *Host) managedNodeSearch() string {
	if h.Managed == nil || h.Managed.Root == "" {
		return ""
	}
	return managedNodeExe(filepath.Join(h.Managed.Root, "node", "v*"))
}

// canManage: acp may bring a runtime of its own now (not offline, where
// only those already present count, nor turned off).
func (h *Host) canManage() bool {
	return h.Managed != nil && h.Managed.Root != "" && h.Managed.Download != nil && !h.Offline
}

// EnsureNode installs the official Node.js build that fits requires
// (engines.node; "" for any) into Root/node/v<version>/, unless it is
// there already, checked against the release's SHASUMS256.txt.
func (h *Host) EnsureNode(ctx context.Context, agent, requires string) (*Runtime, error) {
	m := h.Managed
	plat, ext, key, ok := NodeBuild(runtime.GOOS, runtime.GOARCH)
	if !ok {
		return nil, kinds.Errorf(kinds.ErrRunnerMissing, "no official Node.js build exists for %s/%s: install node yourself", runtime.GOOS, runtime.GOARCH)
	}
	if platform.Libc() == "musl" {
		return nil, kinds.Errorf(kinds.ErrRunnerMissing, "official Node.js builds need glibc, and this system uses musl (Alpine): install node and npm with the system's packages (apk add nodejs npm)")
	}
	base := strings.TrimSuffix(m.NodeMirror, "/") + "/"
	work := filepath.Join(m.Root, "node")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(work, ".tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var rels []nodeRelease
	if err := h.fetchJSON(ctx, agent, base+"index.json", tmp, &rels); err != nil {
		return nil, err
	}
	v := pickNode(rels, engineConstraint(requires), key)
	if v == nil && requires == "" {
		return nil, kinds.Errorf(kinds.ErrRunnerMissing, "%sindex.json lists no release for %s: check ACP_NODE_MIRROR", remote.RedactURL(base), plat)
	}
	if v == nil {
		return nil, kinds.Errorf(kinds.ErrRunnerMissing, "%s needs Node.js %s, and %sindex.json lists no release for %s that satisfies it", agent, requires, remote.RedactURL(base), plat)
	}
	tag := "v" + v.String()
	dir := filepath.Join(work, tag)
	if exists(dir) {
		if err := h.CheckNodeBuild(ctx, dir); err == nil {
			return h.managedRuntime(ctx, dir, requires)
		} else {
			// Broken (an older acp kept a build without npm): replaced.
			h.reporter().Warn(fmt.Sprintf("the Node.js %s acp brought (%s) is broken (%v): installing it again", tag, dir, err))
			if err := os.RemoveAll(dir); err != nil {
				return nil, fmt.Errorf("remove the broken Node.js %s: %w", tag, err)
			}
		}
	}
	name := "node-" + tag + "-" + plat + ext
	sum, err := h.releaseSum(ctx, agent, base+tag+"/SHASUMS256.txt", name, tmp)
	if err != nil {
		return nil, err
	}
	file, err := m.Download(ctx, agent, base+tag+"/"+name, tmp, sum, 0)
	if err != nil {
		return nil, fmt.Errorf("install Node.js %s (its sha256 from %sSHASUMS256.txt): %w", tag, remote.RedactURL(base+tag+"/"), err)
	}
	h.reporter().Phase(agent, progress.Extract, "node "+tag)
	unpacked := filepath.Join(tmp, "x")
	if err := m.Extract(ctx, file, unpacked); err != nil {
		return nil, fmt.Errorf("unpack Node.js %s: %w", tag, err)
	}
	top := filepath.Join(unpacked, strings.TrimSuffix(name, ext))
	if _, err := os.Stat(managedNodeExe(top)); err != nil {
		return nil, fmt.Errorf("install Node.js %s: %s holds no %s", tag, name, filepath.Base(managedNodeExe(top)))
	}
	if err := h.CheckNodeBuild(ctx, top); err != nil {
		return nil, h.badBuild(fmt.Sprintf("Node.js %s from %s", tag, remote.RedactURL(base+tag+"/"+name)), err)
	}
	// Another install may have put the same version in place meanwhile:
	// its copy is as good as ours.
	if err := os.Rename(top, dir); err != nil && !exists(dir) {
		return nil, err
	}
	return h.managedRuntime(ctx, dir, requires)
}

// badBuild is the error of a runtime build that failed its check: the
// mirror's to fix, so the kind says install-failed (or unsafe-archive
// for links out), with the reason.
func (h *Host) badBuild(what string, err error) error {
	kind := kinds.ErrInstallFailed
	if errors.Is(err, kinds.ErrUnsafeArchive) {
		kind = kinds.ErrUnsafeArchive
	}
	return &kinds.Error{Msg: fmt.Sprintf("%s is not a usable build: %v", what, err), Kind: kind, Err: err, Help: "check ACP_NODE_MIRROR / ACP_UV_MIRROR: the mirror's build is incomplete or altered"}
}

var timeNow = time.Now

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// managedRuntime is the Runtime of the managed node in dir.
func (h *Host) managedRuntime(ctx context.Context, dir, requires string) (*Runtime, error) {
	n, err := h.probeNode(ctx, managedNodeExe(dir))
	if err != nil {
		return nil, err
	}
	// gc spares a runtime stamped recently: the install it is for has
	// not written its receipt yet.
	now := timeNow()
	os.Chtimes(dir, now, now)
	return h.runtimeOf(n, requires), nil
}

// runtimeOf is n's Runtime, marked Managed when acp installed it.
func (h *Host) runtimeOf(n NodeFound, requires string) *Runtime {
	rt := n.runtime(requires)
	if h.Managed != nil && h.Managed.Root != "" {
		_, rt.Managed = ManagedIn(h.Managed.Root, n.Path)
	}
	return rt
}

// maxMirrorJSON bounds what a mirror's index.json may hold in memory:
// nodejs.org's is well under a megabyte.
const maxMirrorJSON = 16 << 20

// maxSums bounds a release's SHASUMS256.txt (nodejs.org's: a few KiB).
const maxSums = 1 << 20

// fetchJSON downloads a small document and decodes it.
func (h *Host) fetchJSON(ctx context.Context, agent, url, dir string, v any) error {
	file, err := h.Managed.Download(ctx, agent, url, dir, "", maxMirrorJSON)
	if err != nil {
		return err
	}
	defer os.Remove(file)
	data, err := registry.ReadRegular(file, maxMirrorJSON)
	if errors.As(err, new(*registry.TooLargeError)) {
		return fmt.Errorf("%s is larger than %d MiB, far beyond a Node.js mirror's index: check ACP_NODE_MIRROR", remote.RedactURL(url), maxMirrorJSON>>20)
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s is not the JSON a Node.js mirror serves (%v): check ACP_NODE_MIRROR", remote.RedactURL(url), err)
	}
	return nil
}

// releaseSum reads name's sha256 from a SHASUMS256.txt.
func (h *Host) releaseSum(ctx context.Context, agent, url, name, dir string) (string, error) {
	file, err := h.Managed.Download(ctx, agent, url, dir, "", maxSums)
	if err != nil {
		return "", err
	}
	defer os.Remove(file)
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && strings.TrimPrefix(fields[1], "*") == name && kinds.ValidSHA256(fields[0]) {
			return strings.ToLower(fields[0]), nil
		}
	}
	return "", kinds.Errorf(kinds.ErrChecksum, "%s lists no sha256 for %s: the mirror is incomplete", remote.RedactURL(url), name)
}

// ManagedIn reports whether path lies inside the managed runtimes' root,
// and which runtime folder it is ("node/v22.1.0").
func ManagedIn(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	parts := strings.SplitN(filepath.ToSlash(rel), "/", 3)
	if len(parts) < 2 {
		return "", false
	}
	return parts[0] + "/" + parts[1], true
}
