package repofiles

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

const module = "github.com/agentclientprotocol/acp-registry-go"

// mapRow is one row of the package table of docs/architecture.md.
type mapRow struct {
	wing    string
	imports []string // module packages, relative to the module
}

// mapRows reads the package table of docs/architecture.md: package path
// (relative to the module) → its row. The imports column abbreviates
// internal/ as int/ and cmd/acp-registry/internal/ as reg/.
func mapRows(t *testing.T) map[string]mapRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| ([a-z]+) \\|([^|]*)\\|")
	rows := map[string]mapRow{}
	for _, line := range strings.Split(string(b), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if _, dup := rows[m[1]]; dup {
			t.Errorf("docs/architecture.md lists %s twice", m[1])
		}
		var imports []string
		for _, imp := range strings.Fields(m[3]) {
			switch {
			case strings.HasPrefix(imp, "int/"):
				imp = "internal/" + strings.TrimPrefix(imp, "int/")
			case strings.HasPrefix(imp, "reg/"):
				imp = "cmd/acp-registry/internal/" + strings.TrimPrefix(imp, "reg/")
			}
			imports = append(imports, imp)
		}
		slices.Sort(imports)
		rows[m[1]] = mapRow{wing: m[2], imports: imports}
	}
	return rows
}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	testkit.SkipUnderWineWithout(t, "go")
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
	for p, r := range rows {
		if !slices.Contains([]string{"editor", "maintainer", "docs", "test", "bench"}, r.wing) {
			t.Errorf("%s: unknown wing %q", p, r.wing)
		}
	}
}

// Each row's imports column is exactly what go list says the package
// imports of the module (tests aside): a sentence of the map that says
// "verify uses the installer" cannot outlive the import.
func TestArchitectureMapImportsAreTheRealOnes(t *testing.T) {
	rows := mapRows(t)
	testkit.SkipUnderWineWithout(t, "go")
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}", "./...")
	cmd.Dir = Root()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imps, _ := strings.Cut(line, "|")
		var real []string
		for _, imp := range strings.Fields(imps) {
			if strings.HasPrefix(imp, module+"/") {
				real = append(real, rel(imp))
			}
		}
		slices.Sort(real)
		r, ok := rows[rel(pkg)]
		if ok && !slices.Equal(r.imports, real) {
			t.Errorf("docs/architecture.md says %s imports %v; go list says %v", rel(pkg), r.imports, real)
		}
	}
}

// What the map calls the editor's wing links nothing of the maintainer's
// (cmd/acp/wings_test.go checks the acp binary; this checks each package,
// so a new editor package cannot start the drift).
func TestEditorWingImportsNoMaintainerPackage(t *testing.T) {
	rows := mapRows(t)
	maintainer := map[string]bool{}
	for p, r := range rows {
		if r.wing == "maintainer" {
			maintainer[module+"/"+p] = true
		}
	}
	for p, r := range rows {
		if r.wing != "editor" {
			continue
		}
		for _, dep := range goList(t, "-deps", "./"+p) {
			if maintainer[dep] || strings.HasPrefix(dep, "github.com/santhosh-tekuri/jsonschema") || strings.HasPrefix(dep, "github.com/google/go-github") {
				t.Errorf("%s (editor's wing) depends on %s (maintainer's)", p, dep)
			}
		}
	}
}

// The test kits live in one place, internal/testkit and below it, and no
// program or library links them: a helper that fakes npm or builds hostile
// archives has no business in a binary a user runs.
func TestTestKitsLiveInOnePlaceAndShipInNoProgram(t *testing.T) {
	rows := mapRows(t)
	// A package of the test wing that no other package imports, tests
	// included, holds tests only (internal/repofiles); one that others
	// import is a kit.
	importedBy := map[string]string{}
	for _, line := range goList(t, "-f", "{{.ImportPath}}|{{join .Imports \",\"}},{{join .TestImports \",\"}},{{join .XTestImports \",\"}}", "./...") {
		pkg, imps, _ := strings.Cut(line, "|")
		for _, imp := range strings.Split(imps, ",") {
			if strings.HasPrefix(imp, module+"/") && imp != pkg {
				importedBy[rel(imp)] = rel(pkg)
			}
		}
	}
	for p, r := range rows {
		inKit := p == "internal/testkit" || strings.HasPrefix(p, "internal/testkit/")
		if r.wing == "test" && !inKit && importedBy[p] != "" {
			t.Errorf("%s is a test kit outside internal/testkit (%s imports it): move it below internal/testkit/", p, importedBy[p])
		}
		if inKit && r.wing != "test" {
			t.Errorf("%s is below internal/testkit but docs/architecture.md puts it in the %s wing", p, r.wing)
		}
	}
	for p, r := range rows {
		if r.wing == "test" {
			continue
		}
		for _, dep := range goList(t, "-deps", "./"+p) {
			if dep == module+"/internal/testkit" || strings.HasPrefix(dep, module+"/internal/testkit/") {
				t.Errorf("%s (%s wing) links the test kit %s", p, r.wing, rel(dep))
			}
		}
	}
}
