package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// Execute runs a cobra root and maps its outcome to an exit code. Flag and
// argument errors exit 2 with the failing command's usage on stderr.
func Execute(ctx context.Context, prog string, root *cobra.Command, stderr io.Writer) int {
	return ExecuteWith(ctx, prog, root, stderr, Options{})
}

// Options make Execute speak to machines as well (acp).
type Options struct {
	// Classify gives every failure its code. nil: plain messages only.
	Classify Classifier
	// Stdout receives the JSON error document of a failed command that
	// was asked for JSON (its --json flag set).
	Stdout io.Writer
	// Args are the command line, to see --json even when flag parsing
	// failed before the flag was set.
	Args []string
	// Stderr, when set, replaces stderr for the final report (acp writes
	// it as JSON events under --progress json).
	Stderr io.Writer
	// Done runs after the command and its report (flushes).
	Done func()
}

// ExecuteWith is Execute with Options.
func ExecuteWith(ctx context.Context, prog string, root *cobra.Command, stderr io.Writer, o Options) int {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &UsageError{Err: plainFlagError(err)}
	})
	cmd, err := root.ExecuteContextC(ctx)
	var code int
	var ee *ExitError
	if o.Classify == nil || err == nil || errors.As(err, &ee) {
		// An ExitError's command has printed its own report already.
		code = Code(prog, err, stderr)
	} else {
		name := ""
		if cmd != nil && cmd != root {
			name = cmd.Name()
		}
		var e *Error
		e, code = failure(err, o.Classify, name)
		writeFailure(prog, e, o.Stdout != nil && wantsJSON(cmd, o.Args), o.Stdout, stderr)
	}
	var ue *UsageError
	if code == ExitUsage && cmd != nil && (errors.As(err, &ue) || isCobraUsage(err)) {
		fmt.Fprint(stderr, "\n"+cmd.UsageString())
	}
	return code
}

// wantsJSON reports whether the command line asked for JSON: the parsed
// --json or --format json flag, or the words themselves when parsing
// stopped before them.
func wantsJSON(cmd *cobra.Command, args []string) bool {
	if cmd != nil {
		if f := cmd.Flags().Lookup("json"); f != nil && f.Value.String() == "true" {
			return true
		}
		if f := cmd.Flags().Lookup("format"); f != nil && f.Value.String() == "json" {
			return true
		}
	}
	for i, a := range args {
		if a == "--" {
			break
		}
		switch {
		case a == "--json" || a == "--json=true" || a == "--json=1" || a == "--format=json":
			return true
		case a == "--format" && i+1 < len(args) && args[i+1] == "json":
			return true
		}
	}
	return false
}

// pflag's bad-value error ends with the parser's own words
// ("strconv.ParseInt: parsing \"abc\": invalid syntax"); say what the
// flag wants instead.
var badFlagValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^invalid argument ("[^"]*") for ("[^"]*") flag: (.*)$`)
})

func plainFlagError(err error) error {
	m := badFlagValue().FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	want := ""
	switch cause := m[3]; {
	case strings.HasPrefix(cause, "strconv.ParseInt"), strings.HasPrefix(cause, "strconv.ParseUint"):
		want = "a whole number"
	case strings.HasPrefix(cause, "strconv.ParseBool"):
		want = "true or false"
	case strings.HasPrefix(cause, "strconv.ParseFloat"):
		want = "a number"
	case strings.HasPrefix(cause, "time: "):
		want = "a duration such as 90s or 2m"
	default:
		return err
	}
	return fmt.Errorf("invalid value %s for %s: want %s", m[1], strings.Trim(m[2], `"`), want)
}
