package main

import (
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/safetext"
)

// gcReport is `acp gc --json`: every version removed with its size, and
// all bytes freed (leftovers of interrupted installs included).
type gcReport struct {
	Removed []gcRemoved `json:"removed"`
	Bytes   int64       `json:"bytes"`
}

type gcRemoved struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	Bytes   int64  `json:"bytes"`
}

func newGCCmd(g *globalOpts) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "gc [--json]",
		Short: "Remove installed versions other than each agent's current one, and leftovers of interrupted installs",
		Long: `Remove every installed version other than each agent's current one,
and what interrupted installs left behind, and say what was removed and
how many bytes that freed (measured on disk before and after).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, err := g.installer()
			if err != nil {
				return err
			}
			rs, err := in.List()
			if err != nil {
				return err
			}
			rep := gcReport{Removed: []gcRemoved{}}
			for _, r := range rs {
				agentDir := filepath.Join(in.Root, "agents", r.ID)
				before := dirSize(agentDir)
				sizes := map[string]int64{}
				if all, err := in.Installed(r.ID); err == nil {
					for _, v := range all {
						sizes[v.Version] = dirSize(v.Dir)
					}
				}
				removed, err := in.GC(r.ID)
				rep.Bytes += max(before-dirSize(agentDir), 0)
				for _, v := range removed {
					rep.Removed = append(rep.Removed, gcRemoved{ID: r.ID, Version: v, Bytes: sizes[v]})
				}
				if err != nil {
					return err // GC's errors name the agent
				}
			}
			if asJSON {
				return cli.WriteJSON(g.streams.Out, rep)
			}
			var listed int64
			for _, r := range rep.Removed {
				fmt.Fprintf(g.streams.Out, "removed %s %s (%s)\n", r.ID, safetext.Terminal(r.Version), humanSize(r.Bytes))
				listed += r.Bytes
			}
			if rest := rep.Bytes - listed; rest > 0 {
				fmt.Fprintf(g.streams.Out, "removed leftovers of interrupted installs (%s)\n", humanSize(rest))
			}
			if rep.Bytes == 0 && len(rep.Removed) == 0 {
				fmt.Fprintln(g.streams.Err, "nothing to remove")
				return nil
			}
			fmt.Fprintf(g.streams.Err, "freed %s\n", humanSize(rep.Bytes))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// dirSize is the bytes of the regular files under dir (0 when it is gone).
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// humanSize is n in the largest unit that keeps it at least 1, as du -h.
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n), 0
	for f >= unit && i < 4 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", f, "KMGT"[i-1])
}
