package validate

import (
	"errors"
)

// ErrUnknownAgent is returned (wrapped) by Run when --agent names an id that
// no scanned agent has: a usage error.
var ErrUnknownAgent = errors.New("unknown agent id")

// ErrNoInput is returned (wrapped) by Run when a path cannot be read.
var ErrNoInput = errors.New("read")

// unknownAgentError carries its own sentence and matches ErrUnknownAgent.
type unknownAgentError struct{ msg string }

func (e *unknownAgentError) Error() string        { return e.msg }
func (e *unknownAgentError) Is(target error) bool { return target == ErrUnknownAgent }
