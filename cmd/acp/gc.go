package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newGCCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{Use: "gc", RunE: func(*cobra.Command, []string) error { return errors.New("gc: not built yet") }}
}
