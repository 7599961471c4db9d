package runtimes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/installer/progress"
	"github.com/agentclientprotocol/acp-registry-go/internal/platform"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// uv's releases: DefaultUVMirror/<version>/uv-<target>.tar.gz (.zip on
// Windows), each with a .sha256 beside it. acp pins the version it brings,
// so a mirror needs only that one.
const (
	DefaultUVMirror  = "https://github.com/astral-sh/uv/releases/download/"
	DefaultUVVersion = "0.10.10"
)

// UVTarget is uv's release target for goos/goarch and the archive's
// extension.
func UVTarget(goos, goarch string) (target, ext string, ok bool) {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "ppc64le": "powerpc64le", "s390x": "s390x"}[goarch]
	if arch == "" {
		return "", "", false
	}
	switch goos {
	case "linux":
		return arch + "-unknown-linux-gnu", ".tar.gz", true
	case "darwin":
		if arch != "x86_64" && arch != "aarch64" {
			return "", "", false
		}
		return arch + "-apple-darwin", ".tar.gz", true
	case "windows":
		if arch != "x86_64" && arch != "aarch64" && arch != "i686" {
			return "", "", false
		}
		return arch + "-pc-windows-msvc", ".zip", true
	}
	return "", "", false
}

func uvExe() string {
	if runtime.GOOS == "windows" {
		return "uv.exe"
	}
	return "uv"
}

// maxUVSum bounds a .sha256 of uv's: one line.
const maxUVSum = 4 << 10

// managedUV is a uv acp brought earlier, "" when there is none.
func (h *Host) managedUV() string {
	if h.Managed == nil || h.Managed.Root == "" {
		return ""
	}
	m, _ := filepath.Glob(filepath.Join(h.Managed.Root, "uv", "[0-9]*", uvExe()))
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}

// uv is the uv to install with: the one given, on PATH, one acp brought
// earlier, else the pinned release from the mirror.
func (h *Host) uv(ctx context.Context, agent string) (string, error) {
	p, err := h.program(h.UV, "uv", UVHint)
	if err == nil {
		return p, nil
	}
	if m := h.managedUV(); m != "" && CheckUVBuild(ctx, filepath.Dir(m)) == nil {
		return m, nil
	}
	if !h.canManage() {
		return "", runtimeMissing(err.Error(), h.UVHint(), nil)
	}
	m, merr := h.EnsureUV(ctx, agent)
	if merr != nil {
		if ctx.Err() != nil {
			return "", kinds.Stopped(ctx)
		}
		mirror := h.Managed.UVMirror
		if mirror == "" {
			mirror = DefaultUVMirror
		}
		return "", runtimeMissing(fmt.Sprintf("no uv here, and uv could not be downloaded from %s: %v", remote.RedactURL(mirror), merr), h.UVHint(), merr)
	}
	return m, nil
}

// EnsureUV installs uv's release for this platform into
// Root/uv/<version>/, checked against its .sha256.
func (h *Host) EnsureUV(ctx context.Context, agent string) (string, error) {
	m := h.Managed
	target, ext, ok := UVTarget(runtime.GOOS, runtime.GOARCH)
	if !ok {
		return "", kinds.Errorf(kinds.ErrRunnerMissing, "uv publishes no build for %s/%s: %s", runtime.GOOS, runtime.GOARCH, UVHint)
	}
	if platform.Libc() == "musl" {
		target = strings.TrimSuffix(target, "gnu") + "musl" // uv builds for musl too (Alpine)
	}
	mirror := m.UVMirror
	if mirror == "" {
		mirror = DefaultUVMirror
	}
	base := strings.TrimSuffix(mirror, "/") + "/" + DefaultUVVersion + "/"
	name := "uv-" + target + ext
	dir := filepath.Join(m.Root, "uv", DefaultUVVersion)
	if exists(dir) {
		if err := CheckUVBuild(ctx, dir); err == nil {
			return filepath.Join(dir, uvExe()), nil
		} else {
			h.reporter().Warn(fmt.Sprintf("the uv %s acp brought (%s) is broken (%v): installing it again", DefaultUVVersion, dir, err))
			if err := os.RemoveAll(dir); err != nil {
				return "", fmt.Errorf("remove the broken uv %s: %w", DefaultUVVersion, err)
			}
		}
	}
	work := filepath.Dir(dir)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(work, ".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	sumFile, err := m.Download(ctx, agent, base+name+".sha256", tmp, "", maxUVSum)
	if err != nil {
		return "", err
	}
	// uv's .sha256 is one line: a larger file is not one, and is not
	// read into memory.
	data, err := registry.ReadRegular(sumFile, maxUVSum)
	if errors.As(err, new(*registry.TooLargeError)) {
		return "", kinds.Errorf(kinds.ErrChecksum, "%s%s.sha256 is larger than %s, not uv's one line: check ACP_UV_MIRROR", remote.RedactURL(base), name, remote.HumanBytes(maxUVSum))
	}
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(data))
	if len(f) == 0 || !kinds.ValidSHA256(f[0]) {
		return "", kinds.Errorf(kinds.ErrChecksum, "%s%s.sha256 holds no sha256: the mirror is incomplete", remote.RedactURL(base), name)
	}
	file, err := m.Download(ctx, agent, base+name, tmp, strings.ToLower(f[0]), 0)
	if err != nil {
		return "", fmt.Errorf("uv %s (its sha256 from %s.sha256): %w", DefaultUVVersion, name, err)
	}
	h.reporter().Phase(agent, progress.Extract, "uv "+DefaultUVVersion)
	unpacked := filepath.Join(tmp, "x")
	if err := m.Extract(ctx, file, unpacked); err != nil {
		return "", fmt.Errorf("uv %s: %w", DefaultUVVersion, err)
	}
	top := filepath.Join(unpacked, "uv-"+target) // the tarballs' folder; the zips have none
	if !exists(filepath.Join(top, uvExe())) {
		top = unpacked
	}
	if !exists(filepath.Join(top, uvExe())) {
		return "", fmt.Errorf("uv %s: %s holds no %s", DefaultUVVersion, name, uvExe())
	}
	if err := CheckUVBuild(ctx, top); err != nil {
		return "", h.badBuild(fmt.Sprintf("uv %s from %s", DefaultUVVersion, remote.RedactURL(base+name)), err)
	}
	if err := os.Rename(top, dir); err != nil && !exists(filepath.Join(dir, uvExe())) {
		return "", err
	}
	now := timeNow()
	os.Chtimes(dir, now, now) // see managedRuntime
	return filepath.Join(dir, uvExe()), nil
}
