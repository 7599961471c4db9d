package installer

import (
	"context"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
)

// Runtime is the node an npx install launches with, recorded in the
// receipt (see runtimes.Runtime).
type Runtime = runtimes.Runtime

// installNpm installs c's package with npm (see runtimes.Host.InstallNpm).
func (in *Installer) installNpm(ctx context.Context, req Request, c Choice, tmp, final string) (*Receipt, error) {
	got, err := in.host().InstallNpm(ctx, req.Agent.ID, c.Package, req.PackageOverride, tmp, final)
	if err != nil {
		return nil, err
	}
	launch := LaunchSpec{Command: got.Command, Args: got.Args, Env: copyEnv(c.Package.Env)}
	if got.Warning != "" {
		launch.Warnings = []string{got.Warning}
	}
	return &Receipt{Package: c.Package.Package, Runtime: got.Runtime, Launcher: string(got.Launcher), Launch: launch}, nil
}

// installUV installs c's package with uv (see runtimes.Host.InstallUV).
func (in *Installer) installUV(ctx context.Context, req Request, c Choice, tmp, _ string) (*Receipt, error) {
	got, err := in.host().InstallUV(ctx, req.Agent.ID, c.Package, c.Version, req.PackageOverride, tmp)
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
