//go:build !unix

package launch

import (
	"os"
	"os/exec"
)

// Without process groups (Windows) only the process itself is killed; a
// job object would be the equivalent, which we do not need yet.
func setGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func describeSignal(st *os.ProcessState) string { return st.String() }
