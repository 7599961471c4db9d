package runtimes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Hints for a machine without the runner a distribution needs.
const (
	NodeHint = "npx distribution needs Node.js (node and npm): install it from https://nodejs.org"
	UVHint   = "uvx distribution needs uv: install it from https://docs.astral.sh/uv/getting-started/installation/"
)

// toolRun is one npm or uv run.
type toolRun struct {
	agent, phase string
	what         string // "npm install @x/y@1.0.0", for messages
	pkg          string // what is installed, for the reporter
	// refusal, when set, reads a failed run's output for a failure of
	// its own (npm's policy, a lifecycle script); nil: a plain one.
	refusal   func(out string) *kinds.Error
	prog      string
	dir       string // working directory: the install's own, never the caller's
	args, env []string
}

// runTool runs npm or uv in t.dir with its output kept (not shown: stdout
// is reserved for results, and a successful install has nothing to say);
// a failure carries the output's last lines, so it is shown once. An
// install still running after InstallTimeout is stopped, its whole process
// group killed.
func (h *Host) runTool(ctx context.Context, t toolRun) error {
	h.reporter().Phase(t.agent, t.phase, t.pkg)
	tail := &tailBuffer{max: 40}
	timeout := h.InstallTimeout
	runCtx, cancel := context.WithTimeoutCause(ctx, timeout, errToolTimeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, t.prog, t.args...)
	base := h.toolBase()
	cmd.Env = launch.Merge(base, envMap(t.env))
	cmd.Dir = t.dir
	h.debugf("run %s %s in %s, environment plus %s (stopped after %s)", t.prog, strings.Join(t.args, " "), t.dir, strings.Join(t.env, " "), timeout)
	cmd.Stdout = tail
	cmd.Stderr = tail
	cmd.Stdin = nil
	// A lifecycle script's background child keeps the output pipe open:
	// Wait gives up on it shortly after the process group is gone.
	cmd.WaitDelay = 3 * time.Second
	ownGroup(cmd)
	err := cmd.Run()
	killGroup(cmd) // nothing an install script started outlives the install
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", t.what, kinds.Stopped(ctx))
	}
	lines := tail.String()
	if t.refusal != nil && !h.Offline {
		if e := t.refusal(lines); e != nil {
			return e
		}
	}
	said := ""
	if shown := errorLines(lines); shown != "" {
		said = "; its last lines:\n" + safetext.Lines(shown, "  ")
	}
	name := filepath.Base(t.prog)
	if errors.Is(context.Cause(runCtx), errToolTimeout) {
		return &kinds.Error{Kind: kinds.ErrInstallFailed, Msg: fmt.Sprintf("%s: stopped after %s without finishing (raise it with --install-timeout)%s", t.what, timeout, said)}
	}
	e := &kinds.Error{Kind: kinds.ErrInstallFailed, Msg: fmt.Sprintf("%s failed (%s: %v)%s", t.what, name, err, said)}
	switch {
	case h.Offline:
		// Not in npm's or uv's cache: offline, that is "not installed".
		e.Kind, e.Msg = kinds.ErrNotInstalled, fmt.Sprintf("%s failed offline (not in %s's cache: connect and install, or drop --offline)%s", t.what, name, said)
	case networkFailure(lines):
		e.Err = kinds.ErrDownload
		var proxied bool
		e.Help, proxied = networkHint(t.phase, cmd.Env)
		if proxied {
			// The proxy is the user's setting: fixed, it must work at
			// once, not after the failure memory.
			e.Err = errors.Join(kinds.ErrDownload, kinds.ErrLocalSettings)
		}
	}
	return e
}

// envMap is KEY=VALUE pairs as a map (the last of a name wins).
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// toolBase is the environment npm and uv start from: ToolEnv when set,
// else the caller's.
func (h *Host) toolBase() []string {
	if h.ToolEnv != nil {
		return h.ToolEnv
	}
	return os.Environ()
}

// errorLines is what a failed npm said in its own words: its "npm error"
// (npm 10+) or "npm ERR!" lines without the stack trace, the dump of the
// error object and the pointer to its debug log, which are for npm's own
// bug reports (issue 22). Other tools' output, or an npm that said no
// such line, is kept whole.
func errorLines(out string) string {
	var kept []string
	found := false
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(line, "npm error")
		if !ok {
			rest, ok = strings.CutPrefix(line, "npm ERR!")
		}
		if !ok {
			continue
		}
		found = true
		if !strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "  ") {
			continue // "npm error" alone, or an indented stack or object line
		}
		rest = strings.TrimSpace(rest)
		if rest == "}" || strings.HasPrefix(rest, "A complete log of this run") || strings.HasPrefix(rest, "Log files were not written") {
			continue
		}
		kept = append(kept, line)
	}
	if !found || len(kept) == 0 {
		return out
	}
	return strings.Join(kept, "\n")
}

// proxyVars are the variables npm and uv take a proxy from, in the order
// a message names them.
var proxyVars = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "npm_config_https_proxy", "npm_config_proxy"}

// networkHint says what to check when npm or uv could not reach their
// registry: the proxy by name when one is set (a dead proxy left in the
// environment is the usual cause), else the network. A proxy's user and
// password are not repeated. proxied: a proxy is set.
func networkHint(phase string, env []string) (hint string, proxied bool) {
	tool := "npm"
	if phase == progress.UV {
		tool = "uv"
	}
	for _, k := range proxyVars {
		v := EnvValue(env, k)
		if v == "" {
			continue
		}
		if u, err := url.Parse(v); err == nil && u.User != nil {
			u.User = nil
			v = u.String()
		}
		return fmt.Sprintf("%s could not reach its registry through the proxy %s=%s: check that the proxy is running, or unset %s", tool, k, safetext.Terminal(v), k), true
	}
	return fmt.Sprintf("%s could not reach its registry: check the network connection (or its registry setting), then try again; acp install --force retries at once", tool), false
}

// npmNetwork bounds npm's own retries and waits, which by default keep a
// dead network busy for 70 s (2 retries, 10 s then 60 s apart) while an
// editor waits on resolve: one retry a second later, and 10 s for an
// answer, the budget of acp's own registry fetch. A setting the user gave
// npm in the environment (npm_config_fetch_retries, ...) is kept.
func npmNetwork(env []string) []string {
	var args []string
	for _, s := range [][2]string{
		{"fetch-retries", "1"}, {"fetch-retry-mintimeout", "1000"},
		{"fetch-retry-maxtimeout", "2000"}, {"fetch-timeout", "10000"},
	} {
		if EnvValue(env, "npm_config_"+strings.ReplaceAll(s[0], "-", "_")) == "" {
			args = append(args, "--"+s[0]+"="+s[1])
		}
	}
	return args
}

// uvNetwork does for uv what npmNetwork does for npm: uv waits 30 s on a
// read and retries 3 times. The user's own UV_HTTP_* settings are kept.
func uvNetwork(env []string) []string {
	var add []string
	for _, kv := range []string{"UV_HTTP_TIMEOUT=10", "UV_HTTP_CONNECT_TIMEOUT=3", "UV_HTTP_RETRIES=1"} {
		k, _, _ := strings.Cut(kv, "=")
		if EnvValue(env, k) == "" {
			add = append(add, kv)
		}
	}
	return add
}

var errToolTimeout = errors.New("install timeout")

// networkFailure recognises npm's and uv's words for a network that did
// not answer, so the next distribution can be tried.
func networkFailure(out string) bool {
	for _, s := range []string{
		"ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNREFUSED", "ECONNRESET", "ENETUNREACH", "EHOSTUNREACH",
		"ERR_SOCKET_TIMEOUT", "socket hang up", "network request to", "FETCH_ERROR", "Proxy connection ended", "tunneling socket", // npm
		"error sending request", "dns error", "Connection refused", "Failed to fetch", "operation timed out", // uv
	} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// EnvValue is name's value in env (the last one set, as exec reads it; on
// Windows names ignore case), "" when unset.
func EnvValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		k, val, _ := strings.Cut(kv, "=")
		if k == name || (runtime.GOOS == "windows" && strings.EqualFold(k, name)) {
			v = val
		}
	}
	return v
}

func (h *Host) program(field, name, hint string) (string, error) {
	if field != "" {
		return field, nil
	}
	p, err := h.Look(name)
	if err != nil {
		return "", kinds.Errorf(kinds.ErrRunnerMissing, "%s not found: %s", name, hint)
	}
	return p, nil
}

// ExactPackage parses a manifest's package for npm or uv and insists on
// what the registry promises: a registry name and one exact version, so
// npm and uv install precisely the package `acp info` shows.
func ExactPackage(k registry.Kind, spec string) (registry.PackageSpec, error) {
	p, err := registry.ParsePackage(k, spec)
	if err != nil {
		return p, fmt.Errorf("%s package: %w", k, err)
	}
	if strings.HasPrefix(p.Name, "-") {
		return p, fmt.Errorf("%s package %q: a name may not start with \"-\"", k, spec)
	}
	switch {
	case p.Version == "":
		return p, fmt.Errorf("%s package %q names no version: the registry pins one (name@X.Y.Z)", k, spec)
	case k == registry.KindNpx:
		if _, err := registry.ParseStrictVersion(p.Version); err != nil {
			return p, fmt.Errorf("npx package %q: %q is not one exact version (X.Y.Z)", spec, p.Version)
		}
	default:
		if !pep440Re().MatchString(p.Version) {
			return p, fmt.Errorf("uvx package %q: %q is not one exact version", spec, p.Version)
		}
	}
	return p, nil
}

var pep440Re = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9][0-9A-Za-z.+!_-]*$`)
})

// Installed is what InstallNpm or InstallUV put in place: how to launch
// it (the manifest's args after the package's own), with the node an npx
// install runs with, or uv's tool folder.
type Installed struct {
	// Launcher is how an npx package's executable starts.
	Launcher Launcher
	Command  string
	Args     []string
	Runtime  *Runtime
	// Warning is what a person should know before launching.
	Warning string
	// ToolDir is uv's tool environment (a folder beside tmp).
	ToolDir string
	// UV is the uv acp brought that installed it ("" for the machine's).
	UV string
}

// InstallNpm installs pkg (override: another spec for npm, a tarball) with
// npm into the private prefix tmp, which becomes final, and resolves its
// script, so each launch runs it with an absolute node directly: no npx,
// no PATH, no registry lookup, no network.
func (h *Host) InstallNpm(ctx context.Context, agent string, pkg *registry.Package, override, tmp, final string) (*Installed, error) {
	spec, err := ExactPackage(registry.KindNpx, pkg.Package)
	if err != nil {
		return nil, err
	}
	npm, err := h.npm(ctx, agent)
	if err != nil {
		return nil, err
	}
	target := spec.String()
	if override != "" {
		target = override
	}
	// npm reads a project's .npmrc and runs its scripts from the folder it
	// starts in: it starts in the install's own folder, with --prefix
	// there too, never in the caller's (often a cloned repository).
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte("{}\n"), 0o644); err != nil {
		return nil, err
	}
	// A user's ~/.npmrc with global or dry-run set would install elsewhere,
	// or nothing: this install is always local to tmp, and real.
	args := []string{"install", "--prefix", tmp, "--global=false", "--dry-run=false", "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=warn"}
	if h.Offline {
		args = append(args, "--offline")
	}
	args = append(args, npmNetwork(h.toolBase())...)
	args = append(append(args, h.NPMArgs...), "--", target)
	env := []string{"npm_config_update_notifier=false"}
	if h.CacheDir != "" {
		env = append(env, "npm_config_cache="+filepath.Join(h.CacheDir, "npm"))
	}
	env = append(env, h.nodePathEnv(ctx, npm)...)
	refusal := func(out string) *kinds.Error {
		return h.npmRefusal(ctx, npm, spec.String(), tmp, launch.Merge(h.toolBase(), envMap(env)), out)
	}
	if err := h.runTool(ctx, toolRun{agent: agent, phase: progress.NPM, what: "npm install " + spec.String(), pkg: spec.String(), prog: npm, dir: tmp, args: args, env: env, refusal: refusal}); err != nil {
		return nil, err
	}
	info, err := ReadNpmPackage(tmp, spec.Name)
	if err != nil {
		return nil, err
	}
	bin, err := h.PackageBin(info, pkg.Cmd)
	if err != nil {
		return nil, err
	}
	got := &Installed{Launcher: bin.Launcher}
	if bin.Launcher == LaunchNode {
		got.Runtime, got.Warning, err = h.FindNode(ctx, agent, spec.String(), info.nodeRange)
		if err != nil {
			return nil, err
		}
		if got.Warning != "" {
			h.reporter().Warn(got.Warning)
		}
	}
	node := ""
	if got.Runtime != nil {
		node = got.Runtime.Path
	}
	got.Command, got.Args = bin.Launch(filepath.Join(final, "node_modules", filepath.FromSlash(spec.Name)), node)
	got.Args = append(got.Args, pkg.Args...)
	return got, nil
}

// npm is the npm to install with: the one given, else on PATH or beside
// a node of the usual locations, else the one of a Node.js acp installs.
func (h *Host) npm(ctx context.Context, agent string) (string, error) {
	npm, err := h.program(h.NPM, "npm", NodeHint)
	if err == nil {
		return npm, nil
	}
	if np, nerr := h.NPMNear(ctx); nerr == nil && h.Managed != nil {
		return np, nil
	}
	if !h.canManage() {
		return "", runtimeMissing(err.Error(), h.NodeHint(""), nil)
	}
	_, merr := h.EnsureNode(ctx, agent, "")
	if merr == nil {
		return h.NPMNear(ctx)
	}
	if ctx.Err() != nil {
		return "", kinds.Stopped(ctx)
	}
	here := "no Node.js and no npm here"
	if found, _ := h.Nodes(ctx); len(found) > 0 {
		here = fmt.Sprintf("no npm here (only node %s at %s, without its npm)", found[0].Version, found[0].Path)
	}
	return "", runtimeMissing(fmt.Sprintf("%s, and Node.js could not be downloaded from %s: %v", here, remote.RedactURL(h.Managed.NodeMirror), merr), h.NodeHint(""), merr)
}

// nodePathEnv puts a node's folder first on npm's PATH: npm is itself a
// node script (#!/usr/bin/env node), and so are the install scripts it
// runs. That is the managed node's folder when npm is its, whatever PATH
// holds; else the newest node's when PATH has none.
func (h *Host) nodePathEnv(ctx context.Context, npm string) []string {
	dir := ""
	if h.Managed != nil && h.Managed.Root != "" {
		if _, ok := ManagedIn(h.Managed.Root, npm); ok {
			dir = filepath.Dir(npm)
		}
	}
	if dir == "" {
		if _, err := h.PathLookup("node"); err == nil {
			return nil
		}
		found, _ := h.Nodes(ctx)
		if len(found) == 0 {
			return nil
		}
		dir = filepath.Dir(found[0].Path)
	}
	base := h.ToolEnv
	if base == nil {
		base = os.Environ()
	}
	path := dir
	if old := EnvValue(base, "PATH"); old != "" {
		path += string(os.PathListSeparator) + old
	}
	return []string{"PATH=" + path}
}

// NpmInfo is what acp reads of an installed package's package.json.
type NpmInfo struct {
	name      string
	dir       string            // the package's folder
	bins      map[string]string // executable name -> clean relative script path
	nodeRange string            // engines.node
}

// ReadNpmPackage reads prefix/node_modules/<name>/package.json.
func ReadNpmPackage(prefix, name string) (*NpmInfo, error) {
	dir := filepath.Join(prefix, "node_modules", filepath.FromSlash(name))
	pj := filepath.Join(dir, "package.json")
	data, err := registry.ReadLimited(pj, 4<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, kinds.Errorf(kinds.ErrCmdMissing, "npm did not install %s (no %s): is the package name right?", name, pj)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s's package.json: %w", name, err)
	}
	var meta struct {
		Bin     json.RawMessage `json:"bin"`
		Engines json.RawMessage `json:"engines"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return nil, fmt.Errorf("read %s: %w", pj, err)
	}
	info := &NpmInfo{name: name, dir: dir, bins: map[string]string{}}
	var engines struct {
		Node string `json:"node"`
	}
	if json.Unmarshal(meta.Engines, &engines) == nil { // old packages wrote an array: no requirement then
		info.nodeRange = engines.Node
	}
	info.bins = normalizeBins(name, meta.Bin)
	if len(info.bins) == 0 {
		return nil, kinds.Errorf(kinds.ErrCmdMissing, "package %s has no executables (no usable \"bin\" in its package.json): it cannot be run with npx", name)
	}
	return info, nil
}

// HasBin reports whether the package declares the executable name.
func (p *NpmInfo) HasBin(name string) bool { _, ok := p.bins[name]; return ok }

// Dir is the package's folder.
func (p *NpmInfo) Dir() string { return p.dir }

// NodeRange is the package's engines.node ("" when it names none).
func (p *NpmInfo) NodeRange() string { return p.nodeRange }

// ChooseBin picks the executable as npx does: the one cmd names; else,
// when every bin is the same file (one bin, or aliases such as
// @kilocode/cli's kilo and kilocode), that file; else the bin named after
// the package (without scope). It returns the bin's name and its
// normalised path (see PackageBin for the file it reaches).
func (p *NpmInfo) ChooseBin(cmd string) (name, script string, err error) {
	names := make([]string, 0, len(p.bins))
	files := map[string]bool{}
	for k, v := range p.bins {
		names = append(names, k)
		files[v] = true
	}
	sort.Strings(names)
	unscoped := p.name[strings.LastIndex(p.name, "/")+1:]
	switch {
	case cmd != "":
		if _, ok := p.bins[cmd]; !ok {
			return "", "", kinds.Errorf(kinds.ErrCmdMissing, "package %s has no executable %q (it has: %s): fix cmd in the manifest", p.name, cmd, strings.Join(names, ", "))
		}
		name = cmd
	case len(files) == 1:
		name = names[0]
		if _, ok := p.bins[unscoped]; ok {
			name = unscoped
		}
	case p.bins[unscoped] != "":
		name = unscoped
	default:
		return "", "", kinds.Errorf(kinds.ErrCmdMissing, "package %s has several executables (%s), none named %s, and they are different files: npx cannot run it either", p.name, strings.Join(names, ", "), unscoped)
	}
	return name, p.bins[name], nil
}

// PackageBin chooses the executable as npx does (cmd: the manifest's)
// and decides how to start it (see ClassifyBin).
func (h *Host) PackageBin(p *NpmInfo, cmd string) (Bin, error) {
	name, rel, err := p.ChooseBin(cmd)
	if err != nil {
		return Bin{}, err
	}
	return h.ClassifyBin(p.name, name, p.dir, rel)
}

// safeBinName: a uvx cmd names a file in uv's bin folder, nothing else.
func safeBinName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00:")
}

// InstallUV installs pkg (version is the agent's) with `uv tool install`
// into its own tool directory. uv writes absolute paths into the
// environment it creates, so that directory is created where it will stay
// (beside tmp: agents/<id>/.uv-<version>-*) and the version folder only
// records it; both go together.
func (h *Host) InstallUV(ctx context.Context, agent string, pkg *registry.Package, version, override, tmp string) (*Installed, error) {
	spec, err := ExactPackage(registry.KindUvx, pkg.Package)
	if err != nil {
		return nil, err
	}
	uv, err := h.uv(ctx, agent)
	if err != nil {
		return nil, err
	}
	target := spec.Name + spec.Extras + "==" + spec.Version
	if override != "" {
		target = override
	}
	toolDir, err := os.MkdirTemp(filepath.Dir(tmp), ".uv-"+version+"-*")
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(toolDir)
		}
	}()
	if err := os.Chmod(toolDir, 0o755); err != nil { // MkdirTemp makes 0700
		return nil, err
	}
	binDir := filepath.Join(toolDir, "bin")
	env := []string{"UV_TOOL_DIR=" + filepath.Join(toolDir, "tools"), "UV_TOOL_BIN_DIR=" + binDir}
	if h.CacheDir != "" {
		env = append(env, "UV_CACHE_DIR="+filepath.Join(h.CacheDir, "uv"))
	}
	env = append(env, uvNetwork(h.toolBase())...)
	// uv reads uv.toml and pyproject.toml from the folder it starts in and
	// its parents: it starts in the tool's own folder under the data root,
	// so only the user's own configuration applies, never a project's.
	args := []string{"tool", "install"}
	if h.Offline {
		args = append(args, "--offline")
	}
	args = append(append(append(args, h.UVArgs...), "--"), target)
	if err := h.runTool(ctx, toolRun{agent: agent, phase: progress.UV, what: "uv tool install " + spec.String(), pkg: spec.String(), prog: uv, dir: toolDir, args: args, env: env}); err != nil {
		return nil, err
	}
	entry := pkg.Cmd
	if entry == "" {
		entry = spec.Name
	}
	if !safeBinName(entry) {
		return nil, kinds.Errorf(kinds.ErrCmdMissing, "uvx cmd %q is not an executable name", entry)
	}
	launch := uvEntry(toolDir, entry)
	if launch == "" {
		return nil, kinds.Errorf(kinds.ErrCmdMissing, "uv installed %s but it has no executable %q: set cmd in the manifest to one of its entry points", spec.Name, entry)
	}
	ok = true
	got := &Installed{Command: launch, Args: append([]string{}, pkg.Args...), ToolDir: filepath.Base(toolDir)}
	if h.Managed != nil {
		if _, ok := ManagedIn(h.Managed.Root, uv); ok {
			got.UV = uv
		}
	}
	return got, nil
}

// uvEntry is the entry point inside the tool's own environment
// (tools/<name>/bin/<entry>, Scripts\<entry>.exe on Windows), whose
// interpreter line names the environment's python by absolute path; else
// uv's link to it in the bin folder; "" when neither exists.
func uvEntry(toolDir, entry string) string {
	sub, exe := "bin", entry
	if runtime.GOOS == "windows" {
		sub, exe = "Scripts", entry+".exe"
	}
	if m, _ := filepath.Glob(filepath.Join(toolDir, "tools", "*", sub, exe)); len(m) == 1 {
		if fi, err := os.Stat(m[0]); err == nil && fi.Mode().IsRegular() {
			return m[0]
		}
	}
	link := filepath.Join(toolDir, "bin", exe)
	if fi, err := os.Stat(link); err == nil && fi.Mode().IsRegular() {
		return link
	}
	return ""
}

// tailBuffer keeps the last max lines written to it.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	lines []string
	part  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, p...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.add(string(t.part[:i]))
		t.part = t.part[i+1:]
	}
	if len(t.part) > 4096 { // a progress spinner without newlines
		t.part = t.part[len(t.part)-4096:]
	}
	return len(p), nil
}

func (t *tailBuffer) add(line string) {
	line = strings.TrimRight(line, "\r")
	if strings.TrimSpace(line) == "" {
		return
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if len(t.part) > 0 {
		lines = append(append([]string{}, lines...), string(t.part))
	}
	return strings.Join(lines, "\n")
}
