package docs

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// helpOf runs a program's --help (or a command's) and returns its text.
func helpOf(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, append(args, "--help")...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v --help: %v\n%s", filepath.Base(bin), args, err, out)
	}
	return string(out)
}

// helpSection is the lines of a cobra help block ("Available Commands:",
// "Flags:") up to the blank line that ends it.
func helpSection(help, title string) []string {
	_, rest, ok := strings.Cut(help, "\n"+title+"\n")
	if !ok {
		return nil
	}
	block, _, _ := strings.Cut(rest, "\n\n")
	return strings.Split(block, "\n")
}

// helpCommands are the commands a program's help lists (help and
// completion are cobra's own).
func helpCommands(help string) []string {
	var out []string
	for _, line := range helpSection(help, "Available Commands:") {
		if f := strings.Fields(line); len(f) > 0 && f[0] != "help" && f[0] != "completion" {
			out = append(out, f[0])
		}
	}
	return out
}

var helpFlagRe = regexp.MustCompile(`^\s+(?:-\w, )?--([a-z][a-z0-9-]*)`)

// helpFlags are a command's own flags (not the global ones), --help aside.
func helpFlags(help string) []string {
	var out []string
	for _, line := range helpSection(help, "Flags:") {
		if m := helpFlagRe.FindStringSubmatch(line); m != nil && m[1] != "help" && m[1] != "version" {
			out = append(out, m[1])
		}
	}
	return out
}

// docPart is md from the first line starting with start to the next
// heading of the same or a higher level ("" when start is missing).
func docPart(md, start string) string {
	i := strings.Index(md, "\n"+start)
	if i < 0 {
		return ""
	}
	level := strings.Index(start, " ") // "## " -> 2, "### " -> 3
	rest := md[i+1+len(start):]
	end := len(rest)
	for _, h := range []string{"\n## ", "\n### "}[:level-1] {
		if j := strings.Index(rest, h); j >= 0 && j < end {
			end = j
		}
	}
	return rest[:end]
}

func mentionsFlag(text, flag string) bool {
	return regexp.MustCompile(`--` + regexp.QuoteMeta(flag) + `([^a-z0-9-]|$)`).MatchString(text)
}

// undocumentedCommands checks cli.md against what the programs offer
// (program -> command -> its flags): every acp-registry command has a
// section "### `acp-registry CMD" naming each of its flags; every acp
// command appears as "`acp CMD" in the acp part, which names each flag.
func undocumentedCommands(progs map[string]map[string][]string, md string) []string {
	var problems []string
	acpPart := docPart(md, "## `acp`")
	for _, prog := range []string{"acp-registry", "acp"} {
		cmds := progs[prog]
		names := make([]string, 0, len(cmds))
		for c := range cmds {
			names = append(names, c)
		}
		slices.Sort(names)
		for _, c := range names {
			part := acpPart
			if prog == "acp-registry" {
				part = docPart(md, "### `acp-registry "+c+" ")
				if part == "" {
					part = docPart(md, "### `acp-registry "+c+"`")
				}
				if part == "" {
					problems = append(problems, "cli.md has no section ### `acp-registry "+c+"`")
					continue
				}
			} else if !regexp.MustCompile("`acp " + c + "[ `]").MatchString(acpPart) {
				problems = append(problems, "cli.md does not document `acp "+c+"`")
				continue
			}
			for _, f := range cmds[c] {
				if !mentionsFlag(part, f) {
					problems = append(problems, "cli.md does not document --"+f+" of "+prog+" "+c)
				}
			}
		}
	}
	return problems
}

// programs builds both programs and reads every command and flag from
// their help.
func programs(t *testing.T) map[string]map[string][]string {
	testkit.SkipUnderWineWithout(t, "go")
	if testing.Short() {
		t.Skip("builds both programs")
	}
	dir := t.TempDir()
	progs := map[string]map[string][]string{}
	for _, prog := range []string{"acp", "acp-registry"} {
		bin := filepath.Join(dir, prog)
		if out, err := exec.Command("go", "build", "-o", bin, "../cmd/"+prog).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", prog, err, out)
		}
		cmds := helpCommands(helpOf(t, bin))
		if len(cmds) < 7 {
			t.Fatalf("%s --help lists only %v: the help format changed?", prog, cmds)
		}
		progs[prog] = map[string][]string{}
		for _, c := range cmds {
			progs[prog][c] = helpFlags(helpOf(t, bin, c))
		}
	}
	return progs
}

// TestCommandsDocumented: every command of both programs, and every flag
// of each, is in cli.md.
func TestCommandsDocumented(t *testing.T) {
	progs := programs(t)
	if len(progs["acp-registry"]["validate"]) < 5 {
		t.Fatalf("acp-registry validate --help lists flags %v: the help format changed?", progs["acp-registry"]["validate"])
	}
	for _, p := range undocumentedCommands(progs, read(t, "cli.md")) {
		t.Error(p)
	}
}

func TestCommandsCheckCanFail(t *testing.T) {
	md := read(t, "cli.md")
	progs := map[string]map[string][]string{
		"acp-registry": {"validate": {"skip-urls"}, "frob": nil, "build": {"no-such-flag"}},
		"acp":          {"list": {"installed"}, "frob": nil, "probe": {"no-such-flag"}},
	}
	want := []string{
		"cli.md has no section ### `acp-registry frob`",
		"cli.md does not document --no-such-flag of acp-registry build",
		"cli.md does not document `acp frob`",
		"cli.md does not document --no-such-flag of acp probe",
	}
	got := undocumentedCommands(progs, md)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing %q in %q", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// A flag documented only in another command's section does not count.
	if got := undocumentedCommands(map[string]map[string][]string{"acp-registry": {"new": {"apply"}}}, md); len(got) != 1 {
		t.Errorf("--apply of new counted as documented: %q", got)
	}
}
