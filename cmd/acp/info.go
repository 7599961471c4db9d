package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newInfoCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{Use: "info", RunE: func(*cobra.Command, []string) error { return errors.New("info: not built yet") }}
}
