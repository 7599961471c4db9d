package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newResolveCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{Use: "resolve", RunE: func(*cobra.Command, []string) error { return errors.New("resolve: not built yet") }}
}
