//go:build !windows

package launch

import "os/exec"

// StartTied is Windows' (see its comment there): on Unix acp run execs the
// agent, and only tests start it as a child.
func StartTied(cmd *exec.Cmd) (untie func(), err error) {
	return func() {}, cmd.Start()
}
