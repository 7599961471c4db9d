package docs

import (
	"strings"
	"testing"
)

// The help pages say what a newcomer needs (issue 30): run's agent speaks
// JSON-RPC on stdio, gc removes runtimes too, acp-registry's headline and
// cli.md's introduction name every command, site, matrix and new included.
func TestHelpSaysWhatHelps(t *testing.T) {
	help := builtHelp(t)
	for _, c := range []struct{ prog, cmd, want string }{
		{"acp", "run", "JSON-RPC 2.0"},
		{"acp", "run", "stdin"},
		{"acp", "run", "acp probe ID"},
		{"acp", "gc", "runtimes acp brought"},
	} {
		if !strings.Contains(help[c.prog][c.cmd], c.want) {
			t.Errorf("%s %s --help does not say %q", c.prog, c.cmd, c.want)
		}
	}
	headline, _, _ := strings.Cut(help["acp-registry"][""], "\n")
	intro, _, _ := strings.Cut(read(t, "cli.md"), "\n## ")
	for _, cmd := range helpCommands(help["acp-registry"][""]) {
		if !strings.Contains(headline, cmd) {
			t.Errorf("acp-registry's headline %q does not name %s", headline, cmd)
		}
		if !strings.Contains(intro, "`"+cmd+"`") {
			t.Errorf("cli.md's introduction does not name acp-registry %s", cmd)
		}
	}
}
