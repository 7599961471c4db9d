//go:build !unix

package main

import (
	"errors"
	"os"
	"os/exec"
)

// Windows has no exec: acp stays as the parent and forwards.
const canExec = false

var forwardedSignals = []os.Signal{os.Interrupt}

func execReplace(string, []string, []string) error {
	return errors.New("exec is not available on this system")
}

func exitStatus(ee *exec.ExitError) int { return ee.ExitCode() }
