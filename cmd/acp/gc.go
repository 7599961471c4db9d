package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

func newGCCmd(g *globalOpts) *cobra.Command {
	var asJSON, force bool
	cmd := &cobra.Command{
		Use: "gc [--force] [--json]",
		Example: `  acp gc                 # keeps each agent's current and previous versions
  acp gc --json`,
		Short: "Remove installed versions other than each agent's current and previous ones, and leftovers of interrupted installs",
		Long: `Remove every installed version other than each agent's current one and
the previous one (kept for acp rollback, even with --force), and what
interrupted installs and failed deletes left behind, and say what was
removed, why, and how many bytes that freed. A version a running agent
uses is kept (and said) unless --force. The runtimes acp brought (Node.js
and uv builds under its data folder) that no install uses any more are
removed too; those an install uses are kept. npm's and uv's download
caches, shared by all agents, are not touched.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, err := g.installer()
			if err != nil {
				return err
			}
			in.ReplaceInUse = force
			rep, err := in.GCAll(cmd.Context())
			if rep == nil {
				return err
			}
			// What was removed is said even when something failed after.
			if asJSON && err == nil {
				return cli.WriteJSON(g.streams.Out, rep)
			}
			printRemoved(g, rep.Removed)
			t := safetext.Terminal
			for _, k := range rep.Kept {
				// --force removes what running agents use; the rollback
				// version stays either way.
				next := "acp gc --force removes it"
				if k.Rollback {
					next = "acp rollback " + k.Agent + " returns to it"
				}
				fmt.Fprintf(g.streams.Err, "kept %s %s: %s (%s)\n", t(k.Agent), t(k.Version), t(k.Why), t(next))
			}
			if err != nil {
				return err
			}
			if len(rep.Removed) == 0 {
				fmt.Fprintln(g.streams.Err, "nothing to remove")
				return nil
			}
			fmt.Fprintf(g.streams.Err, "freed %s\n", humanSize(rep.Bytes()))
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "also remove versions that running agents use")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was removed and kept as JSON")
	return cmd
}

// printRemoved says on stdout, one line each, what gc or uninstall removed:
// the agent, the version (or the leftover's name), why, and its size.
func printRemoved(g *globalOpts, removed []installer.Removed) {
	t := safetext.Terminal
	for _, r := range removed {
		what := r.Version
		if what == "" {
			what = filepath.Base(r.Path)
		}
		if r.Agent != "" { // a leftover of no agent is named alone
			what = t(r.Agent) + " " + t(what)
		} else {
			what = t(what)
		}
		fmt.Fprintf(g.streams.Out, "removed %s (%s, %s)\n", what, t(r.Why), humanSize(r.Bytes))
	}
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
