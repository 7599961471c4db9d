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

// The shape check finds what a stale example gets wrong, and forgives
// what may differ: values, nulls, a map's keys, array lengths.
func TestJSONShapeDiff(t *testing.T) {
	doc := `{"id": "x", "n": 1, "env": {}, "list": [{"a": true}], "maybe": null, "gone": "y"}`
	real := `{"id": "z", "n": "1", "env": {"K": "v"}, "list": [{"a": false}, {"a": 1}, {"a": true, "b": 2}], "maybe": [1], "new": 3}`
	got := JSONShapeDiff([]byte(doc), []byte(real))
	want := []string{
		"$.gone: documented, not printed",
		"$.list[1].a: documented as bool, printed as number",
		"$.list[2].b: printed, not documented",
		"$.n: documented as number, printed as string",
		"$.new: printed, not documented",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := JSONShapeDiff([]byte(doc), []byte(doc)); len(d) != 0 {
		t.Errorf("an output differs from itself: %v", d)
	}
	md := "# T\n\n### `acp x --json`\n\nText.\n\n```json\n{\"a\": 1}\n```\n\n### `acp y --json`\n\n```json\n[]\n```\n"
	if ex, err := DocJSONExample(md, "### `acp x --json`"); err != nil || ex != `{"a": 1}` {
		t.Errorf("example of x: %q, %v", ex, err)
	}
	if _, err := DocJSONExample(md, "### `acp z --json`"); err == nil {
		t.Error("a missing heading has an example")
	}
}
