package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
	"github.com/agentclientprotocol/acp-registry-go/registry"
	"github.com/agentclientprotocol/acp-registry-go/registry/source"
)

type listOpts struct {
	installedOnly bool
	json          bool
}

func newListCmd(g *globalOpts) *cobra.Command {
	var o listOpts
	cmd := &cobra.Command{
		Use: "list [--installed] [--json] [--project DIR]",
		Example: `  acp list
  acp list --installed
  acp list --json --offline`,
		Short: "List the registry's agents and what is installed",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			idx, err := g.index(cmd.Context())
			if err != nil {
				return err
			}
			in, err := g.installer()
			if err != nil {
				return err
			}
			rows, err := agentRows(idx, in, o.installedOnly)
			if err != nil {
				return err
			}
			if err := markPinned(g, rows); err != nil {
				return err
			}
			if o.json {
				if err := g.addIconPaths(cmd.Context(), idx, rows); err != nil {
					return err
				}
				return cli.WriteJSON(g.streams.Out, agentList{Agents: rows, Registry: &g.registryStatus})
			}
			if o.installedOnly && len(rows) == 0 {
				// As gh does: the empty result said on stderr, no bare header.
				fmt.Fprintln(g.streams.Err, "no agents installed (acp install ID installs one)")
				return nil
			}
			return writeAgentTable(g.streams.Out, rows, noDescriptions)
		},
	}
	cmd.Flags().BoolVar(&o.installedOnly, "installed", false, "only agents installed here")
	addProjectFlag(cmd, g)
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return cmd
}

// agentRow is one agent in list and search output.
type agentRow struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Version       string          `json:"version"`
	Description   string          `json:"description"`
	Distributions []registry.Kind `json:"distributions"`
	// Icon is the icon's URL as the registry gives it, "" when it names
	// none: editors show it beside the name.
	Icon string `json:"icon"`
	// IconPath is the icon's checked copy in acp's icon cache (forward
	// slashes), "" when there is none (see iconPaths).
	IconPath string `json:"iconPath"`
	// Installed is the version Resolve would launch, "" when none.
	Installed string `json:"installed"`
	// Pinned is, in a project, the version its acp.lock pins (its
	// acp.json range when it is not locked yet).
	Pinned string `json:"pinned,omitempty"`
}

type agentList struct {
	Agents []agentRow `json:"agents"`
	// Registry is what list compared with (search leaves it out).
	Registry *source.Status `json:"registry,omitempty"`
}

func rowFor(m *registry.Manifest, installed string) agentRow {
	kinds := m.Distribution.Kinds()
	if kinds == nil {
		kinds = []registry.Kind{}
	}
	return agentRow{ID: m.ID, Name: m.Name, Version: m.Version, Description: m.Description, Distributions: kinds, Icon: m.Icon, Installed: installed}
}

// installedVersions maps agent ids to their current installed version.
func installedVersions(in *installer.Installer) (map[string]string, error) {
	rs, err := in.List()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rs))
	for _, r := range rs {
		out[r.ID] = r.Version
	}
	return out, nil
}

// agentRows lists the registry's agents with what is installed; with
// installedOnly, installed agents only, including ones the registry no
// longer lists.
func agentRows(idx *registry.Index, in *installer.Installer, installedOnly bool) ([]agentRow, error) {
	inst, err := installedVersions(in)
	if err != nil {
		return nil, err
	}
	rows := []agentRow{}
	for i := range idx.Agents {
		m := &idx.Agents[i]
		v, ok := inst[m.ID]
		if installedOnly && !ok {
			continue
		}
		rows = append(rows, rowFor(m, v))
		delete(inst, m.ID)
	}
	if installedOnly {
		for id, v := range inst {
			rows = append(rows, agentRow{ID: id, Distributions: []registry.Kind{}, Installed: v})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	return rows, nil
}

// descriptions says whether an agent table has a DESCRIPTION column.
type descriptions int

const (
	noDescriptions descriptions = iota
	withDescriptions
)

func writeAgentTable(w io.Writer, rows []agentRow, d descriptions) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "ID\tNAME\tVERSION\tDISTRIBUTIONS\tINSTALLED"
	pinned := slices.ContainsFunc(rows, func(r agentRow) bool { return r.Pinned != "" })
	if pinned {
		header += "\tPINNED"
	}
	if d == withDescriptions {
		header += "\tDESCRIPTION"
	}
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		kinds := make([]string, len(r.Distributions))
		for i, k := range r.Distributions {
			kinds[i] = string(k)
		}
		// Names, versions and descriptions come from the registry: no
		// escape sequence of theirs reaches the terminal (nor a tab that
		// would break the columns).
		line := strings.Join([]string{cell(r.ID), dash(cell(r.Name)), dash(cell(r.Version)), dash(strings.Join(kinds, ",")), dash(cell(r.Installed))}, "\t")
		if pinned {
			line += "\t" + dash(cell(r.Pinned))
		}
		if d == withDescriptions {
			line += "\t" + truncate(cell(r.Description), 60)
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// cell is untrusted text for one table cell: sanitised, on one line.
func cell(s string) string { return strings.Join(strings.Fields(safetext.Terminal(s)), " ") }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// truncate shortens s to n runes, on one line, so tables stay aligned.
func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
