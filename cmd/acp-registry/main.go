// Command acp-registry validates, verifies, builds, updates and publishes
// an ACP agent registry (one folder per agent: agent.json + icon.svg).
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
)

func main() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

const prog = "acp-registry"

// run is the whole program; tests call it directly and through testscript.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := cli.Streams{In: stdin, Out: stdout, Err: stderr}
	root := &cobra.Command{
		Use:           prog,
		Short:         "Validate, verify, build, update and publish an ACP agent registry",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(
		newValidateCmd(s),
		newBuildCmd(s),
		newVerifyCmd(s),
		newUpdateCmd(s),
		newPublishCmd(s),
		newMatrixCmd(s),
		newNewCmd(s),
	)
	return cli.Execute(ctx, prog, root, stderr)
}
