package repofiles

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/agentclientprotocol/acp-registry-go"

// mapRows reads the package table of docs/architecture.md: package path
// (relative to the module) → wing.
func mapRows(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| ([a-z]+) \\|")
	rows := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			if _, dup := rows[m[1]]; dup {
				t.Errorf("docs/architecture.md lists %s twice", m[1])
			}
			rows[m[1]] = m[2]
		}
	}
	return rows
}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = Root()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Fields(string(out))
}

func rel(pkg string) string {
	if pkg == module {
		return "."
	}
	return strings.TrimPrefix(pkg, module+"/")
}

// The map in docs/architecture.md names every package of the module, and
// no other, so it cannot drift from the code.
func TestArchitectureMapListsEveryPackage(t *testing.T) {
	rows := mapRows(t)
	var listed []string
	for _, p := range goList(t, "./...") {
		listed = append(listed, rel(p))
	}
	for _, p := range listed {
		if _, ok := rows[p]; !ok {
			t.Errorf("package %s is missing from docs/architecture.md: add a row (package, wing, what it owns)", p)
		}
	}
	for p := range rows {
		if !slices.Contains(listed, p) {
			t.Errorf("docs/architecture.md lists %s, which go list ./... does not know: remove or rename its row", p)
		}
	}
	for p, wing := range rows {
		if !slices.Contains([]string{"editor", "maintainer", "docs", "test", "bench"}, wing) {
			t.Errorf("%s: unknown wing %q", p, wing)
		}
	}
}

// What the map calls the editor's wing links nothing of the maintainer's
// (cmd/acp/wings_test.go checks the acp binary; this checks each package,
// so a new editor package cannot start the drift).
func TestEditorWingImportsNoMaintainerPackage(t *testing.T) {
	rows := mapRows(t)
	maintainer := map[string]bool{}
	for p, wing := range rows {
		if wing == "maintainer" {
			maintainer[module+"/"+p] = true
		}
	}
	for p, wing := range rows {
		if wing != "editor" {
			continue
		}
		for _, dep := range goList(t, "-deps", "./"+p) {
			if maintainer[dep] || strings.HasPrefix(dep, "github.com/santhosh-tekuri/jsonschema") || strings.HasPrefix(dep, "github.com/google/go-github") {
				t.Errorf("%s (editor's wing) depends on %s (maintainer's)", p, dep)
			}
		}
	}
}
