package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The completion command is built only when the command line may reach
// it (issue 27: every other command skips it at start); everywhere a user
// looks for it, it is there, with its examples.
func TestCompletionWhereAsked(t *testing.T) {
	var root *cobra.Command
	p := Program{Name: "prog", Short: "a program", Setup: func(r *cobra.Command, s Streams) Options {
		root = r
		root.AddCommand(&cobra.Command{Use: "echo", Short: "say hello", RunE: func(*cobra.Command, []string) error {
			_, err := s.Out.Write([]byte("hello\n"))
			return err
		}})
		return Options{}
	}}
	run := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := p.Run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("prog %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return out.String()
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"echo"}, "hello\n"},
		{[]string{"completion", "bash"}, "bash completion"},
		{[]string{"completion", "--help"}, "prog completion zsh > \"${fpath[1]}/_prog\""},
		{[]string{"help", "completion"}, "prog completion fish > ~/.config/fish/completions/prog.fish"},
		{[]string{"--help"}, "completion  Generate the autocompletion script"},
		{[]string{"help"}, "completion  Generate the autocompletion script"},
		{[]string{"__complete", "comp"}, "completion\tGenerate the autocompletion script"},
		{[]string{"__complete", "completion", ""}, "bash\tGenerate the autocompletion script for bash"},
	} {
		if got := run(c.args...); !strings.Contains(got, c.want) {
			t.Errorf("prog %s printed\n%s\nwant it to contain %q", strings.Join(c.args, " "), got, c.want)
		}
		// What each start pays: cobra's completion command is four
		// commands and their flags, built for nothing when echo runs.
		if c.args[0] == "echo" {
			for _, sub := range root.Commands() {
				if sub.Name() == "completion" {
					t.Errorf("prog echo built the completion command")
				}
			}
		}
	}
}
