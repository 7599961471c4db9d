package runtimes

import "os/exec"

// ownGroup: Windows has no process groups to kill at once; CommandContext
// kills npm or uv itself (a job object would take their children too).
func ownGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {}
