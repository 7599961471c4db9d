package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newListCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{Use: "list", RunE: func(*cobra.Command, []string) error { return errors.New("list: not built yet") }}
}
