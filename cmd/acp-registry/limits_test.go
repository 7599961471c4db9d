package main

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
)

// verify says on stderr which limits held the agents as applied here: a
// sub-second cpu as the whole seconds that hold, memory for the whole tree
// or per process (and why).
func TestVerifySaysWhichLimitsHeld(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("resource limits are applied on Linux")
	}
	root := verifyTree(t)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"verify", root, "--agent", "good", "--type", "binary", "--limits", "cpu=500ms,memory=1GiB"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	line := ""
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(l, "acp-registry: agents ran with limits: ") {
			line = l
		}
	}
	t.Log(line)
	if !strings.Contains(line, "cpu=1s per process") || !strings.Contains(line, "files=4096 per process") ||
		!(strings.Contains(line, "memory=1GiB for its whole tree (a cgroup)") || strings.Contains(line, "memory=1GiB per process (")) {
		t.Errorf("limits line %q in:\n%s", line, stderr.String())
	}
}
