package cli

import (
	"bytes"
	"context"
	"fmt"
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

// A start builds the command its line names, and every command where the
// line may reach any (help, the root, completion, a mistyped name); a
// Lazy whose Name is not its command's still runs it.
func TestLazyCommandsBuiltAsNeeded(t *testing.T) {
	var built []string
	cmd := func(use string) func() *cobra.Command {
		return func() *cobra.Command {
			name, _, _ := strings.Cut(use, " ")
			built = append(built, name)
			c := &cobra.Command{Use: use, Short: "the " + name + " command", RunE: func(c *cobra.Command, args []string) error {
				_, err := fmt.Fprintf(c.OutOrStdout(), "%s ran %q\n", c.CommandPath(), args)
				return err
			}}
			c.Flags().Bool("loud", false, "")
			if name == "config" {
				c.AddCommand(&cobra.Command{Use: "get KEY", RunE: func(c *cobra.Command, args []string) error {
					_, err := fmt.Fprintf(c.OutOrStdout(), "get %s\n", args[0])
					return err
				}})
			}
			return c
		}
	}
	p := Program{Name: "prog", Setup: func(root *cobra.Command, s Streams) Options {
		var offline bool
		root.PersistentFlags().StringP("registry", "r", "", "")
		root.PersistentFlags().BoolVar(&offline, "offline", false, "")
		return Options{Commands: []Lazy{
			{Name: "list", Build: cmd("list")},
			{Name: "resolve", Build: cmd("resolve ID")},
			{Name: "config", Build: cmd("config")},
			{Name: "misnamed", Build: cmd("renamed ID")},
		}}
	}}
	for _, c := range []struct {
		args  []string
		out   string
		built string
	}{
		{[]string{"resolve", "x", "--loud"}, `prog resolve ran ["x"]`, "resolve"},
		{[]string{"--registry", "resolve", "list"}, `prog list ran []`, "list"},
		{[]string{"-r", "/tmp/reg", "--offline", "resolve", "y"}, `prog resolve ran ["y"]`, "resolve"},
		{[]string{"config", "get", "registry"}, "get registry", "config"},
		{[]string{"renamed", "z"}, `prog renamed ran ["z"]`, "list resolve config renamed"},
		{[]string{"misnamed", "z"}, `unknown command "misnamed"`, "renamed list resolve config renamed"},
		{[]string{"help"}, "the resolve command", "list resolve config renamed"},
		{[]string{"help", "resolve"}, "Usage:\n  prog resolve ID [flags]", "list resolve config renamed"},
		{[]string{"__complete", "res"}, "resolve\tthe resolve command", "list resolve config renamed"},
		{[]string{"resolv"}, "Did you mean this?", "list resolve config renamed"},
	} {
		built = nil
		var out, errb bytes.Buffer
		p.Run(context.Background(), c.args, strings.NewReader(""), &out, &errb)
		if got := out.String() + errb.String(); !strings.Contains(got, c.out) {
			t.Errorf("prog %s printed\n%s\nwant it to contain %q", strings.Join(c.args, " "), got, c.out)
		}
		if got := strings.Join(built, " "); got != c.built {
			t.Errorf("prog %s built %q, want %q", strings.Join(c.args, " "), got, c.built)
		}
	}
}
