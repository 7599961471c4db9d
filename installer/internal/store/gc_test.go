package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// A delete the OS refuses because the agent runs is a sentence.
func TestDeleteRefusedBecauseInUseIsASentence(t *testing.T) {
	var errno error = syscall.EBUSY
	if runtime.GOOS == "windows" {
		errno = syscall.Errno(32) // ERROR_SHARING_VIOLATION
	}
	p := filepath.Join("data", "agents", "demo", "1.0.0")
	err := deleteFailed("uninstall demo", p, &os.PathError{Op: "unlinkat", Path: p + "/agent.exe", Err: errno})
	if !errors.Is(err, ErrInUse) || err.Error() != "uninstall demo: "+p+" is in use by a running agent, and the system does not delete a running program's files (--force cannot either): close the agent (or the editor running it) and run acp uninstall demo again" {
		t.Errorf("err = %v", err)
	}
}
