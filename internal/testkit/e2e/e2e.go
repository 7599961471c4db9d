// Package e2e gates the end-to-end tests: the only tests that reach beyond
// loopback (to the npm registry). They run when ACP_E2E=1, as .ci/run sets
// it, and skip with a message otherwise, so `go test ./...` on a machine
// without network stays green.
package e2e

import (
	"os"
	"os/exec"
	"testing"
)

// Require skips t unless ACP_E2E=1.
func Require(t testing.TB) {
	t.Helper()
	if os.Getenv("ACP_E2E") != "1" {
		t.Skip("end-to-end: set ACP_E2E=1 (needs the npm registry)")
	}
}

// RequireNPM skips t unless ACP_E2E=1 and npm is installed.
func RequireNPM(t testing.TB) {
	t.Helper()
	Require(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
}
