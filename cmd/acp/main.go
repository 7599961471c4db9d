// Command acp installs, resolves and runs ACP agents from the registry.
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

const prog = "acp"

// run is the whole program; tests call it directly and through testscript.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	g := &globalOpts{streams: cli.Streams{In: stdin, Out: stdout, Err: stderr}}
	root := &cobra.Command{
		Use:           prog,
		Short:         "Install, resolve and run ACP coding agents from the registry",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.PersistentFlags().StringVar(&g.registry, "registry", "", "registry URL, registry.json file or registry folder (env ACP_REGISTRY)")
	root.PersistentFlags().BoolVar(&g.offline, "offline", false, "never touch the network")
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(
		newListCmd(g), newSearchCmd(g), newInfoCmd(g),
		newInstallCmd(g), newResolveCmd(g), newRunCmd(g),
		newProbeCmd(g), newLoginCmd(g),
		newUpgradeCmd(g), newUninstallCmd(g), newGCCmd(g),
		newDoctorCmd(g),
	)
	// Each Use line spells out its flags; cobra would add a second "[flags]".
	for _, c := range root.Commands() {
		c.DisableFlagsInUseLine = true
	}
	return cli.Execute(ctx, prog, root, stderr)
}

// globalOpts are the flags every acp command shares.
type globalOpts struct {
	streams  cli.Streams
	registry string
	offline  bool
}
