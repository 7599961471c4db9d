package testkit

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// RequireCorpus is run in a child test process with the corpus made
// absent (ACP_CORPUS_DIR points nowhere); the outcome must follow
// ACP_REQUIRE_CORPUS and CI.
func TestRequireCorpusFailsWhenCIRequiresIt(t *testing.T) {
	if os.Getenv("ACP_TESTKIT_CHILD") == "1" {
		RequireCorpus(t)
		return
	}
	if os.Getenv("ACP_TESTKIT_CHILD") == "path" {
		RequireCorpusPath(t, "no-such-part")
		return
	}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"ACP_REQUIRE_CORPUS=1"}, "--- FAIL"},
		{[]string{"CI=true"}, "--- FAIL"},
		{[]string{"CI=true", "ACP_REQUIRE_CORPUS=0"}, "--- SKIP"},
		{nil, "--- SKIP"},
		{[]string{"ACP_TESTKIT_CHILD=path", "CI=true"}, "--- FAIL"},
		{[]string{"ACP_TESTKIT_CHILD=path"}, "--- SKIP"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRequireCorpusFailsWhenCIRequiresIt$", "-test.v")
		cmd.Env = []string{"ACP_TESTKIT_CHILD=1", "ACP_CORPUS_DIR=" + t.TempDir() + "/none"}
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "ACP_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, c.env...)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), c.want) {
			t.Errorf("with %v: want %s, got\n%s", c.env, c.want, out)
		}
	}
}
