package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

type resolveOpts struct {
	dist      string
	preview   bool
	noInstall bool
	json      bool
	shell     string
}

func newResolveCmd(g *globalOpts) *cobra.Command {
	var o resolveOpts
	cmd := &cobra.Command{
		Use: "resolve ID[@VERSION] [--dist binary|npx|uvx] [--preview] [--no-install] [--json] [--shell sh|cmd|powershell] [--project DIR]",
		Example: `  acp resolve claude-agent --json
  acp resolve gemini --no-install`,
		Short: "Print how to launch an agent, installing it first unless --no-install",
		Long: `Print the launch spec of an agent: the command, its arguments and the
environment variables to add; the working directory is yours to choose.
An installed agent resolves from its receipt without reading the registry
or touching the network (acp upgrade moves it to the registry's newer
version). Without --json the command line is printed for a shell to run,
environment additions first: for sh on Linux and macOS, for PowerShell on
Windows (--shell cmd for cmd.exe).`,
		Args: oneArg("agent id"),
		// Editors resolve on every launch; see resolveAgent.
		Annotations: map[string]string{cli.QuickStart: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			shell, err := parseShell(o.shell)
			if err != nil {
				return err
			}
			spec, err := resolveAgent(cmd.Context(), g, args[0], o)
			if err != nil {
				return err
			}
			return printResolved(g, spec, o.json, shell)
		},
	}
	addResolveFlags(cmd, &o)
	addProjectFlag(cmd, g)
	addDownloadFlags(cmd, g)
	cmd.Flags().BoolVar(&o.noInstall, "no-install", false, "fail instead of installing when the agent is not installed")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the launch spec as JSON")
	cmd.Flags().StringVar(&o.shell, "shell", "", "the shell the printed line is for: sh, cmd or powershell (default: powershell on Windows, else sh)")
	_ = cmd.RegisterFlagCompletionFunc("shell", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{launch.ShellPOSIX, launch.ShellCmd, launch.ShellPowerShell}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// printResolved marks spec's install as used and prints it.
func printResolved(g *globalOpts, spec *installer.LaunchSpec, asJSON bool, shell string) error {
	if in, err := g.installer(); err == nil {
		// gc and upgrade keep a version resolved lately where the
		// OS cannot tell which installs are running. Best effort.
		_ = in.MarkUsed(spec.ID, spec.Version)
	}
	if asJSON {
		return cli.WriteJSON(g.streams.Out, spec)
	}
	line, err := launch.CommandLine(shell, spec.Command, spec.Args, spec.Env)
	if err != nil {
		// The install path, not the command line, is at fault (a % that
		// cmd.exe would expand): no usage page.
		return &cli.Error{Code: cli.CodeLaunchFailed, Err: fmt.Errorf("resolve %s: %w", spec.ID, err), Hint: "print the line for PowerShell (--shell powershell), or set ACP_HOME to a folder without %"}
	}
	_, err = fmt.Fprintln(g.streams.Out, safetext.Terminal(line))
	return err
}

func parseShell(s string) (string, error) {
	switch s {
	case "":
		if runtime.GOOS == "windows" {
			return launch.ShellPowerShell, nil
		}
		return launch.ShellPOSIX, nil
	case launch.ShellPOSIX, "bash", "zsh":
		return launch.ShellPOSIX, nil
	case launch.ShellCmd, "cmd.exe":
		return launch.ShellCmd, nil
	case launch.ShellPowerShell, "pwsh":
		return launch.ShellPowerShell, nil
	}
	return "", cli.Usagef("--shell %q: use sh, cmd or powershell", s)
}

func addResolveFlags(cmd *cobra.Command, o *resolveOpts) {
	cmd.Flags().StringVar(&o.dist, "dist", "", "distribution: binary, npx or uvx (default: the installed one, else the first that runs here)")
	cmd.Flags().BoolVar(&o.preview, "preview", false, "use the agent's preview version")
}

// resolveAgent returns the launch spec of id: ID@VERSION or a project's
// locked version (resolvePinned), else the registry's (resolveLatest);
// with the user's and a trusted project's settings applied.
func resolveAgent(ctx context.Context, g *globalOpts, id string, o resolveOpts) (*installer.LaunchSpec, error) {
	spec, err := resolvePinned(ctx, g, id, o)
	if spec == nil && err == nil {
		spec, err = resolveLatest(ctx, g, id, o)
	}
	if err != nil {
		return nil, err
	}
	return applySettings(g, spec)
}

// resolveLatest returns the launch spec of id (installer.ResolveAgent:
// the installed current version wins without reading the registry).
func resolveLatest(ctx context.Context, g *globalOpts, id string, o resolveOpts) (*installer.LaunchSpec, error) {
	dist, err := parseDist(o.dist)
	if err != nil {
		return nil, err
	}
	in, err := g.installer()
	if err != nil {
		return nil, err
	}
	// An editor waits on this: another acp's install of the agent is
	// waited for (and said after a second), but not for ever.
	in.LockWait = g.lockWait
	q := installer.Query{ID: id, Dist: dist, Preview: o.preview, NoInstall: o.noInstall}
	return in.ResolveAgent(ctx, q, installer.Sources{
		Local:    g.localIndex,
		Registry: g.index,
		Install: func(ctx context.Context, req installer.Request) (*installer.Receipt, error) {
			rc, _, err := g.install(ctx, in, req)
			return rc, err
		},
		// Beyond the fast path: registry reads, downloads, installs. From
		// here an interrupt cancels and cleans up (the command is QuickStart).
		Slow: func() { cli.CatchInterrupts(ctx) },
	})
}
