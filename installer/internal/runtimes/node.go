package runtimes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/installs"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Runtime is the node an npx install launches with, as its receipt
// records it (see installs.Runtime).
type Runtime = installs.Runtime

// nodeProbe is what running `node --version` told about one file.
type nodeProbe struct {
	size    int64
	modTime time.Time
	version *registry.Version
	err     error
}

// NodeFound is one node on this machine.
type NodeFound struct {
	Path    string
	Version *registry.Version
	size    int64
	modTime time.Time
}

func (n NodeFound) runtime(requires string) *Runtime {
	return &Runtime{Path: n.Path, Version: n.Version.String(), Requires: requires, Size: n.size, ModTime: n.modTime.UTC()}
}

// AbsFor reports whether p is an absolute path on goos (tests give
// Windows' locations on any system).
func AbsFor(goos, p string) bool {
	if goos != "windows" {
		return strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//") {
		return true // UNC
	}
	return len(p) >= 3 && kinds.HasDriveLetter(p) && (p[2] == '\\' || p[2] == '/')
}

// NodeSearch is where node is looked for beyond PATH: the version managers
// people use (nvm, fnm, volta, asdf, mise) and the system locations
// (Homebrew, /usr/local, the distribution's package). Patterns are globs;
// a desktop editor's PATH often has none of them.
func NodeSearch(goos, home string, getenv func(string) string) []string {
	var pats []string
	add := func(base string, rest ...string) {
		// A relative base would search the current folder (a repository
		// the user is in) for a node to run.
		if AbsFor(goos, base) {
			pats = append(pats, filepath.Join(append([]string{base}, rest...)...))
		}
	}
	if goos == "windows" {
		add(getenv("NVM_SYMLINK"), "node.exe")
		add(getenv("ProgramFiles"), "nodejs", "node.exe")
		add(getenv("ProgramFiles(x86)"), "nodejs", "node.exe")
		add(getenv("NVM_HOME"), "*", "node.exe")
		add(getenv("APPDATA"), "nvm", "*", "node.exe")
		add(getenv("FNM_DIR"), "node-versions", "*", "installation", "node.exe")
		add(getenv("APPDATA"), "fnm", "node-versions", "*", "installation", "node.exe")
		add(getenv("LOCALAPPDATA"), "Volta", "tools", "image", "node", "*", "node.exe")
		add(home, "scoop", "apps", "nodejs", "current", "node.exe")
		add(home, "scoop", "apps", "nodejs-lts", "current", "node.exe")
		return pats
	}
	add(getenv("NVM_DIR"), "versions", "node", "*", "bin", "node")
	add(home, ".nvm", "versions", "node", "*", "bin", "node")
	add(getenv("FNM_DIR"), "node-versions", "*", "installation", "bin", "node")
	add(getenv("XDG_DATA_HOME"), "fnm", "node-versions", "*", "installation", "bin", "node")
	add(home, ".local", "share", "fnm", "node-versions", "*", "installation", "bin", "node")
	add(home, ".fnm", "node-versions", "*", "installation", "bin", "node")
	if goos == "darwin" {
		add(home, "Library", "Application Support", "fnm", "node-versions", "*", "installation", "bin", "node")
	}
	add(getenv("VOLTA_HOME"), "tools", "image", "node", "*", "bin", "node")
	add(home, ".volta", "tools", "image", "node", "*", "bin", "node")
	add(home, ".asdf", "installs", "nodejs", "*", "bin", "node")
	add(home, ".local", "share", "mise", "installs", "node", "*", "bin", "node")
	pats = append(pats,
		"/opt/homebrew/bin/node",
		"/opt/homebrew/opt/node*/bin/node",
		"/usr/local/opt/node*/bin/node",
		"/usr/local/bin/node",
		"/usr/bin/node",
	)
	return pats
}

// nodeCandidates lists every node file this machine may have, PATH's first,
// and what was searched (for the error when there is none).
func (h *Host) nodeCandidates() (paths, searched []string) {
	if h.Node != "" {
		return []string{h.Node}, []string{h.Node}
	}
	searched = append(searched, "PATH")
	if p, err := h.PathLookup("node"); err == nil {
		paths = append(paths, p)
	}
	pats := h.Search
	if pats == nil {
		home, _ := os.UserHomeDir()
		pats = NodeSearch(runtime.GOOS, home, os.Getenv)
	}
	if m := h.managedNodeSearch(); m != "" {
		pats = append(pats[:len(pats):len(pats)], m)
	}
	for _, pat := range pats {
		searched = append(searched, pat)
		matches, _ := filepath.Glob(pat)
		// Newest directory names first, so ties between equal versions go
		// to the manager's newest folder.
		sort.Sort(sort.Reverse(sort.StringSlice(matches)))
		paths = append(paths, matches...)
	}
	return paths, searched
}

// rememberNode records what path answered, replacing an earlier answer
// only when replace is set.
func (h *Host) rememberNode(path string, p nodeProbe, replace bool) {
	c := h.Cache
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]nodeProbe{}
	}
	if _, ok := c.m[path]; ok && !replace {
		return
	}
	c.m[path] = p
}

// probeNode runs `path --version`, once per file state.
func (h *Host) probeNode(ctx context.Context, path string) (NodeFound, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return NodeFound{}, err
	}
	if !fi.Mode().IsRegular() {
		return NodeFound{}, fmt.Errorf("%s is not a file", path)
	}
	found := NodeFound{Path: path, size: fi.Size(), modTime: fi.ModTime()}
	p, ok := h.Cache.get(path)
	if ok && p.size == fi.Size() && p.modTime.Equal(fi.ModTime()) {
		found.Version = p.version
		return found, p.err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := askVersion(ctx, path, append(os.Environ(), "NODE_OPTIONS="), 256)
	var v *registry.Version
	if err == nil {
		v, err = registry.ParseVersion(out)
		if err != nil {
			err = fmt.Errorf("%s --version answered %q", path, out)
		}
	}
	if err != nil && ctx.Err() != nil {
		return found, err // interrupted or too slow: not remembered
	}
	h.rememberNode(path, nodeProbe{size: fi.Size(), modTime: fi.ModTime(), version: v, err: err}, true)
	found.Version = v
	return found, err
}

// VersionOf runs `path --version` as a diagnostic (acp doctor): within
// 10 s, reading at most 4 KiB of its output, and not waiting on children
// it leaves holding stdout. It returns the first line of the answer.
func VersionOf(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := askVersion(ctx, path, nil, 4<<10)
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	line, _, _ := strings.Cut(out, "\n")
	return line, nil
}

// askVersion runs `path --version` in env (nil: ours) and returns the
// first limit bytes of its output, trimmed. A child left holding stdout
// does not hold us: once the program has exited (or been killed), its
// output is what it wrote by then.
func askVersion(ctx context.Context, path string, env []string, limit int) (string, error) {
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &limitedBuffer{buf: &out, max: limit}
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

func (c *NodeCache) get(path string) (nodeProbe, bool) {
	if c == nil {
		return nodeProbe{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[path]
	return p, ok
}

// limitedBuffer keeps the first max bytes: a "node" that floods its output
// does not fill memory.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		if len(p) > room {
			l.buf.Write(p[:room])
		} else {
			l.buf.Write(p)
		}
	}
	return len(p), nil
}

// Nodes probes every candidate, dropping missing files, broken ones and
// duplicates (the same file reached through two links), newest first; the
// order of nodeCandidates breaks ties.
func (h *Host) Nodes(ctx context.Context) ([]NodeFound, []string) {
	paths, searched := h.nodeCandidates()
	seen := map[string]bool{}
	var out []NodeFound
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			if a, err := filepath.Abs(p); err == nil {
				p = a
			}
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		n, err := h.probeNode(ctx, p)
		if err != nil {
			continue
		}
		out = append(out, n)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Version.GreaterThan(out[j].Version) })
	return out, searched
}

// engineConstraint reads engines.node with npm's range syntax (which
// registry.ParseRange reads: ||, space-separated comparators, ^, ~, x). An
// empty or unreadable range asks for nothing: npm, too, only warns.
func engineConstraint(requires string) *registry.Range {
	r := strings.TrimSpace(requires)
	if r == "" || r == "*" {
		return nil
	}
	c, err := registry.ParseRange(r)
	if err != nil {
		return nil
	}
	return c
}

func satisfiesEngine(c *registry.Range, v *registry.Version) bool {
	if c == nil {
		return true
	}
	if c.Check(v) {
		return true
	}
	// A node pre-release (v23.0.0-nightly) is judged by its release, as
	// npm does with includePrerelease.
	if v.Prerelease() != "" {
		r, err := registry.ParseVersion(fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch()))
		return err == nil && c.Check(r)
	}
	return false
}

// FindNode is the node a new npx install of pkg records, decided once at
// install (and upgrade, install --force): the newest that satisfies
// requires (managed ones included), else one acp brings (EnsureNode, when
// it may), else (with a warning) the newest there is. No node at all is
// ErrRuntimeMissing naming the version needed, where it looked and what
// to do. Resolve and run never come here: see LaunchNode.
func (h *Host) FindNode(ctx context.Context, id, pkg, requires string) (*Runtime, string, error) {
	c := engineConstraint(requires)
	found, searched := h.Nodes(ctx)
	for _, n := range found {
		if satisfiesEngine(c, n.Version) {
			return h.runtimeOf(n, requires), "", nil
		}
	}
	need := "Node.js"
	if c != nil {
		need = "Node.js " + strings.TrimSpace(requires)
	}
	var managedErr error
	if h.canManage() {
		rt, err := h.EnsureNode(ctx, id, requires)
		if err == nil {
			return rt, "", nil
		}
		if ctx.Err() != nil {
			return nil, "", kinds.Stopped(ctx)
		}
		// A mirror that serves other bytes than it lists ends the
		// install; a network failure leaves the old node.
		if len(found) == 0 {
			return nil, "", h.nodeMissing(id, pkg, requires, searched, err)
		}
		if errors.Is(err, kinds.ErrChecksum) {
			return nil, "", fmt.Errorf("%s (%s) needs %s, and acp could not bring it: %w", id, pkg, need, err)
		}
		managedErr = err
	}
	if len(found) == 0 {
		if err := ctx.Err(); err != nil {
			return nil, "", kinds.Stopped(ctx)
		}
		return nil, "", h.nodeMissing(id, pkg, requires, searched, nil)
	}
	n := found[0]
	warn := fmt.Sprintf("%s (%s) asks for node %s (its engines.node) but the newest node here is %s (%s): using it, as npm does; if the agent fails to start, install %s", id, pkg, strings.TrimSpace(requires), n.Version, n.Path, need)
	if managedErr != nil {
		warn += fmt.Sprintf(" (acp could not install it: %v)", managedErr)
	}
	return h.runtimeOf(n, requires), warn, nil
}

// LaunchNode is the node an installed npx agent launches with, as resolve
// and run decide it: never a download, never a request, and no search
// while the node recorded at install is there (even one older than
// requires, chosen then with a warning: install --force chooses again).
// When the recorded node is gone, the best node here stands in, and the
// warning says so. No node at all is ErrRuntimeMissing.
func (h *Host) LaunchNode(ctx context.Context, id, pkg, requires string, recorded *Runtime) (*Runtime, string, error) {
	c := engineConstraint(requires)
	var rec *NodeFound // the recorded node, while its file is there
	if recorded != nil && recorded.Path != "" && h.Node == "" {
		if fi, err := os.Stat(recorded.Path); err == nil && fi.Mode().IsRegular() {
			v, verr := registry.ParseVersion(recorded.Version)
			if verr == nil && fi.Size() == recorded.Size && fi.ModTime().Equal(recorded.ModTime) {
				// The same file: its version is known from the receipt.
				rec = &NodeFound{Path: recorded.Path, Version: v, size: recorded.Size, modTime: recorded.ModTime}
			} else if n, err := h.probeNode(ctx, recorded.Path); err == nil {
				rec = &n // node upgraded in place: asked once
			}
		}
	}
	if rec != nil {
		r := h.runtimeOf(*rec, requires)
		r.Managed = r.Managed || recorded.Managed
		if satisfiesEngine(c, rec.Version) {
			return r, "", nil
		}
		return r, h.oldNodeWarning(id, pkg, requires, *rec), nil
	}
	found, searched := h.Nodes(ctx)
	var n *NodeFound
	for i := range found {
		if satisfiesEngine(c, found[i].Version) {
			n = &found[i]
			break
		}
	}
	switch {
	case n != nil:
	case len(found) > 0:
		n = &found[0]
	default:
		if err := ctx.Err(); err != nil {
			return nil, "", kinds.Stopped(ctx)
		}
		return nil, "", h.localNodeMissing(id, pkg, requires, searched)
	}
	var warns []string
	if recorded != nil && recorded.Path != "" && h.Node == "" {
		warns = append(warns, fmt.Sprintf("%s: the node it was installed with (%s) is gone; using %s %s (acp install %s --force records it)", id, recorded.Path, n.Path, n.Version, id))
	}
	if !satisfiesEngine(c, n.Version) {
		warns = append(warns, h.oldNodeWarning(id, pkg, requires, *n))
	}
	return h.runtimeOf(*n, requires), strings.Join(warns, "; "), nil
}

// oldNodeWarning says that n is older than requires and is used anyway.
func (h *Host) oldNodeWarning(id, pkg, requires string, n NodeFound) string {
	return fmt.Sprintf("%s (%s) asks for node %s (its engines.node) but the node it runs with is %s (%s): using it, as npm does; if the agent fails to start, install %s, then run acp install %s --force", id, pkg, strings.TrimSpace(requires), n.Version, n.Path, rangeName(requires), id)
}

// NPMNear finds npm beside a node of the usual install locations, for a
// PATH without npm (a desktop editor's).
func (h *Host) NPMNear(ctx context.Context) (string, error) {
	name := "npm"
	if runtime.GOOS == "windows" {
		name = "npm.cmd"
	}
	found, _ := h.Nodes(ctx)
	for _, n := range found {
		p := filepath.Join(filepath.Dir(n.Path), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", name)
}

// Interpreter reads the "#!" line of a script and checks that the
// program it names exists. A native executable (uv's trampolines on
// Windows) has none and needs nothing.
func Interpreter(script string) (string, error) {
	f, err := os.Open(script)
	if err != nil {
		return "", fmt.Errorf("its entry point %s is gone", script)
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := f.Read(head)
	line, _, _ := bytes.Cut(head[:n], []byte("\n"))
	if !bytes.HasPrefix(line, []byte("#!")) {
		return "", nil
	}
	fields := strings.Fields(string(line[2:]))
	if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
		return "", nil
	}
	if _, err := os.Stat(fields[0]); err != nil {
		return fields[0], fmt.Errorf("its python %s is gone", fields[0])
	}
	return fields[0], nil
}
