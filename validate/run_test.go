package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

const goodIcon = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><path fill="currentColor" d="M0 0h16v16H0z"/></svg>`

func manifestFor(id string) string {
	return `{
  "id": "` + id + `",
  "name": "Agent ` + id + `",
  "version": "1.0.0",
  "description": "test agent",
  "license_url": "https://example.com/license",
  "distribution": {"npx": {"package": "` + id + `-acp@1.0.0"}}
}
`
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeAgent writes root/dir/agent.json and, unless icon is "", icon.svg.
func writeAgent(t testing.TB, root, dir, manifest, icon string) {
	t.Helper()
	writeFile(t, filepath.Join(root, dir, "agent.json"), manifest)
	if icon != "" {
		writeFile(t, filepath.Join(root, dir, "icon.svg"), icon)
	}
}

func rulesOf(r *AgentResult) []string {
	var rs []string
	for _, p := range r.Problems {
		rs = append(rs, p.Rule)
	}
	return rs
}

func hasRule(r *AgentResult, rule string) bool {
	for _, p := range r.Problems {
		if p.Rule == rule {
			return true
		}
	}
	return false
}

func byID(t *testing.T, rep *Report, id string) *AgentResult {
	t.Helper()
	for _, a := range rep.Agents {
		if a.ID == id {
			return a
		}
	}
	t.Fatalf("agent %q not in report", id)
	return nil
}

func TestRunTree(t *testing.T) {
	root := t.TempDir()
	writeAgent(t, root, "good", manifestFor("good"), goodIcon)
	writeAgent(t, root, "noicon", manifestFor("noicon"), "")
	writeAgent(t, root, "badicon", manifestFor("badicon"), `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16">
<path fill="red" d="M0 0h16v16H0z"/></svg>`)
	writeAgent(t, root, "_parked", `not json`, "")
	writeAgent(t, root, ".hidden", `not json`, "")
	writeAgent(t, root, "dist", `not json`, "")
	writeFile(t, filepath.Join(root, "empty", "README"), "x")
	writeFile(t, filepath.Join(root, "registry.json"), "{}")

	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range rep.Agents {
		ids = append(ids, a.ID)
	}
	if got := strings.Join(ids, ","); got != "badicon,empty,good,noicon" {
		t.Fatalf("agents %s", got)
	}
	if a := byID(t, rep, "good"); !a.Valid || len(a.Problems) != 0 || !samePath(a.Path, filepath.Join(root, "good")) || len(a.Icon) == 0 || a.Manifest == nil {
		t.Errorf("good: %+v", a)
	}
	if a := byID(t, rep, "noicon"); a.Valid || !hasRule(a, RuleIconMissing) || !samePath(a.Problems[0].File, filepath.Join(root, "noicon", "icon.svg")) {
		t.Errorf("noicon: %+v", a.Problems)
	}
	a := byID(t, rep, "badicon")
	var iconProblem *Problem
	for i, p := range a.Problems {
		if p.Rule == "icon-hardcoded-color" {
			iconProblem = &a.Problems[i]
		}
	}
	if iconProblem == nil || !samePath(iconProblem.File, filepath.Join(root, "badicon", "icon.svg")) || iconProblem.Line != 2 || iconProblem.Pointer != "" {
		t.Errorf("badicon: %+v", a.Problems)
	}
	if a := byID(t, rep, "empty"); !a.Valid || len(a.Problems) != 1 || a.Problems[0].Rule != RuleManifestMissing || a.Problems[0].Severity != SeverityWarning {
		t.Errorf("empty: %+v", a.Problems)
	}
	if rep.Summary != (Summary{Agents: 4, Invalid: 2, Errors: rep.Summary.Errors, Warnings: 1, WithErrors: 2, WithOnlyWarnings: 1}) || rep.Summary.Errors < 2 {
		t.Errorf("summary %+v", rep.Summary)
	}
	if !rep.HasErrors() {
		t.Error("HasErrors false")
	}
}

func TestRunPathForms(t *testing.T) {
	root := t.TempDir()
	writeAgent(t, root, "solo", manifestFor("solo"), goodIcon)
	for _, p := range []string{filepath.Join(root, "solo"), filepath.Join(root, "solo", "agent.json")} {
		rep, err := Run(context.Background(), []string{p}, Options{SkipURLs: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Agents) != 1 || !rep.Agents[0].Valid || !samePath(rep.Agents[0].Path, filepath.Join(root, "solo")) {
			t.Errorf("%s: %+v", p, rep.Agents[0])
		}
	}
	// A bare agent.json knows its folder from its parent.
	writeAgent(t, root, "misnamed", manifestFor("solo2"), goodIcon)
	rep, err := Run(context.Background(), []string{filepath.Join(root, "misnamed", "agent.json")}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(rep.Agents[0], RuleIDDirMismatch) {
		t.Errorf("misnamed: %v", rulesOf(rep.Agents[0]))
	}
}

func TestRunDuplicateIDsAcrossRoots(t *testing.T) {
	r1, r2 := t.TempDir(), t.TempDir()
	writeAgent(t, r1, "same", manifestFor("same"), goodIcon)
	writeAgent(t, r2, "same", manifestFor("same"), goodIcon)
	writeAgent(t, r2, "other", manifestFor("other"), goodIcon)
	rep, err := Run(context.Background(), []string{r1, r2}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range rep.Agents {
		if hasRule(a, RuleIDDuplicate) {
			n++
			p := a.Problems[0]
			if p.Pointer != "/id" || p.Line != 2 || p.Column != 9 || !strings.Contains(p.Message, "also used by") {
				t.Errorf("duplicate problem %+v", p)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d agents flagged as duplicates, want 2", n)
	}
	// --agent reports only "other" but uniqueness is checked against all.
	rep, err = Run(context.Background(), []string{r1, r2}, Options{SkipURLs: true, Agents: []string{"other"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Agents) != 1 || rep.Agents[0].ID != "other" || !rep.Agents[0].Valid {
		t.Errorf("--agent other: %+v", rep.Agents)
	}
	rep, err = Run(context.Background(), []string{r1, r2}, Options{SkipURLs: true, Agents: []string{"same"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Agents) != 2 || !hasRule(rep.Agents[0], RuleIDDuplicate) {
		t.Errorf("--agent same: %+v", rep.Agents)
	}
}

func TestRunInputErrors(t *testing.T) {
	root := t.TempDir()
	writeAgent(t, root, "one", manifestFor("one"), goodIcon)
	_, err := Run(context.Background(), []string{filepath.Join(root, "nope")}, Options{SkipURLs: true})
	if !errors.Is(err, ErrNoInput) || !strings.Contains(err.Error(), "nope: no such file or directory") {
		t.Errorf("missing path: %v", err)
	}
	_, err = Run(context.Background(), []string{root}, Options{SkipURLs: true, Agents: []string{"one", "two"}})
	if !errors.Is(err, ErrUnknownAgent) || !strings.Contains(err.Error(), `no agent "two"`) {
		t.Errorf("unknown agent: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, []string{root}, Options{SkipURLs: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// Hostile or broken files each become a problem and the run goes on.
func TestRunBadInput(t *testing.T) {
	root := t.TempDir()
	writeAgent(t, root, "fine", manifestFor("fine"), goodIcon)
	writeFile(t, filepath.Join(root, "garbage", "agent.json"), "\x00\x01\x02\xff\xfe binary")
	writeFile(t, filepath.Join(root, "deep", "agent.json"), strings.Repeat("[", 100000))
	writeFile(t, filepath.Join(root, "empty", "agent.json"), "")
	if err := os.MkdirAll(filepath.Join(root, "isdir", "agent.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "fifo"), 0o755); err != nil {
		t.Fatal(err)
	}
	hasFIFO := makeFIFO(t, filepath.Join(root, "fifo", "agent.json")) // opening it would block forever
	huge := filepath.Join(root, "huge", "agent.json")
	writeFile(t, huge, "{")
	if err := os.Truncate(huge, 100<<20); err != nil { // sparse: 100 MB without writing it
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "hugeicon", "agent.json"), manifestFor("hugeicon"))
	writeFile(t, filepath.Join(root, "hugeicon", "icon.svg"), strings.Repeat(" ", 2<<20))
	if os.Geteuid() != 0 { // root reads everything regardless of mode
		writeAgent(t, root, "locked", manifestFor("locked"), goodIcon)
		if err := os.Chmod(filepath.Join(root, "locked"), 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked"), 0o755) })
	}

	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"garbage":  "not valid UTF-8",
		"deep":     "nested too deeply",
		"empty":    "unexpected end of file",
		"isdir":    "agent.json is a folder, not a file",
		"fifo":     "agent.json is not a regular file (a named pipe)",
		"huge":     "larger than 1 MiB",
		"hugeicon": "larger than 64 KiB",
		"locked":   "cannot read agent.json",
	}
	if os.Geteuid() == 0 || runtime.GOOS == "windows" { // chmod 0 does not lock a file there
		delete(want, "locked")
	}
	if !hasFIFO {
		delete(want, "fifo")
	}
	for id, msg := range want {
		a := byID(t, rep, id)
		if a.Valid || len(a.Problems) == 0 || !strings.Contains(a.Problems[0].Message, msg) {
			t.Errorf("%s: %+v, want a problem saying %q", id, a.Problems, msg)
		}
	}
	if a := byID(t, rep, "fine"); !a.Valid {
		t.Errorf("fine: %+v", a.Problems)
	}
}

func TestRunStrict(t *testing.T) {
	root := t.TempDir()
	writeAgent(t, root, "warny", strings.Replace(manifestFor("warny"), `"version"`, `"tags": [], "version"`, 1), goodIcon)
	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.HasErrors() || !rep.Agents[0].Valid || rep.Summary.Warnings != 1 {
		t.Errorf("not strict: %+v", rep)
	}
	rep, err = Run(context.Background(), []string{root}, Options{SkipURLs: true, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.HasErrors() || rep.Agents[0].Valid || rep.Summary.Invalid != 1 {
		t.Errorf("strict: %+v %+v", rep.Summary, rep.Agents[0])
	}
}

// Problems added after the offline checks (the network's) carry only a
// pointer; Run positions them from the agent's own file.
func TestFinishPositionsPointerProblems(t *testing.T) {
	root := t.TempDir()
	writeAgent(t, root, "net", manifestFor("net"), goodIcon)
	r, _ := checkUnitBufs(&unit{root: &rootInfo{given: filepath.Join(root, "net"), show: filepath.Join(root, "net"), fence: root}, name: "net", kind: unitFolder}, false)
	r.Problems = append(r.Problems, Problem{File: r.ManifestFile, Pointer: "/distribution/npx/package",
		Rule: "npm-package-missing", Severity: SeverityError, Message: "gone"})
	rep := finish([]*AgentResult{r}, false)
	p := rep.Agents[0].Problems[0]
	if p.Line != 7 || p.Column != 39 {
		t.Errorf("network problem at %d:%d, want 7:39", p.Line, p.Column)
	}
	if rep.Agents[0].Valid || rep.Summary.Errors != 1 {
		t.Errorf("report %+v", rep.Summary)
	}
}

func TestGolden(t *testing.T) {
	rep, err := Run(context.Background(), []string{"testdata/tree"}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	var text, js, gh, sum bytes.Buffer
	if err := WriteText(&text, rep, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteGitHub(&gh, &sum, rep); err != nil {
		t.Fatal(err)
	}
	var colored bytes.Buffer
	WriteText(&colored, rep, TextOptions{Color: true})
	if !bytes.Contains(colored.Bytes(), []byte("\x1b[31merror\x1b[0m")) || bytes.Contains(text.Bytes(), []byte("\x1b[")) {
		t.Error("colour only when asked")
	}
	// A lean report (validate --skip-urls) prints exactly the same.
	lean, err := Run(context.Background(), []string{"testdata/tree"}, Options{SkipURLs: true, Lean: true})
	if err != nil {
		t.Fatal(err)
	}
	if lean.Summary != rep.Summary {
		t.Errorf("lean report: summary %+v; want %+v", lean.Summary, rep.Summary)
	}
	for _, a := range lean.Agents {
		if a.Manifest != nil || a.Icon != nil {
			t.Errorf("lean report keeps %s's manifest or icon", a.ID)
		}
	}
	var ltext, ljs, lgh, lsum bytes.Buffer
	WriteText(&ltext, lean, TextOptions{})
	WriteJSON(&ljs, lean)
	WriteGitHub(&lgh, &lsum, lean)
	for name, pair := range map[string][2][]byte{"text": {text.Bytes(), ltext.Bytes()}, "json": {js.Bytes(), ljs.Bytes()}, "github": {gh.Bytes(), lgh.Bytes()}, "summary": {sum.Bytes(), lsum.Bytes()}} {
		if !bytes.Equal(pair[0], pair[1]) {
			t.Errorf("lean %s output differs:\n%s\nwant\n%s", name, pair[1], pair[0])
		}
	}
	var jsonDoc Report
	if err := json.Unmarshal(js.Bytes(), &jsonDoc); err != nil || len(jsonDoc.Agents) != rep.Summary.Agents {
		t.Errorf("JSON report does not decode: %v", err)
	}
	for name, got := range map[string][]byte{"text.golden": text.Bytes(), "json.golden": js.Bytes(), "github.golden": gh.Bytes(), "summary.md.golden": sum.Bytes()} {
		path := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs (run go test ./validate -run TestGolden -update and review the diff):\n%s", name, got)
		}
	}
}

func TestGitHubEscaping(t *testing.T) {
	rep := finish([]*AgentResult{{ID: "x", Path: "a,b", Problems: []Problem{{
		File: "a,b/agent:1.json", Line: 3, Column: 0, Rule: "schema", Severity: SeverityError, Message: "100% bad\nline two\r",
	}}}}, false)
	var out bytes.Buffer
	if err := WriteGitHub(&out, nil, rep); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(out.String(), "\n", 2)[0]
	if want := `::error file=a%2Cb/agent%3A1.json,line=3,title=schema::100%25 bad\nline two\r`; first != want {
		t.Errorf("got  %s\nwant %s", first, want)
	}
}

func TestSummaryLine(t *testing.T) {
	tests := []struct {
		s      Summary
		strict bool
		want   string
	}{
		{Summary{Agents: 41}, false, "all 41 agents valid"},
		{Summary{Agents: 1}, false, "1 agent valid"},
		{Summary{Agents: 41, Warnings: 2}, false, "all 41 agents valid (2 warnings)"},
		{Summary{Agents: 41, Invalid: 3, Errors: 4, Warnings: 2, WithErrors: 3, WithOnlyWarnings: 1}, false, "3 of 41 agents have errors, 1 has only warnings: 4 errors, 2 warnings"},
		{Summary{Agents: 145, Invalid: 18, Errors: 51, Warnings: 143, WithErrors: 18, WithOnlyWarnings: 95}, false, "18 of 145 agents have errors, 95 have only warnings: 51 errors, 143 warnings"},
		{Summary{Agents: 41, Invalid: 1, Errors: 0, Warnings: 1, WithOnlyWarnings: 1}, true, "0 of 41 agents have errors, 1 has only warnings: 0 errors, 1 warning (--strict counts warnings as errors)"},
		{Summary{}, false, "no agents found"},
	}
	for _, tt := range tests {
		if got := SummaryLine(&Report{Summary: tt.s, Strict: tt.strict}); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}

// Ctrl-C during the network checks turns every pending lookup into a
// failure; Run must say it was interrupted, not report those as problems.
func TestRunInterruptedDuringNetworkChecks(t *testing.T) {
	root := t.TempDir()
	writeAgent(t, root, "alpha", manifestFor("alpha"), "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	npm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	}))
	defer npm.Close()
	rep, err := Run(ctx, []string{root}, Options{NPMRegistry: npm.URL + "/"})
	if err == nil || !strings.Contains(err.Error(), "interrupted") || rep != nil {
		t.Fatalf("Run = %v, %v; want no report and an interrupted error", rep, err)
	}
}

// A control character in a folder name must not split a problem over two
// lines (or reach the terminal raw).
func TestWriteTextEscapesControlCharacters(t *testing.T) {
	rep := &Report{Agents: []*AgentResult{{ID: "a\nb", Path: "reg/a\nb", Problems: []Problem{
		{File: "reg/a\nb", Rule: "manifest-missing", Severity: SeverityWarning, Message: "folder reg/a\x1b[2Jb has no agent.json"},
	}}}, Summary: Summary{Agents: 1, Warnings: 1}}
	var out bytes.Buffer
	if err := WriteText(&out, rep, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "a\\nb (reg/a\\nb): 1 warning\nreg/a\\nb: warning manifest-missing: folder reg/a\\x1b[2Jb has no agent.json\n\n1 agent valid (1 warning)\n"
	if out.String() != want {
		t.Errorf("got  %q\nwant %q", out.String(), want)
	}
}

// The JSON writer streams agents one by one; an empty report is still one
// document shaped as cli.md says.
func TestWriteJSONEmpty(t *testing.T) {
	var out bytes.Buffer
	if err := WriteJSON(&out, finish(nil, false)); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"agents\": [],\n  \"files\": [],\n  \"summary\": {\n    \"agents\": 0,\n    \"invalid\": 0,\n    \"errors\": 0,\n    \"warnings\": 0\n  },\n  \"schemas\": {\n    \"agent\": \"built-in\",\n    \"registry\": \"built-in\"\n  }\n}\n"
	if out.String() != want {
		t.Errorf("got %q\nwant %q", out.String(), want)
	}
}

// A folder name with ESC, CR or LF reaches no annotation, log line or
// summary raw: it could repaint the terminal or start a workflow command.
func TestHostileFolderNameInEveryFormat(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows cannot make a folder whose name holds control characters")
	}
	root := t.TempDir()
	name := "evil\x1b]0;title\x07\n::add-mask::x"
	writeAgent(t, root, name, manifestFor("evil"), goodIcon)
	for _, lean := range []bool{false, true} {
		rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true, Lean: lean})
		if err != nil {
			t.Fatal(err)
		}
		var text, gh, sum, js bytes.Buffer
		WriteText(&text, rep, TextOptions{})
		WriteGitHub(&gh, &sum, rep)
		WriteJSON(&js, rep)
		for fmtName, out := range map[string]string{"text": text.String(), "github": gh.String(), "summary": sum.String()} {
			if strings.ContainsAny(out, "\x1b\x07\r") {
				t.Errorf("lean=%v %s output holds a raw control character:\n%q", lean, fmtName, out)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "::add-mask::") {
					t.Errorf("lean=%v %s output starts a workflow command: %q", lean, fmtName, line)
				}
			}
		}
		if !strings.Contains(gh.String(), "/"+`evil\x1b]0;title\x07\n%3A%3Aadd-mask%3A%3Ax`) {
			t.Errorf("annotation file= not escaped as expected:\n%s", gh.String())
		}
		// JSON keeps the exact name.
		var doc struct{ Agents []struct{ Path string } }
		if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc.Agents) != 1 || !strings.HasSuffix(doc.Agents[0].Path, "/"+name) {
			t.Errorf("lean=%v JSON path: %+v %v", lean, doc, err)
		}
	}
}

// Paths are named from the top of the git work tree, wherever validate
// runs, with forward slashes.
func TestPathsRelativeToRepositoryRoot(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeAgent(t, filepath.Join(repo, "agents"), "one", manifestFor("one"), "")
	for _, tc := range []struct{ cwd, arg string }{
		{repo, "agents"},
		{filepath.Join(repo, "agents"), "."},
		{filepath.Join(repo, "agents", "one"), ".."},
		{filepath.Join(repo, "agents", "one"), "."},
		{t.TempDir(), filepath.Join(repo, "agents")},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			t.Chdir(tc.cwd)
			rep, err := Run(context.Background(), []string{tc.arg}, Options{SkipURLs: true})
			if err != nil {
				t.Fatal(err)
			}
			a := rep.Agents[0]
			if a.Path != "agents/one" || a.Problems[0].File != "agents/one/icon.svg" {
				t.Errorf("from %s with %s: path %q, file %q; want agents/one, agents/one/icon.svg", tc.cwd, tc.arg, a.Path, a.Problems[0].File)
			}
		})
	}
	// Outside any work tree: relative to the current folder.
	plain := t.TempDir()
	writeAgent(t, plain, "two", manifestFor("two"), goodIcon)
	t.Chdir(plain)
	rep, err := Run(context.Background(), []string{filepath.Join(plain, "two")}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Agents[0].Path != "two" {
		t.Errorf("outside git: path %q, want two", rep.Agents[0].Path)
	}
}

// agent.json and icon.svg must be regular files inside the registry: a
// link out of it is not read (so build never copies the outside file).
func TestFileOutside(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "registry")
	secret := filepath.Join(base, "secret.svg")
	writeFile(t, secret, goodIcon)
	writeFile(t, filepath.Join(base, "outside-agent", "agent.json"), manifestFor("far"))
	writeFile(t, filepath.Join(base, "outside-agent", "icon.svg"), goodIcon)
	writeFile(t, filepath.Join(base, "loose.json"), manifestFor("linked"))

	writeAgent(t, root, "iconout", manifestFor("iconout"), "")
	link(t, secret, filepath.Join(root, "iconout", "icon.svg"))
	writeAgent(t, root, "manout", "", "")
	os.Remove(filepath.Join(root, "manout", "agent.json"))
	link(t, filepath.Join(base, "loose.json"), filepath.Join(root, "manout", "agent.json"))
	writeFile(t, filepath.Join(root, "manout", "icon.svg"), goodIcon)
	link(t, filepath.Join(base, "outside-agent"), filepath.Join(root, "far"))
	writeAgent(t, root, "inside", manifestFor("inside"), "")
	writeFile(t, filepath.Join(root, "shared", "icon.svg"), goodIcon)
	link(t, filepath.Join("..", "shared", "icon.svg"), filepath.Join(root, "inside", "icon.svg"))
	writeAgent(t, root, "dangling", manifestFor("dangling"), "")
	link(t, filepath.Join(base, "nothing.svg"), filepath.Join(root, "dangling", "icon.svg"))

	for _, lean := range []bool{false, true} {
		var icons = map[string][]byte{}
		var mu sync.Mutex
		rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true, Lean: lean, OnAgent: func(a *AgentResult) {
			mu.Lock()
			icons[a.ID] = a.Icon
			mu.Unlock()
		}})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		rep.Each(func(a *AgentResult) error {
			for _, p := range a.Problems {
				if p.Rule == RuleFileOutside {
					got[a.ID] = append(got[a.ID], p.File[strings.LastIndex(p.File, "/")+1:]+": "+p.Message)
				}
			}
			return nil
		})
		for id, want := range map[string][]string{
			"iconout":  {"icon.svg: icon.svg is a symbolic link to a file outside the registry"},
			"manout":   {"agent.json: agent.json is a symbolic link to a file outside the registry"},
			"far":      {"agent.json: agent.json is a symbolic link to a file outside the registry", "icon.svg: icon.svg is a symbolic link to a file outside the registry"},
			"dangling": {"icon.svg: icon.svg is a symbolic link to nothing"},
		} {
			if len(got[id]) != len(want) {
				t.Errorf("lean=%v %s: file-outside %q, want %q", lean, id, got[id], want)
				continue
			}
			for i := range want {
				if !strings.HasPrefix(got[id][i], want[i]) {
					t.Errorf("lean=%v %s: %q, want %q", lean, id, got[id][i], want[i])
				}
			}
		}
		if got["inside"] != nil || icons["inside"] == nil {
			t.Errorf("lean=%v a link inside the registry is fine: %q", lean, got["inside"])
		}
		if icons["iconout"] != nil || icons["far"] != nil {
			t.Errorf("lean=%v an outside icon was read: %q", lean, icons["iconout"])
		}
	}
}

func link(t *testing.T, target, at string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, at); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
	if _, err := os.Lstat(at); err != nil {
		testkit.SkipUnderWine(t, "reports a symbolic link made and makes none")
	}
}

// leanRun is Run with Options.Lean, its agents read back into a plain
// report, so tests can compare both modes.
func leanRun(t *testing.T, paths []string, opts Options) (*Report, error) {
	t.Helper()
	opts.Lean = true
	rep, err := Run(context.Background(), paths, opts)
	if err != nil {
		return nil, err
	}
	out := &Report{Summary: rep.Summary, Strict: rep.Strict, Schemas: rep.Schemas, Agents: []*AgentResult{}}
	err = rep.Each(func(a *AgentResult) error {
		c := *a
		c.Problems = append([]Problem{}, a.Problems...)
		out.Agents = append(out.Agents, &c)
		return nil
	})
	return out, err
}

// The lean mode keeps nothing but reports exactly what the full one does:
// duplicates across roots, --agent, strict, missing manifests.
func TestLeanReportsTheSame(t *testing.T) {
	r1, r2 := t.TempDir(), t.TempDir()
	writeAgent(t, r1, "same", manifestFor("same"), goodIcon)
	writeAgent(t, r2, "same", manifestFor("same"), goodIcon)
	writeAgent(t, r2, "other", strings.Replace(manifestFor("other"), `"version"`, `"tags": [], "version"`, 1), goodIcon)
	writeAgent(t, r2, "zz-misnamed", manifestFor("aa-first"), "")
	writeFile(t, filepath.Join(r2, "notes", "README"), "x")
	for _, opts := range []Options{
		{SkipURLs: true},
		{SkipURLs: true, Strict: true},
		{SkipURLs: true, Agents: []string{"same"}},
		{SkipURLs: true, Agents: []string{"other", "zz-misnamed"}},
	} {
		full, err := Run(context.Background(), []string{r1, r2}, opts)
		if err != nil {
			t.Fatal(err)
		}
		lean, err := leanRun(t, []string{r1, r2}, opts)
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		WriteJSON(&a, full)
		WriteJSON(&b, lean)
		if a.String() != b.String() {
			t.Errorf("%+v: lean report differs:\n%s\nwant\n%s", opts, b.String(), a.String())
		}
	}
	if _, err := leanRun(t, []string{r1, r2}, Options{SkipURLs: true, Agents: []string{"nope"}}); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("lean --agent nope: %v", err)
	}
}

// A workflow command is a line that starts with "::" (after spaces): the
// runner reads them from stdout and stderr alike. A manifest's id, or a
// folder's name, that is printed at the start of a line must not be one
// (build prints the text report in the Action; validate in the hook).
func TestNoLineStartsACommand(t *testing.T) {
	root := t.TempDir()
	writeAgent(t, root, "evil", manifestFor("::add-mask::Error"), goodIcon)
	writeAgent(t, root, "::warning title=LGTM::approved", manifestFor("fine"), goodIcon)
	writeAgent(t, root, "  ::error::x", manifestFor("fine2"), goodIcon)
	t.Chdir(root)
	rep, err := Run(context.Background(), []string{"."}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	var text, gh, sum bytes.Buffer
	WriteText(&text, rep, TextOptions{})
	WriteGitHub(&gh, &sum, rep)
	for fmtName, out := range map[string]string{"text": text.String(), "github": gh.String(), "summary": sum.String()} {
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") && !strings.HasPrefix(line, "::error file=") && !strings.HasPrefix(line, "::warning file=") {
				t.Errorf("%s output has a line that starts a workflow command: %q", fmtName, line)
			}
		}
	}
	if !strings.Contains(text.String(), "add-mask::Error") {
		t.Errorf("the id is not shown at all:\n%s", text.String())
	}

	// --agent's "no agent" error lists the registry's ids.
	one := t.TempDir()
	writeAgent(t, one, "x", manifestFor(`x\n::warning title=Injected::looks official\n`), goodIcon)
	_, err = Run(context.Background(), []string{one}, Options{SkipURLs: true, Agents: []string{"nope"}})
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %q, want one line naming the ids safely", err)
	}
}

// A value quoted in full would make one problem a megabyte: a CI log line
// no one reads, and a step summary GitHub refuses (over 1 MiB it drops the
// whole summary). Messages are shortened in the middle where people read
// them, keeping the fix at their end; JSON keeps them whole.
func TestHugeValuesAreShortenedForPeople(t *testing.T) {
	root := t.TempDir()
	m := strings.Replace(manifestFor("one"), `"version": "1.0.0"`, `"version": "1.0.0-`+strings.Repeat(".", 500<<10)+`"`, 1)
	writeAgent(t, root, "one", m, goodIcon)
	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	var text, gh, sum, js bytes.Buffer
	WriteText(&text, rep, TextOptions{})
	WriteGitHub(&gh, &sum, rep)
	WriteJSON(&js, rep)
	for name, out := range map[string]string{"text": text.String(), "github": gh.String()} {
		for _, line := range strings.Split(out, "\n") {
			if len(line) > 2000 {
				t.Errorf("%s output has a line of %d bytes: %.200s…", name, len(line), line)
			}
		}
	}
	if sum.Len() > 64<<10 {
		t.Errorf("step summary is %d bytes", sum.Len())
	}
	if js.Len() < 500<<10 {
		t.Errorf("JSON lost the message's value (%d bytes)", js.Len())
	}
}

// Ids name folders and files (agents/<id>/, <id>.svg, acp's
// agents/<id>/): a Windows device name cannot be one there.
func TestWindowsDeviceNamesAreNoIDs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows cannot make folders named as devices (nul, con, …): only other systems can hand them to validate")
	}
	for _, id := range []string{"nul", "con", "aux", "prn", "com1", "lpt9"} {
		root := t.TempDir()
		writeAgent(t, root, id, manifestFor(id), goodIcon)
		rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
		if err != nil {
			t.Fatal(err)
		}
		if rules := rulesOf(rep.Agents[0]); !slices.Contains(rules, RuleIDFormat) {
			t.Errorf("id %q: rules %v, want %s", id, rules, RuleIDFormat)
		}
	}
}

// samePath compares a path of a report, which machine output writes with
// forward slashes on every OS, to one made with filepath.Join.
func samePath(got, want string) bool { return filepath.ToSlash(got) == filepath.ToSlash(want) }
