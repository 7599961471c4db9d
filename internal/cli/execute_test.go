package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/spf13/pflag"
)

func TestPlainFlagError(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--jobs=abc", `invalid value "abc" for --jobs: want a whole number`},
		{"--timeout=x", `invalid value "x" for --timeout: want a duration such as 90s or 2m`},
		{"--json=maybe", `invalid value "maybe" for --json: want true or false`},
		{"--nope", `unknown flag: --nope`},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetOutput(nilWriter{})
		fs.Int("jobs", 1, "")
		fs.Duration("timeout", time.Second, "")
		fs.Bool("json", false, "")
		err := fs.Parse([]string{tc.args})
		if err == nil {
			t.Fatalf("%s: parsed", tc.args)
		}
		if got := plainFlagError(err).Error(); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.args, got, tc.want)
		}
	}
}

type nilWriter struct{}

func (nilWriter) Write(p []byte) (int, error) { return len(p), nil }

// An unknown flag a typo away from a real one (or the start of one) names
// it; one near nothing gets no guess.
func TestUnknownFlagSuggestsTheNearest(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"--jsn", "unknown flag: --jsn (did you mean --json?)"},
		{"--skip-url", "unknown flag: --skip-url (did you mean --skip-urls?)"},
		{"--verbsoe", "unknown flag: --verbsoe (did you mean --verbose?)"}, // inherited
		{"--zzz", "unknown flag: --zzz\n"},
		{"--version=1.2.3", "unknown flag: --version: say ID@VERSION"},
	} {
		root := &cobra.Command{Use: "prog", SilenceErrors: true, SilenceUsage: true}
		root.PersistentFlags().Bool("verbose", false, "")
		sub := &cobra.Command{Use: "sub", RunE: func(*cobra.Command, []string) error { return nil },
			Annotations: map[string]string{FlagHint + "version": "say ID@VERSION"}}
		sub.Flags().Bool("json", false, "")
		sub.Flags().Bool("skip-urls", false, "")
		root.AddCommand(sub)
		root.SetArgs([]string{"sub", tc.arg})
		var stderr strings.Builder
		if code := Execute(context.Background(), "prog", root, &stderr); code != ExitUsage {
			t.Errorf("%s: exit %d, want %d", tc.arg, code, ExitUsage)
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: stderr %q, want %q", tc.arg, stderr.String(), tc.want)
		}
	}
}
