package testkit

import (
	"os/exec"
	"testing"
)

// SkipUnderWine skips t under Wine, saying why: what Wine does not do as
// Windows does (its cmd's % rules, its stub PowerShell, symbolic links
// that report success and create nothing). The test still runs in the
// GitHub Windows job.
func SkipUnderWine(t testing.TB, why string) {
	t.Helper()
	if underWine() {
		t.Skipf("under Wine, which %s: runs in the GitHub Windows job", why)
	}
}

// SkipUnderWineWithout skips t under Wine when the program tool (go,
// node) is not on PATH: the prefix has only what Wine brings. Elsewhere
// the test runs, and fails as it would without tool.
func SkipUnderWineWithout(t testing.TB, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		SkipUnderWine(t, "has no "+tool+".exe in its prefix")
	}
}
