package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Program is one of the two programs: its name, its one-line summary, and
// Setup, which adds its commands and flags to the root and says how
// failures are reported.
type Program struct {
	Name  string
	Short string
	Setup func(root *cobra.Command, s Streams) Options
}

// Main runs p on the process's arguments and streams; a main is
// os.Exit(cli.Main(program)).
func Main(p Program) int {
	return p.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run is the whole program, for main and for tests (in-process and
// testscript): the root command with what both programs share (--version,
// no cobra error printing), run under a
// context that Ctrl-C and SIGTERM cancel, the outcome mapped to an exit
// code.
func (p Program) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := &cobra.Command{
		Use:           p.Name,
		Short:         p.Short,
		Version:       VersionString(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	o := p.Setup(root, Streams{In: stdin, Out: stdout, Err: stderr})
	o.Stdout, o.Args = stdout, args
	errw := stderr
	if o.Stderr != nil {
		errw = o.Stderr
	}
	code := ExecuteWith(ctx, p.Name, root, errw, o)
	if o.Done != nil {
		o.Done()
	}
	return code
}
