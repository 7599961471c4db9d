package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Execute runs a cobra root and maps its outcome to an exit code. Flag and
// argument errors exit 2 with the failing command's usage on stderr.
func Execute(ctx context.Context, prog string, root *cobra.Command, stderr io.Writer) int {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &UsageError{Err: err}
	})
	cmd, err := root.ExecuteContextC(ctx)
	code := Code(prog, err, stderr)
	var ue *UsageError
	if code == ExitUsage && cmd != nil && (errors.As(err, &ue) || isCobraUsage(err)) {
		fmt.Fprint(stderr, "\n"+cmd.UsageString())
	}
	return code
}
