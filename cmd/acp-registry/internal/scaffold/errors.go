package scaffold

import "errors"

// ErrExists is returned when the agent's folder already exists; nothing is
// written then.
var ErrExists = errors.New("the folder already exists")

// ErrInvalid is returned for an id or a distribution that the registry
// would refuse; the error's text says which and why.
var ErrInvalid = errors.New("invalid")
