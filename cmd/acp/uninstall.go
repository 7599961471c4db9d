package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/installer"
	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func newUninstallCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall ID",
		Short: "Remove every installed version of an agent",
		Args:  oneArg("agent id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, err := g.installer()
			if err != nil {
				return err
			}
			id := args[0]
			rs, err := in.Installed(id)
			if err != nil {
				return err
			}
			if len(rs) == 0 {
				return notInstalled(in, id)
			}
			if err := in.Uninstall(id); err != nil {
				return err
			}
			fmt.Fprintf(g.streams.Out, "uninstalled %s\n", id)
			return nil
		},
	}
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
