package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newGCCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{
		Use:   "gc",
		Short: "Remove installed versions other than each agent's current one",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, err := g.installer()
			if err != nil {
				return err
			}
			rs, err := in.List()
			if err != nil {
				return err
			}
			n := 0
			for _, r := range rs {
				removed, err := in.GC(r.ID)
				if err != nil {
					return err // GC's errors name the agent
				}
				for _, v := range removed {
					fmt.Fprintf(g.streams.Out, "removed %s %s\n", r.ID, v)
					n++
				}
			}
			if n == 0 {
				fmt.Fprintln(g.streams.Err, "nothing to remove")
			}
			return nil
		},
	}
}
