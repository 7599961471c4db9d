package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// Execute runs a cobra root and maps its outcome to an exit code. Flag and
// argument errors exit 2 with the failing command's usage on stderr.
func Execute(ctx context.Context, prog string, root *cobra.Command, stderr io.Writer) int {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &UsageError{Err: plainFlagError(err)}
	})
	cmd, err := root.ExecuteContextC(ctx)
	code := Code(prog, err, stderr)
	var ue *UsageError
	if code == ExitUsage && cmd != nil && (errors.As(err, &ue) || isCobraUsage(err)) {
		fmt.Fprint(stderr, "\n"+cmd.UsageString())
	}
	return code
}

// pflag's bad-value error ends with the parser's own words
// ("strconv.ParseInt: parsing \"abc\": invalid syntax"); say what the
// flag wants instead.
var badFlagValue = regexp.MustCompile(`^invalid argument ("[^"]*") for ("[^"]*") flag: (.*)$`)

func plainFlagError(err error) error {
	m := badFlagValue.FindStringSubmatch(err.Error())
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
