package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
)

// PLACEHOLDER: replaced by the real command.
func newMatrixCmd(s cli.Streams) *cobra.Command {
	return &cobra.Command{Use: "matrix", RunE: func(*cobra.Command, []string) error { return errors.New("matrix: not built yet") }}
}
