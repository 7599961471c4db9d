package source

import "errors"

// ErrUnavailable is returned (wrapped) when no registry could be read from
// the source asked for, and no cached copy can stand in for it.
var ErrUnavailable = errors.New("registry unavailable")

// ErrInsecureURL is returned (wrapped) for plain http registries that are not
// on a loopback address.
var ErrInsecureURL = errors.New("insecure registry URL")
