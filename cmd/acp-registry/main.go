// Command acp-registry validates, verifies, builds, updates and publishes
// an ACP agent registry (one folder per agent: agent.json + icon.svg).
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
)

func main() {
	// First: launch re-runs this executable as an agent's supervisor.
	if code, ok := launch.Supervise(); ok {
		os.Exit(code)
	}
	os.Exit(cli.Main(program))
}

const prog = "acp-registry"

var program = cli.Program{
	Name:  prog,
	Short: "Create (new), validate, build, verify, probe (matrix), update and publish an ACP agent registry, and write its catalog (site)",
	Example: `  acp-registry new my-agent agents
  acp-registry validate
  acp-registry build --out dist`,
	Setup: setup,
}

func setup(root *cobra.Command, s cli.Streams) cli.Options {
	root.AddCommand(
		newValidateCmd(s),
		newBuildCmd(s),
		newVerifyCmd(s),
		newUpdateCmd(s),
		newPublishCmd(s),
		newMatrixCmd(s),
		newNewCmd(s),
		newSiteCmd(s),
	)
	return cli.Options{Classify: codes.Classify}
}
