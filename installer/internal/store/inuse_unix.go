//go:build !windows

package store

import (
	"errors"
	"syscall"
)

func isInUseErr(err error) bool {
	return errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.ETXTBSY)
}
