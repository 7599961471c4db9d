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

// ErrNoAgents is returned (wrapped) by Report.RequireAgents when a run
// judged no agent: the path named no registry (an empty folder, a folder
// of registries), and a report that says "valid" would pass a CI job
// pointed at the wrong folder.
var ErrNoAgents = errors.New("no agents found")
