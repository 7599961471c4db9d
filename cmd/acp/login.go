package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newLoginCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{Use: "login", RunE: func(*cobra.Command, []string) error { return errors.New("login: not built yet") }}
}
