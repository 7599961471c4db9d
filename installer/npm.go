package installer

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/agentclientprotocol/acp-registry-go/installer/installs"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Runtime is the node an npx install launches with, recorded in the
// receipt (package installs documents its fields).
type Runtime = installs.Runtime

// installNpm installs c's package with npm (see runtimes.Host.InstallNpm).
func (in *Installer) installNpm(ctx context.Context, h *runtimes.Host, req Request, c Choice, tmp, final string) (*Receipt, error) {
	got, err := h.InstallNpm(ctx, req.Agent.ID, c.Package, req.PackageOverride, tmp, final)
	if err != nil {
		return nil, err
	}
	if req.Integrity != "" {
		if err := checkNpmIntegrity(tmp, c.Package.Package, req.Integrity); err != nil {
			return nil, err
		}
	}
	launch := LaunchSpec{Command: got.Command, Args: got.Args, Env: copyEnv(c.Package.Env)}
	if got.Warning != "" {
		launch.Warnings = []string{got.Warning}
	}
	return &Receipt{Package: c.Package.Package, Runtime: got.Runtime, Launcher: string(got.Launcher), Launch: launch, Integrity: req.Integrity}, nil
}

// checkNpmIntegrity compares the integrity npm recorded for the package it
// installed into prefix (its hidden lockfile, node_modules/.package-lock.json,
// else package-lock.json) with want. npm checks the tarball against the
// integrity its registry gives; this checks that integrity against the one
// acp was asked for (a project's lock), so a package republished with other
// bytes, or another registry's, installs nothing.
func checkNpmIntegrity(prefix, pkg, want string) error {
	spec, err := registry.ParseNPM(pkg)
	if err != nil {
		return err
	}
	key := "node_modules/" + spec.Name
	for _, name := range []string{filepath.Join(prefix, "node_modules", ".package-lock.json"), filepath.Join(prefix, "package-lock.json")} {
		data, err := registry.ReadRegular(name, 64<<20)
		if err != nil {
			continue
		}
		var lock struct {
			Packages map[string]struct {
				Version   string `json:"version"`
				Integrity string `json:"integrity"`
			} `json:"packages"`
		}
		if json.Unmarshal(data, &lock) != nil {
			continue
		}
		got, ok := lock.Packages[key]
		if !ok {
			continue
		}
		if got.Integrity != want {
			return errorf(ErrChecksum, "npm installed %s with integrity %q, not %q: nothing was installed (the package's bytes differ from the lock's)", spec.String(), got.Integrity, want)
		}
		return nil
	}
	return errorf(ErrChecksum, "npm recorded no integrity for %s (no node_modules/.package-lock.json entry %s): acp cannot check its bytes, so nothing was installed", spec.String(), key)
}

// installUV installs c's package with uv (see runtimes.Host.InstallUV).
func (in *Installer) installUV(ctx context.Context, h *runtimes.Host, req Request, c Choice, tmp string) (*Receipt, error) {
	got, err := h.InstallUV(ctx, req.Agent.ID, c.Package, c.Version, req.PackageOverride, tmp)
	if err != nil {
		return nil, err
	}
	return &Receipt{
		Package: c.Package.Package,
		ToolDir: got.ToolDir,
		UV:      got.UV,
		Launch:  LaunchSpec{Command: got.Command, Args: got.Args, Env: copyEnv(c.Package.Env)},
	}, nil
}

// VersionOf runs `path --version` as a diagnostic (acp doctor): within
// 10 s, reading at most 4 KiB of its output, and not waiting on children
// it leaves holding stdout. It returns the first line of the answer.
func VersionOf(ctx context.Context, path string) (string, error) {
	return runtimes.VersionOf(ctx, path)
}
