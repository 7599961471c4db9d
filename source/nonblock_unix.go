//go:build unix

package source

import "syscall"

const openNonBlock = syscall.O_NONBLOCK
