package installer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// runTool runs npm or uv with its output on Stderr (stdout is reserved for
// results), keeping the last lines for the error message.
// what names the step in errors ("npm install").
func (in *Installer) runTool(ctx context.Context, prog, what string, args, env []string) error {
	tail := &tailBuffer{max: 20}
	cmd := exec.CommandContext(ctx, prog, args...)
	base := in.ToolEnv
	if base == nil {
		base = os.Environ()
	}
	cmd.Env = append(append([]string{}, base...), env...)
	cmd.Stdout = io.MultiWriter(in.stderr(), tail)
	cmd.Stderr = cmd.Stdout
	cmd.Stdin = nil
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", what, stopped(ctx))
	}
	msg := fmt.Sprintf("%s failed (%s): %v", what, prog, err)
	if t := tail.String(); t != "" {
		msg += "; its last lines:\n" + t
	}
	return errors.New(msg)
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

// installNpm installs the package with npm into a private prefix and
// resolves its executable, so each launch runs it directly: no npx, no
// registry lookup, no network.
func (in *Installer) installNpm(ctx context.Context, req Request, c Choice, tmp, final string) (*Receipt, error) {
	pkg := c.Package
	spec, err := registry.ParseNPM(pkg.Package)
	if err != nil {
		return nil, fmt.Errorf("npx package: %w", err)
	}
	npm, err := in.program(in.NPM, "npm", nodeHint)
	if err != nil {
		return nil, err
	}
	target := spec.String()
	if req.PackageOverride != "" {
		target = req.PackageOverride
	}
	args := []string{"install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=warn"}
	args = append(append(args, in.NPMArgs...), target)
	if err := in.runTool(ctx, npm, "npm install", args, nil); err != nil {
		return nil, err
	}
	bin, err := npmBin(tmp, spec.Name, pkg.Cmd)
	if err != nil {
		return nil, err
	}
	binDir := filepath.Join("node_modules", ".bin")
	name := bin
	if runtime.GOOS == "windows" {
		name += ".cmd"
	}
	if _, err := os.Stat(filepath.Join(tmp, binDir, name)); err != nil {
		return nil, errorf(ErrCmdMissing, "npm installed %s but did not create %s", spec.Name, filepath.Join(binDir, name))
	}
	return &Receipt{
		Package: pkg.Package,
		Launch: LaunchSpec{
			Command: filepath.Join(final, binDir, name),
			Args:    append([]string{}, pkg.Args...),
			Env:     copyEnv(pkg.Env),
		},
	}, nil
}

// npmBin picks the executable from the installed package's "bin": the one
// named by cmd, else the one named like the package (without scope), else
// the only one.
func npmBin(prefix, name, cmd string) (string, error) {
	pj := filepath.Join(prefix, "node_modules", filepath.FromSlash(name), "package.json")
	data, err := registry.ReadLimited(pj, 4<<20)
	if err != nil {
		return "", errorf(ErrCmdMissing, "npm did not install %s (no %s): is the package name right?", name, pj)
	}
	var meta struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return "", fmt.Errorf("read %s: %w", pj, err)
	}
	unscoped := name[strings.LastIndex(name, "/")+1:]
	var bins map[string]string
	var one string
	if err := json.Unmarshal(meta.Bin, &one); err == nil && one != "" {
		bins = map[string]string{unscoped: one}
	} else if err := json.Unmarshal(meta.Bin, &bins); err != nil || len(bins) == 0 {
		return "", errorf(ErrCmdMissing, "package %s has no executables (no \"bin\" in its package.json): it cannot be run with npx", name)
	}
	var names []string
	for k := range bins {
		if !safeBinName(k) {
			return "", errorf(ErrCmdMissing, "package %s declares an executable with an unusable name %q", name, k)
		}
		names = append(names, k)
	}
	if cmd != "" {
		if _, ok := bins[cmd]; ok {
			return cmd, nil
		}
		return "", errorf(ErrCmdMissing, "package %s has no executable %q (it has: %s): fix cmd in the manifest", name, cmd, strings.Join(sorted(names), ", "))
	}
	if _, ok := bins[unscoped]; ok {
		return unscoped, nil
	}
	if len(bins) == 1 {
		return names[0], nil
	}
	return "", errorf(ErrCmdMissing, "package %s has several executables (%s) and none is named %s: set cmd in the manifest", name, strings.Join(sorted(names), ", "), unscoped)
}

func safeBinName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00:")
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// installUV installs the package with `uv tool install` into its own tool
// directory. uv writes absolute paths into the environment it creates, so
// that directory is created where it will stay (agents/<id>/.uv-<version>-*)
// and the version folder only records it; both go together.
func (in *Installer) installUV(ctx context.Context, req Request, c Choice, tmp, final string) (*Receipt, error) {
	pkg := c.Package
	spec, err := registry.ParsePyPI(pkg.Package)
	if err != nil {
		return nil, fmt.Errorf("uvx package: %w", err)
	}
	uv, err := in.program(in.UV, "uv", uvHint)
	if err != nil {
		return nil, err
	}
	target := spec.Name + spec.Extras
	if spec.Version != "" {
		target += "==" + spec.Version
	}
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
	args := append(append([]string{"tool", "install"}, in.UVArgs...), target)
	if err := in.runTool(ctx, uv, "uv tool install", args, env); err != nil {
		return nil, err
	}
	entry := pkg.Cmd
	if entry == "" {
		entry = spec.Name
	}
	if !safeBinName(entry) {
		return nil, errorf(ErrCmdMissing, "uvx cmd %q is not an executable name", entry)
	}
	if runtime.GOOS == "windows" {
		entry += ".exe"
	}
	launch := filepath.Join(binDir, entry)
	if _, err := os.Stat(launch); err != nil {
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
