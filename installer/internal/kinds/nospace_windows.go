package kinds

import (
	"errors"
	"syscall"
)

// Windows error codes for a full disk (ERROR_HANDLE_DISK_FULL,
// ERROR_DISK_FULL) and a quota (ERROR_DISK_QUOTA_EXCEEDED).
const (
	errorHandleDiskFull    syscall.Errno = 39
	errorDiskFull          syscall.Errno = 112
	errorDiskQuotaExceeded syscall.Errno = 1295
)

// IsNoSpace reports a write that failed because the disk or the quota is full.
func IsNoSpace(err error) bool {
	return errors.Is(err, errorHandleDiskFull) || errors.Is(err, errorDiskFull) || errors.Is(err, errorDiskQuotaExceeded) || errors.Is(err, syscall.ENOSPC)
}
