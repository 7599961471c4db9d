package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newUninstallCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{Use: "uninstall", RunE: func(*cobra.Command, []string) error { return errors.New("uninstall: not built yet") }}
}
