package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
)

// PLACEHOLDER: replaced by the real command.
func newUpdateCmd(s cli.Streams) *cobra.Command {
	return &cobra.Command{Use: "update", RunE: func(*cobra.Command, []string) error { return errors.New("update: not built yet") }}
}
