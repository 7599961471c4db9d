package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
)

// oneArg accepts exactly one positional argument, named what ("agent id"),
// and says in words what was wrong: cobra's own "accepts 1 arg(s),
// received 2" names neither the command nor the fix.
func oneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch len(args) {
		case 1:
			if strings.TrimSpace(args[0]) == "" {
				return cli.Usagef("%s needs one %s, got an empty one", cmd.Name(), what)
			}
			return nil
		case 0:
			return cli.Usagef("%s needs one %s", cmd.Name(), what)
		}
		return cli.Usagef("%s takes one %s, got %d: %s", cmd.Name(), what, len(args), launch.Quote(args))
	}
}

// noArgs refuses positional arguments; cobra.NoArgs calls them an
// "unknown command", which misleads for a command without subcommands.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return cli.Usagef("%s takes no arguments, got %s", cmd.Name(), launch.Quote(args))
	}
	return nil
}
