package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
)

func newSearchCmd(g *globalOpts) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "search TERM... [--json]",
		Example: `  acp search claude
  acp search open source --json`,
		Short: "Find agents whose id, name or description contains every word of TERM",
		Long: `Find agents whose id, name or description contains TERM, ignoring case.
With several words (acp search claude agent, or one quoted argument) an
agent matches when it contains every word.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(strings.Join(args, "")) == "" {
				return cli.Usagef("search needs a term, e.g. acp search claude")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			term := strings.Join(args, " ")
			idx, err := g.index(cmd.Context())
			if err != nil {
				return err
			}
			in, err := g.installer()
			if err != nil {
				return err
			}
			inst, err := installedVersions(in)
			if err != nil {
				return err
			}
			rows := []agentRow{}
			for _, m := range idx.Search(term) {
				rows = append(rows, rowFor(m, inst[m.ID]))
			}
			if asJSON {
				if err := g.addIconPaths(cmd.Context(), idx, rows); err != nil {
					return err
				}
				return cli.WriteJSON(g.streams.Out, agentList{Agents: rows})
			}
			if len(rows) == 0 {
				fmt.Fprintf(g.streams.Err, "no agent matches %q (acp list shows every agent)\n", term)
				return nil
			}
			return writeAgentTable(g.streams.Out, rows, withDescriptions)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
