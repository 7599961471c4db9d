package registry

import (
	"errors"
	"strconv"
)

// ErrNotFound is returned (wrapped) when an agent id is not in a registry.
var ErrNotFound = errors.New("not found")

// UsageError is a bad argument from the user (exit code 2 at the top level).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func quote(s string) string { return strconv.Quote(s) }
