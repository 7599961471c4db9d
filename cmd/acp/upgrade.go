package main

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

type upgradeOpts struct {
	all  bool
	json bool
}

func newUpgradeCmd(g *globalOpts) *cobra.Command {
	var o upgradeOpts
	cmd := &cobra.Command{
		Use: "upgrade [ID...|--all] [--json] [--project DIR]",
		Example: `  acp upgrade claude-agent
  acp upgrade --all --json   # exit 5: not confirmed up to date (registry not current)`,
		Short: "Install the registry's version of installed agents where it is newer",
		RunE: func(cmd *cobra.Command, args []string) error {
			if !o.all && len(args) == 0 {
				// In a project: move within acp.json's ranges.
				if p, err := g.project(); err != nil || p != nil {
					if err != nil {
						return err
					}
					return upgradeProject(cmd.Context(), g, p, o.json)
				}
			}
			switch {
			case o.all && len(args) > 0:
				return cli.Usagef("upgrade takes agent ids or --all, not both")
			case !o.all && len(args) == 0:
				return cli.Usagef("upgrade needs the agents to upgrade, or --all for every installed agent")
			}
			rep, err := upgrade(cmd.Context(), g, args)
			if err != nil {
				return err
			}
			if o.json {
				if err := cli.WriteJSON(g.streams.Out, rep); err != nil {
					return err
				}
			} else {
				t := safetext.Terminal
				for _, u := range rep.Upgraded {
					fmt.Fprintf(g.streams.Out, "upgraded %s %s -> %s\n", t(u.ID), t(u.From), t(u.To))
				}
				for _, id := range rep.UpToDate {
					fmt.Fprintf(g.streams.Out, "%s is up to date\n", t(id))
				}
				for _, id := range rep.Unconfirmed {
					fmt.Fprintf(g.streams.Out, "%s: no newer version known; not confirmed up to date\n", t(id))
				}
				for _, e := range rep.Skipped {
					fmt.Fprintf(g.streams.Err, "skipped %s: %s\n", t(e.ID), t(e.Error))
				}
				if o.all && len(rep.Upgraded)+len(rep.UpToDate)+len(rep.Skipped)+len(rep.Errors) == 0 {
					fmt.Fprintln(g.streams.Err, "no agents installed (acp install ID installs one)")
				}
				for _, e := range rep.Errors {
					fmt.Fprintf(g.streams.Err, "upgrade %s: %s\n", t(e.ID), t(e.Error))
				}
			}
			if len(rep.Errors) > 0 {
				return &cli.ExitError{Code: cli.ExitFailure, Msg: fmt.Sprintf("%d of %d agents failed to upgrade", len(rep.Errors), len(rep.Errors)+len(rep.Upgraded)+len(rep.UpToDate)+len(rep.Unconfirmed))}
			}
			if len(rep.Unconfirmed) > 0 {
				return &cli.ExitError{Code: cli.ExitUnconfirmed, Msg: "upgrade: " + g.registryCaveat()}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.all, "all", false, "upgrade every installed agent")
	addProjectFlag(cmd, g)
	addDownloadFlags(cmd, g)
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return cmd
}

// upgradeReport is `acp upgrade --json`.
type upgradeReport struct {
	Upgraded []upgraded `json:"upgraded"`
	UpToDate []string   `json:"upToDate"`
	// Unconfirmed: no newer version in the registry compared with, which
	// was not current (Registry.Current false); exit 5.
	Unconfirmed []string       `json:"unconfirmed"`
	Registry    source.Status  `json:"registry"`
	Skipped     []upgradeError `json:"skipped"` // --all: installed agents this registry lacks
	Errors      []upgradeError `json:"errors"`
}

type upgraded struct {
	ID   string `json:"id"`
	From string `json:"from"`
	To   string `json:"to"`
}

type upgradeError struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// upgrade moves each installed agent (all when ids is empty) to the
// registry's version of its channel when that is newer, keeping its
// distribution. One agent's failure does not stop the others.
func upgrade(ctx context.Context, g *globalOpts, ids []string) (*upgradeReport, error) {
	in, err := g.installer()
	if err != nil {
		return nil, err
	}
	idx, err := g.index(ctx)
	if err != nil {
		return nil, err
	}
	all := len(ids) == 0
	if all {
		rs, err := in.List()
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			ids = append(ids, r.ID)
		}
	}
	sort.Strings(ids)
	rep := &upgradeReport{Upgraded: []upgraded{}, UpToDate: []string{}, Unconfirmed: []string{}, Skipped: []upgradeError{}, Errors: []upgradeError{}, Registry: g.registryStatus}
	fail := func(id string, err error) { rep.Errors = append(rep.Errors, upgradeError{ID: id, Error: err.Error()}) }
	for _, id := range ids {
		m, err := idx.Lookup(id)
		if all && errors.Is(err, registry.ErrNotFound) {
			// Installed from another registry, or delisted since: not
			// this run's failure; it stays as it is.
			rep.Skipped = append(rep.Skipped, upgradeError{ID: id, Error: "not in this registry; the installed version stays"})
			continue
		}
		if err != nil {
			fail(id, err)
			continue
		}
		cur, err := in.Current(m.ID)
		if err != nil || cur == nil {
			if err == nil || errors.Is(err, installer.ErrNotInstalled) {
				err = fmt.Errorf("%s is not installed: run acp install %s", m.ID, m.ID)
			}
			fail(m.ID, err)
			continue
		}
		want := m.Version
		if cur.Preview && m.Preview != nil {
			want = m.Preview.Version
		}
		if !registry.Newer(want, cur.Version) {
			if g.registryStatus.Current {
				rep.UpToDate = append(rep.UpToDate, m.ID)
			} else {
				rep.Unconfirmed = append(rep.Unconfirmed, m.ID)
			}
			continue
		}
		rc, _, err := g.install(ctx, in, installer.Request{Agent: m, Dist: cur.Distribution, Preview: cur.Preview && m.Preview != nil})
		if err != nil {
			fail(m.ID, err)
			continue
		}
		rep.Upgraded = append(rep.Upgraded, upgraded{ID: m.ID, From: cur.Version, To: rc.Version})
	}
	return rep, nil
}
