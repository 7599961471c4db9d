//go:build !windows

package kinds

import (
	"errors"
	"syscall"
)

// IsNoSpace reports a write that failed because the disk or the quota is full.
func IsNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
