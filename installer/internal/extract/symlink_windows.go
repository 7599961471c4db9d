package extract

import (
	"errors"
	"syscall"
)

// errorPrivilegeNotHeld: creating a symlink without Developer Mode.
const errorPrivilegeNotHeld syscall.Errno = 1314

func isSymlinkPrivilege(err error) bool { return errors.Is(err, errorPrivilegeNotHeld) }
