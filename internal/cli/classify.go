package cli

import (
	"errors"
	"io/fs"
	"net"
	"net/url"
)

// Kind maps an error kind (a sentinel, matched with errors.Is) to a code,
// with a hint for errors that carry none of their own.
type Kind struct {
	Err  error
	Code ErrorCode
	Hint string
}

// CodeTable gives a failed command's error its code: a *Error that
// already has one keeps it; then the first Kind that matches; then a
// file-system error (when Files is set); then a network error; then what
// the command was doing (ByCommand); then Default. Each program keeps its
// table; the order of the steps is one.
type CodeTable struct {
	Kinds []Kind
	// Details fills in hint and candidates from typed errors (optional).
	Details func(err error, out *Error)
	// Files is the code of an fs.PathError no kind explains ("": none). It
	// comes before the network step: a syscall.Errno has Timeout and
	// Temporary too.
	Files     ErrorCode
	ByCommand map[string]ErrorCode
	Default   ErrorCode
}

// Classify is the code, hint and candidates of a failed command's error.
func (c CodeTable) Classify(cmdName string, err error) *Error {
	var e *Error
	if errors.As(err, &e) && e.Code != "" {
		return &Error{Code: e.Code, Err: err, Hint: e.Hint, Candidates: e.Candidates}
	}
	out := &Error{Err: err}
	if c.Details != nil {
		c.Details(err, out)
	}
	for _, k := range c.Kinds {
		if errors.Is(err, k.Err) {
			out.Code = k.Code
			if out.Hint == "" {
				out.Hint = k.Hint
			}
			return out
		}
	}
	var pe *fs.PathError
	switch {
	case c.Files != "" && errors.As(err, &pe):
		out.Code = c.Files
	case IsNetwork(err):
		out.Code = CodeNetwork
	default:
		out.Code = c.Default
		if code, ok := c.ByCommand[cmdName]; ok {
			out.Code = code
		}
	}
	return out
}

// IsNetwork reports whether err came from the network: a connection, a
// name lookup, or an HTTP request that timed out. Not any net.Error: a
// syscall.Errno has Timeout and Temporary too, and a missing file or an
// unwritable folder is no network's fault.
func IsNetwork(err error) bool {
	var oe *net.OpError
	var de *net.DNSError
	if errors.As(err, &oe) || errors.As(err, &de) {
		return true
	}
	var ue *url.Error
	return errors.As(err, &ue) && ue.Timeout()
}
