//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

const canExec = true

var forwardedSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

func execReplace(path string, argv, env []string) error { return syscall.Exec(path, argv, env) }

// exitStatus follows the shell's convention for a child killed by a
// signal: 128 + the signal number.
func exitStatus(ee *exec.ExitError) int {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}
