package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentclientprotocol/acp-registry-go/registry"
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
	// Commands are the root's commands, each built only when the command
	// line may reach it (Lazy); Ready, when set, runs once they are in
	// the tree, before the command does.
	Commands []Lazy
	Ready    func(root *cobra.Command)
}

// ExecuteWith is Execute with Options.
func ExecuteWith(ctx context.Context, prog string, root *cobra.Command, stderr io.Writer, o Options) int {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &UsageError{Err: suggestFlag(c, plainFlagError(err))}
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

// FlagHint prefixes a command annotation that answers a flag the command
// does not have, e.g. Annotations[FlagHint+"version"] = "name the version
// in the id: ID@VERSION" for people who expect --version.
const FlagHint = "acp-flag-hint:"

// suggestFlag adds "did you mean" to an unknown long flag, with the
// command's flags (its own and inherited) that are a typo away or that the
// word typed begins, as registry.Suggest judges closeness for agent ids.
// (cobra suggests commands, never flags.)
func suggestFlag(c *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) || !strings.HasPrefix(err.Error(), "unknown flag") {
		return err
	}
	if hint := c.Annotations[FlagHint+ne.GetSpecifiedName()]; hint != "" {
		return fmt.Errorf("%w: %s", err, hint)
	}
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden && !slices.Contains(names, f.Name) {
			names = append(names, f.Name)
		}
	}
	c.Flags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	near := registry.Suggest(ne.GetSpecifiedName(), names, 3)
	if len(near) == 0 {
		return err
	}
	return fmt.Errorf("%w (did you mean --%s?)", err, strings.Join(near, ", --"))
}

// plainFlagError words pflag's bad-value error, which ends with the
// parser's own words ("strconv.ParseInt: parsing \"abc\": invalid
// syntax"), as what the flag wants instead, read from the flag's type.
func plainFlagError(err error) error {
	var bad *pflag.InvalidValueError
	if !errors.As(err, &bad) {
		return err
	}
	want := ""
	switch bad.GetFlag().Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		want = "a whole number"
	case "bool":
		want = "true or false"
	case "float32", "float64":
		want = "a number"
	case "duration":
		want = "a duration such as 90s or 2m"
	default:
		return err
	}
	return fmt.Errorf("invalid value %q for --%s: want %s", bad.GetValue(), bad.GetFlag().Name, want)
}
