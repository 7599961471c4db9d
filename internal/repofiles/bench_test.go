package repofiles

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// benchRun runs bench/run.sh with a tiny workload and no corpus anywhere
// (ACP_CORPUS_DIR points nowhere), as in a fresh clone.
func benchRun(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	if testing.Short() || runtime.GOOS == "windows" {
		t.Skip("builds the programs and runs bench/run.sh (seconds; a POSIX shell)")
	}
	for _, tool := range []string{"bash", "jq", "curl", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("bench/run.sh needs %s", tool)
		}
	}
	cmd := exec.Command(filepath.Join(Root(), "bench", "run.sh"), append([]string{"--agents", "20", "--mb", "1", "--rounds", "1"}, args...)...)
	cmd.Env = append(os.Environ(), "ACP_CORPUS_DIR="+filepath.Join(t.TempDir(), "no-corpus"), "TMPDIR="+t.TempDir())
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench/run.sh %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out.String(), errs.String())
	}
	return out.String(), errs.String()
}

// bench/run.sh runs from a fresh clone (issue 22): it generates the
// registry it validates and builds from agents/, and only --corpus needs
// the corpus, which it says and skips without.
func TestBenchRunsWithoutTheCorpus(t *testing.T) {
	out, errs := benchRun(t, "--cases", "validate build")
	if !strings.Contains(errs, "validate and build: 20 agents copied from agents (") {
		t.Errorf("bench/run.sh did not say where its registry comes from:\n%s", errs)
	}
	for _, c := range []string{"validate", "build"} {
		if !regexp.MustCompile(`(?m)^` + c + `\s+\S+.*\d+\.\d+x`).MatchString(out) {
			t.Errorf("no %s row:\n%s", c, out)
		}
	}

	out, errs = benchRun(t, "--corpus", "--cases", "validate resolve")
	if !strings.Contains(errs, "--corpus: no corpus at ") || !strings.Contains(errs, "skipping validate and build") {
		t.Errorf("bench/run.sh --corpus without a corpus did not say it skips:\n%s", errs)
	}
	if regexp.MustCompile(`(?m)^validate\s`).MatchString(out) || !regexp.MustCompile(`(?m)^resolve\s.*\d+\.\d+x`).MatchString(out) {
		t.Errorf("want a resolve row and no validate row:\n%s", out)
	}
}
