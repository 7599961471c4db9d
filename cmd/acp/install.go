package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

type installOpts struct {
	dist    string
	preview bool
	force   bool
	json    bool
}

func newInstallCmd(g *globalOpts) *cobra.Command {
	var o installOpts
	cmd := &cobra.Command{
		Use:         "install ID[@VERSION] [--dist binary|npx|uvx] [--preview] [--force] [--json]",
		Annotations: map[string]string{cli.FlagHint + "version": "name the version in the agent's id instead: acp install ID@VERSION"},
		Example: `  acp install claude-agent
  acp install gemini --dist npx
  acp install "Claude Agent" --json`,
		Short: "Install an agent (idempotent)",
		Long: `Install an agent from the registry into the data directory.

VERSION, when given, must be the version the registry offers (or its
preview version); @latest is the registry's version. With --offline
nothing is installed: an agent that is installed already is reported,
any other is the error not-installed.`,
		Args: oneArg("agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dist, err := parseDist(o.dist)
			if err != nil {
				return err
			}
			id, version, _ := strings.Cut(args[0], "@")
			if id == "" {
				return cli.Usagef("install needs an agent id before @VERSION, e.g. acp install gemini@1.2.3")
			}
			if version == "latest" { // as npm says it: the registry's version
				version = ""
			}
			rc, already, err := installAgent(cmd.Context(), g, id, version, dist, o.preview, o.force)
			if err != nil {
				return err
			}
			if o.json {
				return cli.WriteJSON(g.streams.Out, rc)
			}
			state := "installed"
			if already {
				state = "already installed"
			}
			fmt.Fprintf(g.streams.Out, "%s %s %s (%s) in %s\n", state, rc.ID, rc.Version, rc.Distribution, rc.Dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.dist, "dist", "", "distribution to install: binary, npx or uvx (default: the first that runs here)")
	cmd.Flags().BoolVar(&o.preview, "preview", false, "install the agent's preview version")
	cmd.Flags().BoolVar(&o.force, "force", false, "reinstall even when installed")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the install receipt as JSON")
	addDownloadFlags(cmd, g)
	return cmd
}

func installAgent(ctx context.Context, g *globalOpts, id, version string, dist registry.Kind, preview, force bool) (*installer.Receipt, bool, error) {
	idx, err := g.index(ctx)
	if err != nil {
		return nil, false, err
	}
	m, err := idx.Lookup(id)
	if err != nil {
		return nil, false, err
	}
	if version != "" {
		if preview, err = pickChannel(m, version, preview); err != nil {
			return nil, false, err
		}
	}
	in, err := g.installer()
	if err != nil {
		return nil, false, err
	}
	return g.install(ctx, in, installer.Request{Agent: m, Dist: dist, Preview: preview, Force: force, Version: version})
}

// pickChannel checks an explicit @VERSION against the registry, which
// holds one version per agent and channel, and says which channel it is.
func pickChannel(m *registry.Manifest, version string, preview bool) (bool, error) {
	if !preview && registry.SameVersion(version, m.Version) {
		return false, nil
	}
	if m.Preview != nil && registry.SameVersion(version, m.Preview.Version) {
		return true, nil
	}
	offers := m.Version
	if m.Preview != nil {
		offers += " (preview " + m.Preview.Version + " with --preview)"
	}
	if preview && registry.SameVersion(version, m.Version) {
		return false, fmt.Errorf("install %s@%s: %s is the stable version, not the preview: drop --preview (%w)", m.ID, version, version, installer.ErrVersionMismatch)
	}
	return false, &cli.Error{
		Code: cli.CodeVersionNotFound,
		Err:  fmt.Errorf("install %s@%s: the registry offers %s %s only", m.ID, version, m.ID, offers),
		Hint: "acp installs the versions the registry lists: acp install " + m.ID,
	}
}
