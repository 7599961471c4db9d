package cli

import (
	"testing"
	"time"

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
