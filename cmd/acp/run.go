package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newRunCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{Use: "run", RunE: func(*cobra.Command, []string) error { return errors.New("run: not built yet") }}
}
