package main

import (
	"context"
	"fmt"
	"path/filepath"
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
		Use:         "install [ID[@VERSION]] [--dist binary|npx|uvx] [--preview] [--force] [--json] [--project DIR]",
		Annotations: map[string]string{cli.FlagHint + "version": "name the version in the agent's id instead: acp install ID@VERSION"},
		Example: `  acp install claude-agent
  acp install gemini --dist npx
  acp install "Claude Agent" --json`,
		Short: "Install an agent (idempotent)",
		Long: `Install an agent from the registry into the data directory.

VERSION may be any version the agent's package registry publishes (npm
for npx agents, checked against npm's integrity; PyPI for uvx agents);
binary agents install at the registry's version and its preview only.
A version that is not the registry's is installed beside the current one
and does not replace it: run it with acp run ID@VERSION, or pin it in a
project's acp.json. @latest is the registry's version.

Without ID, in a project (a folder or parent holding acp.json, or
--project DIR), acp installs exactly the agents and versions acp.lock
records; bytes that differ from the lock install nothing.

With --offline nothing is installed: an agent that is installed already
is reported, any other is the error not-installed.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return oneArg("agent id")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			dist, err := parseDist(o.dist)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return installProject(cmd.Context(), g, dist, o)
			}
			id, version, _ := strings.Cut(args[0], "@")
			if id == "" {
				return cli.Usagef("install needs an agent id before @VERSION, e.g. acp install gemini@1.2.3")
			}
			if version == "latest" { // as npm says it: the registry's version
				version = ""
			}
			rc, already, note, err := installAgent(cmd.Context(), g, id, version, dist, o)
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
			if note != "" {
				note = ": " + note
			}
			fmt.Fprintf(g.streams.Out, "%s %s %s (%s) in %s%s\n", state, rc.ID, rc.Version, rc.Distribution, rc.Dir, note)
			return nil
		},
	}
	addProjectFlag(cmd, g)
	cmd.Flags().StringVar(&o.dist, "dist", "", "distribution to install: binary, npx or uvx (default: the first that runs here)")
	cmd.Flags().BoolVar(&o.preview, "preview", false, "install the agent's preview version")
	cmd.Flags().BoolVar(&o.force, "force", false, "reinstall even when installed")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the install receipt as JSON")
	addDownloadFlags(cmd, g)
	return cmd
}

// installAgent installs id at version ("" the registry's); note says when
// the version is not the registry's.
func installAgent(ctx context.Context, g *globalOpts, id, version string, dist registry.Kind, o installOpts) (*installer.Receipt, bool, string, error) {
	idx, err := g.index(ctx)
	if err != nil {
		return nil, false, "", err
	}
	m, err := idx.Lookup(id)
	if err != nil {
		return nil, false, "", err
	}
	if version != "" {
		if !offeredVersion(m, version) && !o.preview {
			rc, rel, already, err := installRelease(ctx, g, m, version, nil, dist, o.force)
			return rc, already, offRegistryNote(rel), err
		}
		if o.preview, err = pickChannel(m, version, o.preview); err != nil {
			return nil, false, "", err
		}
	}
	in, err := g.installer()
	if err != nil {
		return nil, false, "", err
	}
	rc, already, err := g.install(ctx, in, installer.Request{Agent: m, Dist: dist, Preview: o.preview, Force: o.force, Version: version})
	return rc, already, "", err
}

// offeredVersion: the registry offers version (stable or preview).
func offeredVersion(m *registry.Manifest, version string) bool {
	return registry.SameVersion(version, m.Version) || (m.Preview != nil && registry.SameVersion(version, m.Preview.Version))
}

// installProject is `acp install` without an id: the project's locked set.
func installProject(ctx context.Context, g *globalOpts, dist registry.Kind, o installOpts) error {
	p, err := g.project()
	if err != nil {
		return err
	}
	if p == nil {
		return cli.Usagef("install needs one agent id, or a project's acp.json in this folder or a parent (acp add ID makes one; --project DIR names its folder)")
	}
	got, err := projectInstall(ctx, g, p, dist, o.force)
	if err != nil {
		return err
	}
	if o.json {
		if got == nil {
			got = []projectInstalled{}
		}
		return cli.WriteJSON(g.streams.Out, map[string]any{"project": filepath.ToSlash(p.Dir), "agents": got})
	}
	for _, a := range got {
		state := "installed"
		if a.Already {
			state = "already installed"
		}
		note := ""
		if !registry.SameVersion(a.Version, a.RegistryVersion) {
			note = fmt.Sprintf(" (locked; the registry offers %s)", a.RegistryVersion)
		}
		fmt.Fprintf(g.streams.Out, "%s %s %s (%s) in %s%s\n", state, a.ID, a.Version, a.Distribution, a.Dir, note)
	}
	if len(got) == 0 {
		fmt.Fprintf(g.streams.Err, "%s names no agents (acp add ID adds one)\n", p.Path())
	}
	return nil
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
