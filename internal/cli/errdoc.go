package cli

import (
	"errors"
	"io"
	"strings"
)

// ErrorCode is the stable code of a failure, printed in the JSON error
// document for programs to branch on (cli.md "Errors and progress for
// machines"). Codes are added, never renamed.
type ErrorCode string

// The codes, each with the exit status it gives (Codes).
const (
	CodeUsage               ErrorCode = "usage"                 // bad command line: exit 2
	CodeAgentNotFound       ErrorCode = "agent-not-found"       // no agent answers to the id or name
	CodeVersionNotFound     ErrorCode = "version-not-found"     // the registry does not offer that version
	CodeNotInstalled        ErrorCode = "not-installed"         // --no-install, --offline, uninstall
	CodeNoBuild             ErrorCode = "no-build-for-platform" // no distribution fits this machine or --dist
	CodeRuntimeMissing      ErrorCode = "runtime-missing"       // node, npm or uv not found
	CodeRegistryUnavailable ErrorCode = "registry-unavailable"  // no registry could be read, none cached
	CodeRegistryInvalid     ErrorCode = "registry-invalid"      // the registry was read but is not a registry
	CodeNetwork             ErrorCode = "network"               // a download failed: refused, timed out, HTTP error
	CodeIntegrity           ErrorCode = "integrity"             // sha256 mismatch
	CodeUnsafeArchive       ErrorCode = "unsafe-archive"        // an archive entry would escape, or is too large
	CodeInstallFailed       ErrorCode = "install-failed"        // npm/uv failed or stalled, cmd missing, disk
	CodeLaunchFailed        ErrorCode = "launch-failed"         // the agent could not be started
	CodeProbeFailed         ErrorCode = "probe-failed"          // the agent did not answer initialize
	CodeInterrupted         ErrorCode = "interrupted"           // Ctrl-C or SIGTERM
	CodeInUse               ErrorCode = "in-use"                // a running agent uses the version (uninstall, install --force)
	CodeIO                  ErrorCode = "io"                    // acp-registry: a file or folder could not be read or written
	CodeNpmPolicy           ErrorCode = "npm-policy"            // npm refused by its own settings (min-release-age, before, engine-strict, platform)
	CodeProjectInvalid      ErrorCode = "project-invalid"       // acp.json or acp.lock unusable, or the lock out of date
)

// Codes maps every code to its exit status: usage exits 2, every other
// failure 1, as the exit code table says.
var Codes = map[ErrorCode]int{
	CodeUsage: ExitUsage, CodeAgentNotFound: ExitFailure, CodeVersionNotFound: ExitFailure,
	CodeNotInstalled: ExitFailure, CodeNoBuild: ExitFailure, CodeRuntimeMissing: ExitFailure,
	CodeRegistryUnavailable: ExitFailure, CodeRegistryInvalid: ExitFailure, CodeNetwork: ExitFailure,
	CodeIntegrity: ExitFailure, CodeUnsafeArchive: ExitFailure, CodeInstallFailed: ExitFailure,
	CodeLaunchFailed: ExitFailure, CodeProbeFailed: ExitFailure, CodeInterrupted: ExitFailure,
	CodeInUse: ExitFailure, CodeIO: ExitFailure, CodeNpmPolicy: ExitFailure, CodeProjectInvalid: ExitFailure,
}

// Error is a failure with its code, and what to tell the user beyond the
// message: a hint (the fix, when known) and candidates (ids close to what
// was typed). Code may be empty: the classifier fills it in.
type Error struct {
	Code       ErrorCode
	Err        error
	Hint       string
	Candidates []string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ErrorDoc is the JSON error document: exactly one on stdout when a
// command run with --json fails.
type ErrorDoc struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody is the inside of ErrorDoc. Hint is "" and Candidates is []
// when there is nothing to say: the shape never changes.
type ErrorBody struct {
	Code       ErrorCode `json:"code"`
	Message    string    `json:"message"`
	Hint       string    `json:"hint"`
	Candidates []string  `json:"candidates"`
}

// Classifier gives a failed command's error its code (and may add a hint
// or candidates). Each program keeps its own table from error kinds to
// codes; see cmd/acp/errors.go.
type Classifier func(cmdName string, err error) *Error

// Failure is what a failed command reports: the exit status, and the error
// document when the command printed JSON.
func failure(err error, classify Classifier, cmdName string) (*Error, int) {
	var ue *UsageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return usageError(err), ExitUsage
	}
	e := classify(cmdName, err)
	if e == nil || e.Code == "" {
		e = &Error{Code: CodeInstallFailed, Err: err}
	}
	if e.Err == nil {
		e.Err = err
	}
	code, ok := Codes[e.Code]
	if !ok {
		code = ExitFailure
	}
	return e, code
}

// writeFailure prints e: one line "prog: message" and a "hint:" line on
// stderr, and with asJSON the error document on stdout.
func writeFailure(prog string, e *Error, asJSON bool, stdout, stderr io.Writer) {
	msg := trimProg(prog, e.Err.Error())
	writeText(stderr, prog, msg, e.Hint)
	if asJSON {
		c := e.Candidates
		if c == nil {
			c = []string{}
		}
		_ = WriteJSON(stdout, ErrorDoc{Error: ErrorBody{Code: e.Code, Message: msg, Hint: e.Hint, Candidates: c}})
	}
}

// usageError is a usage failure's document. cobra appends its
// suggestions to an unknown command's message ("\n\nDid you mean
// this?\n\tprobe\n"); they belong in candidates and the hint, and the
// message is its first line.
func usageError(err error) *Error {
	e := &Error{Code: CodeUsage, Err: err}
	msg, more, ok := strings.Cut(err.Error(), "\n\nDid you mean this?\n")
	if !ok || !isCobraUsage(err) {
		return e
	}
	e.Err = errors.New(msg)
	e.Candidates = append(e.Candidates, strings.Fields(more)...)
	if len(e.Candidates) > 0 {
		e.Hint = "did you mean " + strings.Join(e.Candidates, ", ") + "?"
	}
	return e
}
