package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newSearchCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{Use: "search", RunE: func(*cobra.Command, []string) error { return errors.New("search: not built yet") }}
}
