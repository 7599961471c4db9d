package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// A command of its own rather than `upgrade --rollback`: a rollback goes
// down, not up, and `helm rollback`, `snap revert` and `kubectl rollout
// undo` taught users a verb for it.
func newRollbackCmd(g *globalOpts) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "rollback ID [--json]",
		Short: "Make the version installed before the current one current again",
		Long: `Make the previous version of an agent current again: the newest installed
version older than the current one, which upgrade leaves and gc keeps for
this. It needs no network, and works when the current install is broken.
The version rolled back from stays installed until the next acp gc;
acp upgrade moves to the registry's version again.`,
		Example: `  acp rollback claude-agent
  acp rollback claude-agent --json   # the launch spec of the version now current, as acp resolve --json`,
		Args: oneArg("agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			in, _, err := g.installedVersions(id)
			if err != nil {
				return err
			}
			from := ""
			if cur, err := in.Current(id); err == nil && cur != nil {
				from = cur.Version
			}
			r, err := in.Rollback(cmd.Context(), id)
			if errors.Is(err, installer.ErrNotInstalled) {
				// Installed, but nothing older: the code says which
				// version is missing, and the hint how versions are kept.
				return &cli.Error{Code: cli.CodeNotInstalled, Err: err, Hint: "acp upgrade keeps the version it replaces, and acp gc keeps that one for rollback; there is no older version here"}
			}
			if err != nil {
				return err
			}
			if asJSON {
				spec, err := in.CurrentSpec(cmd.Context(), r.ID)
				if err != nil {
					return err
				}
				return cli.WriteJSON(g.streams.Out, spec)
			}
			t := safetext.Terminal
			if from != "" {
				fmt.Fprintf(g.streams.Out, "rolled back %s %s -> %s\n", t(r.ID), t(from), t(r.Version))
			} else {
				fmt.Fprintf(g.streams.Out, "rolled back %s to %s\n", t(r.ID), t(r.Version))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the launch spec of the version now current, as acp resolve --json")
	return cmd
}
