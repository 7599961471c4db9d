package source

import (
	"errors"
	"fmt"
)

// ErrUnavailable is returned (wrapped) when no registry could be read from
// the source asked for, and no cached copy can stand in for it.
var ErrUnavailable = errors.New("registry unavailable")

// ErrInvalid is returned (wrapped) when a registry was read but is not
// one: not JSON, or breaking the index's invariants.
var ErrInvalid = errors.New("registry invalid")

// ErrInsecureURL is returned (wrapped) for plain http registries that are not
// on a loopback address.
var ErrInsecureURL = errors.New("insecure registry URL")

// ErrOffline is returned (wrapped) when a registry URL is asked for with
// Offline set and nothing is cached for it.
var ErrOffline = errors.New("offline")

// kindError is a message that also matches a sentinel with errors.Is,
// without the sentinel's words in the message.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// invalidf is an error of kind ErrInvalid.
func invalidf(format string, args ...any) error {
	return &kindError{kind: ErrInvalid, err: fmt.Errorf(format, args...)}
}

// reworded is err with another message: the same kinds for errors.Is.
type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }
func (e *reworded) Unwrap() error { return e.err }
