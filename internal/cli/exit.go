package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// Exit codes, as documented in docs/cli.md and ../shared/spec/cli.md.
const (
	ExitOK       = 0 // success, warnings allowed
	ExitFailure  = 1 // I/O, network, install, launch or publish failure
	ExitUsage    = 2 // unknown command or flag, bad argument
	ExitProblems = 3 // validate/build found errors, verify found a failing agent
	ExitUpdates  = 4 // update --exit-code: updates are available
	// ExitUnconfirmed: acp upgrade compared with the built-in registry or
	// a cached copy older than the cache policy, so it cannot say "up to
	// date" (issue 22).
	ExitUnconfirmed = 5
)

// UsageError marks a bad command line; usage is printed with it.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef builds a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ExitError carries a specific exit code out of a command, e.g. 3 when
// problems were found (the report itself has already been printed) or an
// agent's own exit status. Msg, when set, is printed to stderr.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// ErrProblems is returned when a report with error-level problems was printed.
var ErrProblems = &ExitError{Code: ExitProblems}

// Code maps an error returned by a command to an exit code, printing its
// message to stderr prefixed by the program name once.
func Code(prog string, err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Msg != "" {
			fmt.Fprintf(stderr, "%s: %s\n", prog, ee.Msg)
		}
		return ee.Code
	}
	writeText(stderr, prog, trimProg(prog, err.Error()), "")
	var ue *UsageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return ExitUsage
	}
	return ExitFailure
}

// cobra reports flag and argument errors as plain errors; recognise the
// ones it writes so they exit 2, as the contract says. Only unwrapped
// errors that start with cobra's wording count: our own errors wrap a
// cause and may well contain "invalid argument" (EINVAL) or an id the
// user typed, and those are failures, not usage.
func isCobraUsage(err error) bool {
	if errors.Unwrap(err) != nil {
		return false
	}
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires at most", "if any flags in the group", "at least one of the flags in the group", "required flag"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// trimProg drops a leading "prog: " so the name is printed once.
func trimProg(prog, msg string) string { return strings.TrimPrefix(msg, prog+": ") }

// writeText prints a failure for people: "prog: msg", then the hint.
// Messages quote registries, servers and agents: each line is made safe
// for a terminal or a CI log (the JSON document keeps the exact text).
func writeText(w io.Writer, prog, msg, hint string) {
	fmt.Fprintf(w, "%s: %s\n", prog, safetext.Lines(msg, ""))
	if hint != "" {
		fmt.Fprintf(w, "hint: %s\n", safetext.Terminal(hint))
	}
}
