package docs

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// builtHelp builds both programs and returns every help text: "" for the
// program's own, else the command's name (cobra's completion included).
func builtHelp(t *testing.T) map[string]map[string]string {
	testkit.SkipUnderWineWithout(t, "go")
	if testing.Short() {
		t.Skip("builds both programs")
	}
	dir := t.TempDir()
	out := map[string]map[string]string{}
	for _, prog := range []string{"acp", "acp-registry"} {
		bin := filepath.Join(dir, prog)
		if b, err := exec.Command("go", "build", "-o", bin, "../cmd/"+prog).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", prog, err, b)
		}
		top := helpOf(t, bin)
		out[prog] = map[string]string{"": top, "completion": helpOf(t, bin, "completion")}
		for _, c := range helpCommands(top) {
			out[prog][c] = helpOf(t, bin, c)
		}
	}
	return out
}

// Every command of both programs shows examples in --help (issue 22), and
// what --help says of gc and upgrade is what they do.
func TestHelpHasExamples(t *testing.T) {
	helps := builtHelp(t)
	for prog, cmds := range helps {
		if len(cmds) < 8 {
			t.Fatalf("%s: only %d commands: the help format changed?", prog, len(cmds))
		}
		for c, help := range cmds {
			if !strings.Contains(help, "\nExamples:\n  "+prog) {
				t.Errorf("%s %s --help shows no examples", prog, c)
			}
		}
	}
	if gc := helps["acp"]["gc"]; !strings.Contains(gc, "current one and\nthe previous one (kept for acp rollback") {
		t.Errorf("acp gc --help does not say it keeps the previous version:\n%s", gc)
	}
	if up := helps["acp"]["upgrade"]; !strings.Contains(up, "--install-timeout") {
		t.Errorf("acp upgrade --help has no --install-timeout:\n%s", up)
	}
}

// The acp table of "Flags and exits" names each command's own flags in the
// command's own row (issue 22: upgrade's --install-timeout was missing).
func TestAcpFlagsTable(t *testing.T) {
	progs := programs(t)
	for _, p := range rowsMissingFlags(progs["acp"], read(t, "cli.md")) {
		t.Error(p)
	}
}

func rowsMissingFlags(cmds map[string][]string, md string) []string {
	table := docPart(md, "### `acp` flags and exits")
	var problems []string
	for c, flags := range cmds {
		row := ""
		for _, line := range strings.Split(table, "\n") {
			if strings.HasPrefix(line, "| `"+c+" ") || strings.HasPrefix(line, "| `"+c+"`") {
				row = line
			}
		}
		if row == "" {
			problems = append(problems, "cli.md's acp table has no row for "+c)
			continue
		}
		for _, f := range flags {
			if !mentionsFlag(row, f) {
				problems = append(problems, "cli.md's acp table: the row of "+c+" does not name --"+f)
			}
		}
	}
	return problems
}

func TestAcpFlagsTableCheckCanFail(t *testing.T) {
	got := rowsMissingFlags(map[string][]string{"gc": {"force", "no-such"}, "frob": nil}, read(t, "cli.md"))
	if len(got) != 2 {
		t.Errorf("got %q, want the missing --no-such and the missing row of frob", got)
	}
}
