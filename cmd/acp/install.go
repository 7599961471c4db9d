package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the real command.
func newInstallCmd(g *globalOpts) *cobra.Command {
	return &cobra.Command{Use: "install", RunE: func(*cobra.Command, []string) error { return errors.New("install: not built yet") }}
}
