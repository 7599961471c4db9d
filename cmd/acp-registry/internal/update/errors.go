package update

import (
	"errors"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// ErrNotFound is returned (wrapped) when a package or release does not exist.
var ErrNotFound = errors.New("not found")

// ErrRateLimited is returned (wrapped) when a source kept refusing requests
// for rate limiting after every retry.
var ErrRateLimited = errors.New("rate limited")

// ErrNoSource is returned (wrapped) when an agent has nothing to look up.
var ErrNoSource = errors.New("no update source")

// notFoundError is a sentence of its own that matches registry.ErrNotFound.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return registry.ErrNotFound }
