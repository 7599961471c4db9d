package build

import "errors"

// ErrProblems is returned (wrapped) when validation found error-level
// problems; nothing was written.
var ErrProblems = errors.New("the registry has problems")

// ErrVariants is returned (wrapped) when variants.json cannot be used.
var ErrVariants = errors.New("invalid variants.json")
