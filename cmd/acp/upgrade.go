package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newUpgradeCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{Use: "upgrade", RunE: func(*cobra.Command, []string) error { return errors.New("upgrade: not built yet") }}
}
