package launch

import "errors"

// ErrNoCommand is returned when a spec has no command.
var ErrNoCommand = errors.New("no command to launch")

// ErrBatchArgument is returned when a .cmd or .bat program cannot be given
// its arguments safely: cmd.exe, which runs it, would take a line break in
// one as the end of the command.
var ErrBatchArgument = errors.New("cannot pass the arguments to a batch file safely")
