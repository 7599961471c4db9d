package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"
)

// Program is one of the two programs: its name, its one-line summary, and
// Setup, which adds its commands and flags to the root and says how
// failures are reported.
type Program struct {
	Name  string
	Short string
	// Example is the program's own --help examples (each command has its
	// own); the completion command's are written here, once for both.
	Example string
	Setup   func(root *cobra.Command, s Streams) Options
}

// Main runs p on the process's arguments and streams; a main is
// os.Exit(cli.Main(program)).
func Main(p Program) int {
	return p.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run is the whole program, for main and for tests (in-process and
// testscript): the root command with what both programs share (--version,
// no cobra error printing), run under a
// context that Ctrl-C and SIGTERM cancel (a second one exits at once),
// the outcome mapped to an exit code.
func (p Program) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := interruptible(ctx, p.Name, stderr)
	defer stop()
	root := &cobra.Command{
		Use:           p.Name,
		Short:         p.Short,
		Example:       p.Example,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	// --version by hand rather than cobra's Version field: that would read
	// and parse the build info on every start, --version or not.
	var version bool
	root.Flags().BoolVar(&version, "version", false, "print the version and the commit it was built from")
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		if version {
			_, err := fmt.Fprintf(stdout, "%s version %s\n", p.Name, VersionString())
			return err
		}
		return cmd.Help()
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	o := p.Setup(root, Streams{In: stdin, Out: stdout, Err: stderr})
	cmd, err := addCommands(root, o.Commands, args)
	if o.Ready != nil {
		o.Ready(root)
	}
	if err != nil || cmd == root {
		// The root, help, completion, __complete or a mistyped name: the
		// completion command may be run or listed.
		completionExamples(root, p.Name)
	} else {
		// Another command runs: cobra would build the completion command
		// (four shells, their flags) for nothing, on every start.
		root.CompletionOptions.DisableDefaultCmd = true
	}
	o.Stdout, o.Args = stdout, args
	errw := stderr
	if o.Stderr != nil {
		errw = o.Stderr
	}
	if err != nil || cmd.Annotations[QuickStart] == "" {
		CatchInterrupts(ctx)
	}
	code := ExecuteWith(ctx, p.Name, root, errw, o)
	if o.Done != nil {
		o.Done()
	}
	return code
}

// completionExamples gives cobra's completion command examples, as every
// other command has (cobra would add the command at Execute; adding it
// now costs nothing more).
func completionExamples(root *cobra.Command, name string) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Example = fmt.Sprintf(`  %[1]s completion bash > ~/.local/share/bash-completion/completions/%[1]s
  %[1]s completion zsh > "${fpath[1]}/_%[1]s"
  %[1]s completion fish > ~/.config/fish/completions/%[1]s.fish
  %[1]s completion powershell | Out-String | Invoke-Expression`, name)
		}
	}
}

// Lazy is a command that Program.Run builds only when the command line
// may reach it: a start builds the one command its line names, and all of
// them for the root, help, completion or a name it does not know. Flags
// are most of what cobra costs at start, and an editor starts acp resolve
// on every agent launch (issue 27).
type Lazy struct {
	Name  string // the first word of the built command's Use
	Build func() *cobra.Command
}

// addCommands adds cmds to root, built as args need them (Lazy), and
// returns the command args name as root.Find does. A built command whose
// name is not its Lazy's Name brings in all the others too: a wrong Name
// costs time, never behaviour.
func addCommands(root *cobra.Command, cmds []Lazy, args []string) (*cobra.Command, error) {
	if len(cmds) > 0 {
		// Cobra finds a command by name, flags before it by the root's
		// flags: a stub of each name is all Find needs.
		stubs := make([]*cobra.Command, len(cmds))
		for i, l := range cmds {
			stubs[i] = &cobra.Command{Use: l.Name}
		}
		root.AddCommand(stubs...)
		found, _, err := root.Find(args)
		root.RemoveCommand(stubs...)
		i := -1
		if err == nil {
			i = slices.Index(stubs, found)
		}
		built := -1
		if i >= 0 {
			if c := cmds[i].Build(); c.Name() == cmds[i].Name {
				root.AddCommand(c)
				built = i
			}
		}
		if built < 0 {
			for _, l := range cmds {
				root.AddCommand(l.Build())
			}
		}
	}
	cmd, _, err := root.Find(args)
	return cmd, err
}
