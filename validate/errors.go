package validate

import (
	"errors"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
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

// CheckJSON reports the first syntax error of data (or a duplicate key) as
// "line L, column C: what is wrong", the way validate reports json-syntax;
// nil when data is well-formed JSON. (jsonpos.CheckJSON, for the callers
// of validate.)
func CheckJSON(data []byte) error { return jsonpos.CheckJSON(data) }
