package registry

import (
	"errors"
	"strconv"
)

// ErrNotFound is returned (wrapped) when an agent id is not in a registry.
var ErrNotFound = errors.New("not found")

func quote(s string) string { return strconv.Quote(s) }
