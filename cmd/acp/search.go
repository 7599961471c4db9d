package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func newSearchCmd(g *globalOpts) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "search TERM [--json]",
		Short: "Find agents whose id, name or description contains TERM",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
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
			for _, m := range search(idx, args[0]) {
				rows = append(rows, rowFor(m, inst[m.ID]))
			}
			if asJSON {
				return cli.WriteJSON(g.streams.Out, agentList{Agents: rows})
			}
			if len(rows) == 0 {
				fmt.Fprintf(g.streams.Err, "no agent matches %q (acp list shows every agent)\n", args[0])
				return nil
			}
			return writeAgentTable(g.streams.Out, rows, true)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// search matches every word of term, case-insensitively, against an
// agent's id, name and description; results keep the index's id order.
func search(idx *registry.Index, term string) []*registry.Manifest {
	words := strings.Fields(strings.ToLower(term))
	var out []*registry.Manifest
	for i := range idx.Agents {
		m := &idx.Agents[i]
		hay := strings.ToLower(m.ID + "\n" + m.Name + "\n" + m.Description)
		ok := len(words) > 0
		for _, w := range words {
			ok = ok && strings.Contains(hay, w)
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}
