package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func newUninstallCmd(g *globalOpts) *cobra.Command {
	var asJSON, force bool
	cmd := &cobra.Command{
		Use: "uninstall ID [--force] [--json]",
		Example: `  acp uninstall gemini
  acp uninstall gemini --force --json`,
		Short: "Remove every installed version of an agent",
		Long: `Remove every installed version of an agent and what interrupted installs
left, and say what was removed and how many bytes that freed. A version a
running agent uses is kept, with a sentence naming the process, and the
command fails with the code in-use, unless --force (the running agent may
then break).`,
		Args: oneArg("agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			in, rs, err := g.installedVersions(id)
			if err != nil {
				return err
			}
			in.ReplaceInUse = force
			rep, err := in.Remove(cmd.Context(), id)
			if rep == nil {
				return err
			}
			if asJSON && err == nil {
				sharedCaches(g, rs)
				return cli.WriteJSON(g.streams.Out, rep)
			}
			// What was removed is said even when a version was kept.
			printRemoved(g, rep.Removed)
			if errors.Is(err, installer.ErrInUse) {
				hint := "close the agent (or the editor running it) and run acp uninstall " + id + " again"
				if !force && runtime.GOOS != "windows" {
					// Windows refuses to delete a running program's files,
					// --force or not: there it is no way on.
					hint += "; --force removes it anyway"
				}
				return &cli.Error{Code: cli.CodeInUse, Err: err, Hint: hint}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(g.streams.Out, "uninstalled %s\n", safetext.Terminal(id))
			fmt.Fprintf(g.streams.Err, "freed %s\n", humanSize(rep.Bytes()))
			sharedCaches(g, rs)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "also remove a version a running agent uses")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was removed as JSON")
	return cmd
}

// installedVersions returns the installer and the installed versions of
// id, or the not-installed error naming installed agents like it.
func (g *globalOpts) installedVersions(id string) (*installer.Installer, []installer.Receipt, error) {
	in, err := g.installer()
	if err != nil {
		return nil, nil, err
	}
	if !registry.ValidID(id) {
		return nil, nil, notInstalled(in, id) // "Claude Agent": nothing is installed under a name
	}
	rs, err := in.Installed(id)
	if err != nil {
		return nil, nil, err
	}
	if len(rs) == 0 {
		return nil, nil, notInstalled(in, id)
	}
	return in, rs, nil
}

// notInstalled says id is not installed and names the installed agents
// close to it, which is what the user most likely meant.
func notInstalled(in *installer.Installer, id string) error {
	var ids []string
	if rs, err := in.List(); err == nil {
		for _, r := range rs {
			ids = append(ids, r.ID)
		}
	}
	e := &cli.Error{Code: cli.CodeNotInstalled, Err: fmt.Errorf("%s is not installed", id), Hint: "acp list --installed shows what is"}
	if near := registry.Suggest(id, ids, 3); len(near) > 0 {
		e.Hint, e.Candidates = "installed agents like it: "+strings.Join(near, ", "), near
	}
	return e
}

// sharedCaches says what uninstall does not reach: npm's and uv's download
// caches under acp's cache folder hold the packages of every npx or uvx
// agent together, so one agent's share cannot be told apart and removed.
func sharedCaches(g *globalOpts, rs []installer.Receipt) {
	cache, err := g.cacheDir()
	if err != nil {
		return
	}
	said := map[registry.Kind]bool{}
	for _, r := range rs {
		var tool, dir string
		switch r.Distribution {
		case registry.KindNpx:
			tool, dir = "npm", filepath.Join(cache, "npm")
		case registry.KindUvx:
			tool, dir = "uv", filepath.Join(cache, "uv")
		default:
			continue
		}
		if said[r.Distribution] {
			continue
		}
		said[r.Distribution] = true
		fmt.Fprintf(g.streams.Err, "notice: %s's download cache %s is shared by every %s agent and is kept; delete that folder to reclaim its space (the next %s install downloads again)\n",
			tool, safetext.Terminal(dir), r.Distribution, r.Distribution)
	}
}
