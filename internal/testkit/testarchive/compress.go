package testarchive

import (
	"bytes"
	"os/exec"
	"testing"
)

// CompressWith runs the system's bzip2 or xz on data: the standard library
// reads bzip2 but writes neither, and the module keeps no compression
// library for its tests alone (docs/decisions.md). Without the tool the
// test is skipped, saying why.
func CompressWith(t testing.TB, tool string, data []byte) []byte {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("no %s on PATH to write the test's archive with", tool)
	}
	cmd := exec.Command(path, "-c")
	cmd.Stdin = bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, stderr.String())
	}
	return out
}
