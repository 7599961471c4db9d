package launch

import "errors"

// ErrNoCommand is returned when a spec has no command.
var ErrNoCommand = errors.New("no command to launch")
