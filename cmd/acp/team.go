package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/project"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// The commands of a project's agents: add, remove, lock, outdated, trust.

func newAddCmd(g *globalOpts) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "add ID[@RANGE] [--json] [--project DIR]",
		Example: `  acp add pi-acp            # ^ the registry's version
  acp add codex-acp@0.9.2
  acp add claude-agent@^0.101`,
		Short: "Pin an agent in the project's acp.json and lock it",
		Long: `Add an agent to the project's acp.json (created in the working directory
when no folder up from it has one) with a version or an npm-style range
(^1.2, ~0.9.1, >=1.0 <2, 1.x); without one, ^ the registry's version.
acp.lock is updated at once: the agent's newest published version the
range allows, with its integrity. Other agents keep their locked versions.`,
		Args: oneArg("agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			id, rng, _ := strings.Cut(args[0], "@")
			if id == "" {
				return cli.Usagef("add needs an agent id before @RANGE, e.g. acp add pi-acp@^0.0.23")
			}
			p, err := g.project()
			if err != nil && g.projectDir != "" && !fileExists(filepath.Join(g.projectDir, project.FileName)) {
				p, err = nil, nil // acp add makes the project --project names
			}
			if err != nil {
				return err
			}
			if p == nil {
				dir := g.projectDir
				if dir == "" {
					dir = "."
				}
				if p, err = project.New(dir); err != nil {
					return err
				}
			}
			idx, err := g.index(ctx)
			if err != nil {
				return err
			}
			m, err := idx.Lookup(id)
			if err != nil {
				return err
			}
			if rng == "" {
				rng = "^" + m.Version
			}
			if err := project.CheckRange(rng); err != nil {
				return cli.Usagef("add %s@%s: %v", m.ID, rng, err)
			}
			old, err := project.ReadLock(p.Dir)
			if err != nil {
				return err
			}
			p.File.Agents[m.ID] = rng
			lock, err := lockProject(ctx, g, p, old)
			if err != nil {
				return err
			}
			// acp.json first: a lock without its pin would be stale,
			// a pin without its lock entry is what acp lock mends.
			if err := p.Save(); err != nil {
				return err
			}
			if err := project.WriteLock(p.Dir, lock); err != nil {
				return err
			}
			e := lock.Agents[m.ID]
			if asJSON {
				return cli.WriteJSON(g.streams.Out, map[string]any{"project": filepath.ToSlash(p.Dir), "id": m.ID, "range": rng, "locked": e})
			}
			fmt.Fprintf(g.streams.Out, "added %s %s to %s; locked %s\n", m.ID, safetext.Terminal(rng), p.Path(), e.Version)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was added and locked as JSON")
	addProjectFlag(cmd, g)
	return cmd
}

func newRemoveCmd(g *globalOpts) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "remove ID [--json] [--project DIR]",
		Example: `  acp remove pi-acp`,
		Short:   "Remove an agent from the project's acp.json and acp.lock",
		Long: `Remove an agent's pin and settings from acp.json and its entry from
acp.lock. Its installs stay (acp uninstall removes them).`,
		Args: oneArg("agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := needProject(g, "remove")
			if err != nil {
				return err
			}
			id := args[0]
			if _, ok := p.File.Agents[id]; !ok {
				return &cli.Error{Code: cli.CodeAgentNotFound, Err: fmt.Errorf("remove %s: %s does not name it", safetext.Terminal(id), p.Path()), Candidates: slices.Sorted(maps.Keys(p.File.Agents))}
			}
			delete(p.File.Agents, id)
			delete(p.File.Settings, id)
			lock, err := project.ReadLock(p.Dir)
			if err != nil {
				return err
			}
			if err := p.Save(); err != nil {
				return err
			}
			if lock != nil {
				delete(lock.Agents, id)
				if err := project.WriteLock(p.Dir, lock); err != nil {
					return err
				}
			}
			if asJSON {
				return cli.WriteJSON(g.streams.Out, map[string]any{"project": filepath.ToSlash(p.Dir), "id": id, "removed": true})
			}
			fmt.Fprintf(g.streams.Out, "removed %s from %s\n", id, p.Path())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was removed as JSON")
	addProjectFlag(cmd, g)
	return cmd
}

func newLockCmd(g *globalOpts) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "lock [--json] [--project DIR]",
		Example: `  acp lock && git add acp.json acp.lock`,
		Short:   "Write acp.lock: the exact version of each agent in acp.json, with its integrity",
		Long: `Resolve each agent of acp.json to an exact version and write acp.lock
beside it: per agent the version and, per distribution, what its bytes
must be (each platform's sha256 for binaries, npm's integrity for npx,
PyPI's sha256 of each file for uvx). A locked version that acp.json's
range still allows is kept (acp upgrade moves within the ranges); others
become the newest published version the range allows. The file is
deterministic: sorted keys, one agent a block.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := needProject(g, "lock")
			if err != nil {
				return err
			}
			old, err := project.ReadLock(p.Dir)
			if err != nil {
				return err
			}
			lock, err := lockProject(cmd.Context(), g, p, old)
			if err != nil {
				return err
			}
			if err := project.WriteLock(p.Dir, lock); err != nil {
				return err
			}
			if asJSON {
				return cli.WriteJSON(g.streams.Out, lock)
			}
			printLock(g, lock)
			fmt.Fprintf(g.streams.Err, "wrote %s\n", filepath.Join(p.Dir, project.LockName))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print acp.lock's content")
	addProjectFlag(cmd, g)
	return cmd
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func printLock(g *globalOpts, lock *project.Lock) {
	for _, id := range slices.Sorted(maps.Keys(lock.Agents)) {
		e := lock.Agents[id]
		fmt.Fprintf(g.streams.Out, "locked %s %s (%s)\n", id, safetext.Terminal(e.Version), kindList(e.Kinds()))
	}
}

func kindList(ks []registry.Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// upgradeProject moves every agent of p to the newest version its range
// allows, rewrites acp.lock and installs the locked set.
func upgradeProject(ctx context.Context, g *globalOpts, p *project.Project, asJSON bool) error {
	old, err := project.ReadLock(p.Dir)
	if err != nil {
		return err
	}
	// Nothing of the old lock is kept: every agent moves to the newest.
	lock, err := lockProject(ctx, g, p, nil)
	if err != nil {
		return err
	}
	if err := project.WriteLock(p.Dir, lock); err != nil {
		return err
	}
	got, err := projectInstall(ctx, g, p, "", false)
	if err != nil {
		return err
	}
	type moved struct {
		ID   string `json:"id"`
		From string `json:"from"`
		To   string `json:"to"`
	}
	var rep []moved
	for _, id := range slices.Sorted(maps.Keys(lock.Agents)) {
		from := ""
		if old != nil {
			from = old.Agents[id].Version
		}
		rep = append(rep, moved{ID: id, From: from, To: lock.Agents[id].Version})
	}
	if asJSON {
		if rep == nil {
			rep = []moved{}
		}
		return cli.WriteJSON(g.streams.Out, map[string]any{"project": filepath.ToSlash(p.Dir), "locked": rep, "installed": len(got)})
	}
	for _, m := range rep {
		switch {
		case m.From == m.To:
			fmt.Fprintf(g.streams.Out, "%s %s is the newest %s allows\n", m.ID, m.To, safetext.Terminal(p.File.Agents[m.ID]))
		case m.From == "":
			fmt.Fprintf(g.streams.Out, "locked %s %s\n", m.ID, m.To)
		default:
			fmt.Fprintf(g.streams.Out, "upgraded %s %s -> %s\n", m.ID, m.From, m.To)
		}
	}
	return nil
}

// outdatedRow is one agent of acp outdated.
type outdatedRow struct {
	ID string `json:"id"`
	// Current is the version resolve gives outside a project ("" none).
	Current string `json:"current"`
	// Installed lists every installed version, newest first.
	Installed []string `json:"installed"`
	Registry  string   `json:"registry"`
	// Range and Locked are the project's ("" outside one).
	Range  string `json:"range,omitempty"`
	Locked string `json:"locked,omitempty"`
	// Outdated: the registry offers a newer version than the one this
	// place launches (the locked one in a project, else the current).
	Outdated bool `json:"outdated"`
}

func newOutdatedCmd(g *globalOpts) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "outdated [--json] [--project DIR]",
		Example: `  acp outdated --json`,
		Short:   "List installed, locked and registry versions side by side",
		Long: `For each agent of the project (or, outside one, each installed agent): the
version acp launches outside a project, every installed version, the
registry's version, and in a project its range and locked version.
Nothing is upgraded: acp upgrade does that when asked.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rows, err := outdated(cmd.Context(), g)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.WriteJSON(g.streams.Out, rows)
			}
			fmt.Fprintf(g.streams.Out, "%-24s %-12s %-12s %-12s %s\n", "ID", "CURRENT", "LOCKED", "REGISTRY", "RANGE")
			t := safetext.Terminal
			for _, r := range rows {
				mark := ""
				if r.Outdated {
					mark = "  (newer in the registry)"
				}
				fmt.Fprintf(g.streams.Out, "%-24s %-12s %-12s %-12s %s%s\n", r.ID, dash(t(r.Current)), dash(t(r.Locked)), dash(t(r.Registry)), dash(t(r.Range)), mark)
			}
			if cv := g.registryCaveat(); cv != "" {
				fmt.Fprintln(g.streams.Err, "note: "+cv)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rows as JSON")
	addProjectFlag(cmd, g)
	return cmd
}

func outdated(ctx context.Context, g *globalOpts) ([]outdatedRow, error) {
	p, err := g.project()
	if err != nil {
		return nil, err
	}
	in, err := g.installer()
	if err != nil {
		return nil, err
	}
	idx, err := g.index(ctx)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	var lock *project.Lock
	if p != nil {
		for id := range p.File.Agents {
			ids[id] = true
		}
		if lock, err = project.ReadLock(p.Dir); err != nil {
			return nil, err
		}
	} else {
		rs, err := in.List()
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			ids[r.ID] = true
		}
	}
	rows := []outdatedRow{}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		r := outdatedRow{ID: id, Installed: []string{}}
		if rc, err := in.Current(id); err == nil && rc != nil {
			r.Current = rc.Version
		}
		if rs, err := in.Installed(id); err == nil {
			for _, rc := range rs {
				r.Installed = append(r.Installed, rc.Version)
			}
		}
		if m, err := idx.Lookup(id); err == nil && m.ID == id {
			r.Registry = m.Version
		}
		launched := r.Current
		if p != nil {
			r.Range = p.File.Agents[id]
			if lock != nil {
				r.Locked = lock.Agents[id].Version
			}
			launched = r.Locked
		}
		r.Outdated = r.Registry != "" && launched != "" && registry.Newer(r.Registry, launched)
		rows = append(rows, r)
	}
	return rows, nil
}

func newTrustCmd(g *globalOpts) *cobra.Command {
	var o struct {
		revoke, json bool
	}
	cmd := &cobra.Command{
		Use:     "trust [--revoke] [--json] [--project DIR]",
		Example: `  acp trust            # after reading acp.json's settings`,
		Short:   "Let the project's acp.json settings (env, args) apply to its agents",
		Long: `A project's acp.json comes with the repository: its pins apply at once
(they only choose among published, checked versions), but its settings
(env and args for an agent) take effect only once you trust the project.
acp records the folder and acp.json's sha256 in its data folder; when
acp.json changes, its settings are ignored again until you trust it
again. Reserved variables (the runner's, the host's, credentials) stay
refused whatever is trusted. --revoke forgets the project.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := needProject(g, "trust")
			if err != nil {
				return err
			}
			tr, err := g.trust()
			if err != nil {
				return err
			}
			if o.revoke {
				err = tr.Revoke(p)
			} else {
				err = tr.Allow(p)
			}
			if err != nil {
				return err
			}
			if o.json {
				return cli.WriteJSON(g.streams.Out, map[string]any{"project": filepath.ToSlash(p.Dir), "sha256": p.Hash(), "trusted": !o.revoke})
			}
			if o.revoke {
				fmt.Fprintf(g.streams.Out, "no longer trusted: %s\n", p.Path())
			} else {
				fmt.Fprintf(g.streams.Out, "trusted %s (sha256 %s): its settings apply to run and resolve until it changes\n", p.Path(), p.Hash()[:12])
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.revoke, "revoke", false, "forget the project: its settings are ignored again")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the project, its acp.json sha256 and whether it is trusted")
	addProjectFlag(cmd, g)
	return cmd
}
