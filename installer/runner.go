package installer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// toolRun is one npm or uv run.
type toolRun struct {
	agent, phase string
	what         string // "npm install @x/y@1.0.0", for messages
	pkg          string // what is installed, for the reporter
	prog         string
	dir          string // working directory: the install's own, never the caller's
	args, env    []string
}

// runTool runs npm or uv in t.dir with its output kept (not shown: stdout
// is reserved for results, and a successful install has nothing to say);
// a failure carries the output's last lines, so it is shown once. An
// install still running after InstallTimeout is stopped, its whole process
// group killed.
func (in *Installer) runTool(ctx context.Context, t toolRun) error {
	in.reporter().Phase(t.agent, t.phase, t.pkg)
	tail := &tailBuffer{max: 40}
	timeout := in.installTimeout()
	runCtx, cancel := context.WithTimeoutCause(ctx, timeout, errToolTimeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, t.prog, t.args...)
	base := in.ToolEnv
	if base == nil {
		base = os.Environ()
	}
	add := make(map[string]string, len(t.env))
	for _, kv := range t.env {
		k, v, _ := strings.Cut(kv, "=")
		add[k] = v
	}
	cmd.Env = launch.Merge(base, add)
	cmd.Dir = t.dir
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
		return fmt.Errorf("%s: %w", t.what, stopped(ctx))
	}
	lines := tail.String()
	said := ""
	if lines != "" {
		said = "; its last lines:\n" + safetext.Lines(lines, "  ")
	}
	name := filepath.Base(t.prog)
	if errors.Is(context.Cause(runCtx), errToolTimeout) {
		return &kindError{kind: ErrInstallFailed, msg: fmt.Sprintf("%s: stopped after %s without finishing (raise it with --install-timeout)%s", t.what, timeout, said)}
	}
	e := &kindError{kind: ErrInstallFailed, msg: fmt.Sprintf("%s failed (%s: %v)%s", t.what, name, err, said)}
	switch {
	case in.Offline:
		// Not in npm's or uv's cache: offline, that is "not installed".
		e.kind, e.msg = ErrNotInstalled, fmt.Sprintf("%s failed offline (not in %s's cache: connect and install, or drop --offline)%s", t.what, name, said)
	case networkFailure(lines):
		e.err = ErrDownload
	}
	return e
}

var errToolTimeout = errors.New("install timeout")

// networkFailure recognises npm's and uv's words for a network that did
// not answer, so the next distribution can be tried.
func networkFailure(out string) bool {
	for _, s := range []string{
		"ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNREFUSED", "ECONNRESET", "ENETUNREACH", "EHOSTUNREACH",
		"ERR_SOCKET_TIMEOUT", "socket hang up", "network request to", // npm
		"error sending request", "dns error", "Connection refused", "Failed to fetch", "operation timed out", // uv
	} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// envValue reads one variable of env (last one wins, as exec does).
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		k, val, _ := strings.Cut(kv, "=")
		if k == name || (runtime.GOOS == "windows" && strings.EqualFold(k, name)) {
			v = val
		}
	}
	return v
}

func (in *Installer) program(field, name, hint string) (string, error) {
	if field != "" {
		return field, nil
	}
	p, err := in.lookPath(name)
	if err != nil {
		return "", errorf(ErrRunnerMissing, "%s not found: %s", name, hint)
	}
	return p, nil
}

// exactPackage parses a manifest's package for npm or uv and insists on
// what the registry promises: a registry name and one exact version, so
// npm and uv install precisely the package `acp info` shows.
func exactPackage(k registry.Kind, spec string) (registry.PackageSpec, error) {
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

// installNpm installs the package with npm into a private prefix and
// resolves its script, so each launch runs it with an absolute node
// directly: no npx, no PATH, no registry lookup, no network.
func (in *Installer) installNpm(ctx context.Context, req Request, c Choice, tmp, final string) (*Receipt, error) {
	pkg := c.Package
	spec, err := exactPackage(registry.KindNpx, pkg.Package)
	if err != nil {
		return nil, err
	}
	npm, err := in.program(in.NPM, "npm", nodeHint)
	if err != nil {
		return nil, err
	}
	target := spec.String()
	if req.PackageOverride != "" {
		target = req.PackageOverride
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
	if in.Offline {
		args = append(args, "--offline")
	}
	args = append(append(args, in.NPMArgs...), "--", target)
	env := []string{"npm_config_update_notifier=false"}
	if in.CacheDir != "" {
		env = append(env, "npm_config_cache="+filepath.Join(in.CacheDir, "npm"))
	}
	env = append(env, in.nodePathEnv(ctx)...)
	if err := in.runTool(ctx, toolRun{agent: req.Agent.ID, phase: progress.NPM, what: "npm install " + spec.String(), pkg: spec.String(), prog: npm, dir: tmp, args: args, env: env}); err != nil {
		return nil, err
	}
	info, err := readNpmPackage(tmp, spec.Name)
	if err != nil {
		return nil, err
	}
	_, script, err := info.chooseBin(pkg.Cmd)
	if err != nil {
		return nil, err
	}
	rt, warn, err := in.findNode(ctx, req.Agent.ID, spec.String(), info.nodeRange, nil)
	if err != nil {
		return nil, err
	}
	launch := LaunchSpec{
		Command: rt.Path,
		Args:    append([]string{filepath.Join(final, "node_modules", filepath.FromSlash(spec.Name), script)}, pkg.Args...),
		Env:     copyEnv(pkg.Env),
	}
	if warn != "" {
		in.reporter().Warn(warn)
		launch.Warnings = []string{warn}
	}
	return &Receipt{Package: pkg.Package, Runtime: rt, Launch: launch}, nil
}

// nodePathEnv puts the newest node's folder first on npm's PATH when PATH
// has no node: npm is itself a node script (#!/usr/bin/env node), and so
// are the install scripts it runs.
func (in *Installer) nodePathEnv(ctx context.Context) []string {
	if _, err := in.pathLookup("node"); err == nil {
		return nil
	}
	found, _ := in.nodes(ctx)
	if len(found) == 0 {
		return nil
	}
	base := in.ToolEnv
	if base == nil {
		base = os.Environ()
	}
	path := filepath.Dir(found[0].path)
	if old := envValue(base, "PATH"); old != "" {
		path += string(os.PathListSeparator) + old
	}
	return []string{"PATH=" + path}
}

// npmInfo is what acp reads of an installed package's package.json.
type npmInfo struct {
	name      string
	dir       string            // the package's folder
	bins      map[string]string // executable name -> clean relative script path
	nodeRange string            // engines.node
}

// readNpmPackage reads prefix/node_modules/<name>/package.json.
func readNpmPackage(prefix, name string) (*npmInfo, error) {
	dir := filepath.Join(prefix, "node_modules", filepath.FromSlash(name))
	pj := filepath.Join(dir, "package.json")
	data, err := registry.ReadLimited(pj, 4<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errorf(ErrCmdMissing, "npm did not install %s (no %s): is the package name right?", name, pj)
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
	info := &npmInfo{name: name, dir: dir, bins: map[string]string{}}
	var engines struct {
		Node string `json:"node"`
	}
	if json.Unmarshal(meta.Engines, &engines) == nil { // old packages wrote an array: no requirement then
		info.nodeRange = engines.Node
	}
	unscoped := name[strings.LastIndex(name, "/")+1:]
	var one string
	raw := map[string]string{}
	if err := json.Unmarshal(meta.Bin, &one); err == nil && one != "" {
		raw[unscoped] = one
	} else if err := json.Unmarshal(meta.Bin, &raw); err != nil || len(raw) == 0 {
		return nil, errorf(ErrCmdMissing, "package %s has no executables (no \"bin\" in its package.json): it cannot be run with npx", name)
	}
	for k, v := range raw {
		// npm links scoped bin names ("@x/y") by their last part.
		if i := strings.LastIndex(k, "/"); strings.HasPrefix(k, "@") && i > 0 {
			k = k[i+1:]
		}
		if !safeBinName(k) {
			return nil, errorf(ErrCmdMissing, "package %s declares an executable with an unusable name %q", name, k)
		}
		rel := path.Clean(strings.ReplaceAll(v, "\\", "/"))
		if v == "" || !filepath.IsLocal(filepath.FromSlash(rel)) {
			return nil, errorf(ErrCmdMissing, "package %s: executable %q points outside the package (%q)", name, k, v)
		}
		info.bins[k] = rel
	}
	return info, nil
}

// chooseBin picks the executable as npx does: the one cmd names; else,
// when every bin is the same file (one bin, or aliases such as
// @kilocode/cli's kilo and kilocode), that file; else the bin named after
// the package (without scope). It returns the bin's name and its script,
// which must be a file inside the package.
func (p *npmInfo) chooseBin(cmd string) (name, script string, err error) {
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
			return "", "", errorf(ErrCmdMissing, "package %s has no executable %q (it has: %s): fix cmd in the manifest", p.name, cmd, strings.Join(names, ", "))
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
		return "", "", errorf(ErrCmdMissing, "package %s has several executables (%s), none named %s, and they are different files: npx cannot run it either", p.name, strings.Join(names, ", "), unscoped)
	}
	script = p.bins[name]
	fi, err := os.Lstat(filepath.Join(p.dir, filepath.FromSlash(script)))
	if err != nil || !fi.Mode().IsRegular() {
		return "", "", errorf(ErrCmdMissing, "package %s: its executable %s (%s) is not a file in the package", p.name, name, script)
	}
	return name, filepath.FromSlash(script), nil
}

func safeBinName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00:")
}

// installUV installs the package with `uv tool install` into its own tool
// directory. uv writes absolute paths into the environment it creates, so
// that directory is created where it will stay (agents/<id>/.uv-<version>-*)
// and the version folder only records it; both go together.
func (in *Installer) installUV(ctx context.Context, req Request, c Choice, tmp, final string) (*Receipt, error) {
	pkg := c.Package
	spec, err := exactPackage(registry.KindUvx, pkg.Package)
	if err != nil {
		return nil, err
	}
	uv, err := in.program(in.UV, "uv", uvHint)
	if err != nil {
		return nil, err
	}
	target := spec.Name + spec.Extras + "==" + spec.Version
	if req.PackageOverride != "" {
		target = req.PackageOverride
	}
	toolDir, err := os.MkdirTemp(filepath.Dir(tmp), ".uv-"+c.Version+"-*")
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
	if in.CacheDir != "" {
		env = append(env, "UV_CACHE_DIR="+filepath.Join(in.CacheDir, "uv"))
	}
	// uv reads uv.toml and pyproject.toml from the folder it starts in and
	// its parents: it starts in the tool's own folder under the data root,
	// so only the user's own configuration applies, never a project's.
	args := []string{"tool", "install"}
	if in.Offline {
		args = append(args, "--offline")
	}
	args = append(append(append(args, in.UVArgs...), "--"), target)
	if err := in.runTool(ctx, toolRun{agent: req.Agent.ID, phase: progress.UV, what: "uv tool install " + spec.String(), pkg: spec.String(), prog: uv, dir: toolDir, args: args, env: env}); err != nil {
		return nil, err
	}
	entry := pkg.Cmd
	if entry == "" {
		entry = spec.Name
	}
	if !safeBinName(entry) {
		return nil, errorf(ErrCmdMissing, "uvx cmd %q is not an executable name", entry)
	}
	launch := uvEntry(toolDir, entry)
	if launch == "" {
		return nil, errorf(ErrCmdMissing, "uv installed %s but it has no executable %q: set cmd in the manifest to one of its entry points", spec.Name, entry)
	}
	ok = true
	return &Receipt{
		Package: pkg.Package,
		ToolDir: filepath.Base(toolDir),
		Launch: LaunchSpec{
			Command: launch,
			Args:    append([]string{}, pkg.Args...),
			Env:     copyEnv(pkg.Env),
		},
	}, nil
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
