package installer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentclientprotocol/acp-registry-go/platform"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// choose applies the request to the manifest.
func (in *Installer) choose(req Request) (Choice, error) {
	m := req.Agent
	if m == nil {
		return Choice{}, errors.New("install: no agent given")
	}
	c, err := Choose(m, in.platform(), req.Dist, req.Preview, in.lookPath)
	if err != nil {
		return Choice{}, err
	}
	if err := checkIDVersion(m.ID, c.Version); err != nil {
		return Choice{}, err
	}
	if req.Version != "" && !registry.SameVersion(req.Version, c.Version) {
		return Choice{}, errorf(ErrVersionMismatch, "%s %s is not available: the registry offers %s", m.ID, req.Version, c.Version)
	}
	return c, nil
}

// wanted returns the version the request names, without choosing a
// distribution (which may need runners that are gone since the install).
func wanted(req Request) (string, error) {
	m := req.Agent
	if m == nil {
		return "", errors.New("no agent given")
	}
	v := m.Version
	if req.Preview {
		if m.Preview == nil {
			return "", errorf(ErrNoDistribution, "%s has no preview channel: drop --preview", m.ID)
		}
		v = m.Preview.Version
	}
	if err := checkIDVersion(m.ID, v); err != nil {
		return "", err
	}
	if req.Version != "" && !registry.SameVersion(req.Version, v) {
		return "", errorf(ErrVersionMismatch, "%s %s is not available: the registry offers %s", m.ID, req.Version, v)
	}
	return v, nil
}

// platform is Platform, or this machine's when unset.
func (in *Installer) platform() registry.Platform {
	if in.Platform != "" {
		return in.Platform
	}
	p, _ := platform.Current() // on error no binary matches, and Choose says so
	return p
}

// satisfies reports whether an existing install answers the request. An
// install whose executable was deleted by hand does not: it is reinstalled.
func (in *Installer) satisfies(r *Receipt, req Request) bool {
	if req.Dist != "" && r.Distribution != req.Dist {
		return false
	}
	if p := in.platform(); r.Distribution == registry.KindBinary && p != "" && r.Target != "" && r.Target != p {
		return false
	}
	return r.Check() == nil
}

// Install makes the requested version present under Root, and returns its
// receipt and whether it was already installed. Concurrent calls (in any
// number of processes) for one agent download once: the second waits for
// the lock, then finds the install complete. On failure nothing is left in
// agents/<id>/<version>/ and other versions are untouched.
func (in *Installer) Install(ctx context.Context, req Request) (*Receipt, bool, error) {
	c, err := in.choose(req)
	if err != nil {
		return nil, false, err // Choose's messages name the agent and version
	}
	id := req.Agent.ID
	what := fmt.Sprintf("install %s %s", id, c.Version)
	if c.Kind == registry.KindBinary {
		what += " for " + string(c.Target)
	}
	dir := in.versionDir(id, c.Version)
	if !req.Force {
		if r, err := readReceipt(dir); err == nil && in.satisfies(r, req) {
			return r, true, nil
		}
	}
	if err := os.MkdirAll(in.agentDir(id), 0o755); err != nil {
		return nil, false, fmt.Errorf("%s: %w", what, err)
	}
	unlock, err := in.lock(ctx, id)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", what, err)
	}
	defer unlock()
	installed := false
	defer func() {
		// A first install that failed leaves no empty agents/<id>/ behind
		// (os.Remove keeps a folder that holds anything). Under the lock,
		// so no other install is using it; installLocked recreates it.
		if !installed {
			os.Remove(in.agentDir(id))
		}
	}()
	// Someone may have finished while we waited for the lock.
	if !req.Force {
		if r, err := readReceipt(dir); err == nil && in.satisfies(r, req) {
			return r, true, nil
		}
	}
	r, err := in.installLocked(ctx, req, c, dir)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", what, err)
	}
	if err := in.markCurrent(id, c.Version); err != nil {
		return nil, false, fmt.Errorf("%s: mark current: %w", what, err)
	}
	installed = true
	return r, false, nil
}

func (in *Installer) installLocked(ctx context.Context, req Request, c Choice, dir string) (*Receipt, error) {
	agentDir := filepath.Dir(dir)
	// Again under the lock: a failed install by another process may have
	// removed the folder since Install created it.
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(agentDir, ".tmp-"+c.Version+"-*")
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	// MkdirTemp makes 0700, and the rename keeps it: an install under a
	// shared ACP_HOME would then run for its installer only.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	var r *Receipt
	switch c.Kind {
	case registry.KindBinary:
		r, err = in.installBinary(ctx, req, c, tmp, dir)
	case registry.KindNpx:
		r, err = in.installNpm(ctx, req, c, tmp, dir)
	case registry.KindUvx:
		r, err = in.installUV(ctx, req, c, tmp, dir)
	default:
		err = errorf(ErrNoDistribution, "unknown distribution %q", c.Kind)
	}
	if err != nil {
		return nil, err
	}
	if r.ToolDir != "" {
		defer func() {
			if !ok {
				os.RemoveAll(filepath.Join(agentDir, r.ToolDir))
			}
		}()
	}
	r.ID, r.Version, r.Distribution, r.Preview = req.Agent.ID, c.Version, c.Kind, c.Preview
	r.InstalledAt = in.now().UTC()
	r.Launch.ID, r.Launch.Version, r.Launch.Distribution = r.ID, r.Version, r.Distribution
	r.Launch.normalize()
	if err := writeJSONFile(filepath.Join(tmp, receiptFile), r); err != nil {
		return nil, fmt.Errorf("write receipt: %w", err)
	}
	old, _ := readReceipt(dir)
	if err := replaceDir(tmp, dir); err != nil {
		return nil, err
	}
	ok = true
	if old != nil && old.ToolDir != "" && old.ToolDir != r.ToolDir {
		removeDir(filepath.Join(agentDir, old.ToolDir))
	}
	r.Dir = dir
	return r, nil
}

// replaceDir moves the finished tmp into place. An existing dir (a forced
// reinstall, or an unreadable install) is moved aside first and restored
// if the second rename fails.
func replaceDir(tmp, dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := rename(tmp, dir); err != nil {
			return fmt.Errorf("move into place: %w", err)
		}
		return nil
	}
	aside := tmp + ".old"
	if err := rename(dir, aside); err != nil {
		return fmt.Errorf("move the previous install aside: %w", err)
	}
	if err := rename(tmp, dir); err != nil {
		rename(aside, dir)
		return fmt.Errorf("move into place: %w", err)
	}
	os.RemoveAll(aside)
	return nil
}

// Resolve returns how to launch the requested agent. An installed version
// is read from its receipt without any network access; otherwise it is
// installed first, unless noInstall, which fails with ErrNotInstalled.
func (in *Installer) Resolve(ctx context.Context, req Request, noInstall bool) (*LaunchSpec, error) {
	v, err := wanted(req)
	if err != nil {
		return nil, err
	}
	id := req.Agent.ID
	if !req.Force {
		if r, err := readReceipt(in.versionDir(id, v)); err == nil && in.satisfies(r, req) {
			return &r.Launch, nil
		}
	}
	if noInstall {
		// When installing could not help either (no such distribution,
		// no build for this platform, runner missing), say that instead.
		if _, err := in.choose(req); err != nil {
			return nil, err
		}
		cmd := id
		if req.Dist != "" {
			cmd += " --dist " + string(req.Dist)
		}
		if req.Preview {
			cmd += " --preview"
		}
		return nil, errorf(ErrNotInstalled, "%s %s is not installed: run acp install %s, or drop --no-install", id, v, cmd)
	}
	r, _, err := in.Install(ctx, req)
	if err != nil {
		return nil, err
	}
	return &r.Launch, nil
}
