package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
)

// PLACEHOLDER: replaced by the real command.
func newVerifyCmd(s cli.Streams) *cobra.Command {
	return &cobra.Command{Use: "verify", RunE: func(*cobra.Command, []string) error { return errors.New("verify: not built yet") }}
}
