package repofiles

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// update.yml turns update --json's errors into warning annotations with
// jq. The errors quote upstream (an API's message, an npm dist-tag), so
// the jq program must keep each to one annotation line: no line of its
// own, no escape sequence.
func TestUpdateWorkflowAnnotationsAreSafe(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("no jq")
	}
	b, err := os.ReadFile(filepath.Join(Root(), ".github/workflows/update.yml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)jq -r '(def data:.*?\.errors\[\][^']*)'`).FindSubmatch(b)
	if m == nil {
		t.Fatal("update.yml: no jq program for .errors")
	}
	doc := `{"errors":[{"id":"bin,x:y","error":"Bad credentials\n::add-mask::ghp\r\n::error title=pwned::forged \u001b[31mRED 100%"}]}`
	in := filepath.Join(t.TempDir(), "update.json")
	os.WriteFile(in, []byte(doc), 0o644)
	out, err := exec.Command(jq, "-r", string(m[1]), in).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "::warning title=update bin%2Cx%3Ay::") || strings.ContainsAny(lines[0], "\x1b\r") || !strings.Contains(lines[0], "100%25") {
		t.Errorf("annotations:\n%q", out)
	}
}
