package build

import (
	"errors"

	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// ErrProblems is returned (wrapped) when validation found error-level
// problems; nothing was written.
var ErrProblems = errors.New("the registry has problems")

// ErrVariants is returned (wrapped) when variants.json cannot be used.
var ErrVariants = errors.New("invalid variants.json")

// ErrOut is returned (wrapped) when --out names a folder the build must
// not replace: the registry, the current folder, or unrelated files.
var ErrOut = errors.New("unsafe output folder")

// ErrNoAgents is returned (wrapped) when the registry folder holds no
// agent: building would publish an empty index. It is validate's, whose
// Report.RequireAgents says it for validate, build and site alike.
var ErrNoAgents = validate.ErrNoAgents
