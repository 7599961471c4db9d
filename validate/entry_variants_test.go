package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// variantsProblems validates a registry of agents a (npx) and b (binary,
// with a newer preview) plus variantsJSON, and returns the problems
// reported under variants.json.
func variantsProblems(t *testing.T, variantsJSON string) []Problem {
	t.Helper()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a", "agent.json"), manifestFor("a"))
	writeFile(t, filepath.Join(root, "a", "icon.svg"), goodIcon)
	writeFile(t, filepath.Join(root, "b", "agent.json"), `{
  "id": "b",
  "name": "B",
  "version": "1.0.0",
  "description": "binary agent with a preview",
  "license_url": "https://example.com/license",
  "distribution": {"binary": {
    "linux-x86_64": {"archive": "https://example.com/b/releases/download/v1.0.0/b.tar.gz", "cmd": "./b"},
    "darwin-aarch64": {"archive": "https://example.com/b/releases/download/v1.0.0/b-mac.tar.gz", "cmd": "./b"},
    "windows-x86_64": {"archive": "https://example.com/b/releases/download/v1.0.0/b.zip", "cmd": "b.exe"}
  }},
  "preview": {"version": "1.1.0-preview.1", "distribution": {"npx": {"package": "b-acp@1.1.0-preview.1"}}}
}
`)
	writeFile(t, filepath.Join(root, "b", "icon.svg"), goodIcon)
	writeFile(t, filepath.Join(root, VariantsFile), variantsJSON)
	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rep.Agents {
		for _, p := range a.Problems {
			if p.Severity == SeverityError {
				t.Fatalf("unexpected problem of agent %s in %s: %s", a.ID, p.File, p.Message)
			}
		}
	}
	if rep.Summary.Agents != 2 || len(rep.Files) != 1 || filepath.Base(rep.Files[0].File) != VariantsFile {
		t.Fatalf("report: summary %+v, files %+v; want 2 agents and variants.json apart", rep.Summary, rep.Files)
	}
	return rep.Files[0].Problems
}

func TestVariantsValid(t *testing.T) {
	probs := variantsProblems(t, `{
  "registry": {"exclude": ["b"]},
  "jetbrains": {
    "exclude": ["a"],
    "channels": ["stable", "preview"],
    "fields": ["bundled"],
    "patch": {
      "a": {"distribution": {"npx": {"args": ["--hide-auth"], "bundled": true}}},
      "b": {"name": "B for JetBrains", "bundled": true}
    },
    "append": {"a": {"/distribution/npx/args": ["--hide-claude-auth"]}}
  }
}`)
	for _, p := range probs {
		t.Errorf("%d:%d %s: %s", p.Line, p.Column, p.Rule, p.Message)
	}
}

// Each problem is reported under variants.json at the value that causes
// it, with the rule a contributor can look up.
func TestVariantsProblems(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		line, col  int
		rule, want string
	}{
		{"syntax", "{\n  \"jb\": {},\n}", 2, 11, RuleJSONSyntax, "trailing comma"},
		{"not an object", `[]`, 1, 1, RuleVariants, "keyed by variant name"},
		{"bad name", `{"Bad Name": {}}`, 1, 2, RuleVariants, `variant name "Bad Name"`},
		{"preview name", `{"preview": {}}`, 1, 2, RuleVariants, `not be "preview"`},
		{"unknown id", "{\"jb\": {\n  \"exclude\": [\"nope\"]}}", 2, 15, RuleVariants, `variant "jb" excludes "nope"`},
		{"unknown patch id", `{"jb": {"patch": {"nope": {}}}}`, 1, 19, RuleVariants, `patches "nope"`},
		{"patch not object", `{"jb": {"patch": {"a": []}}}`, 1, 24, RuleVariants, "must be an object"},
		{"unknown key", `{"jb": {"remove": ["a"]}}`, 1, 9, RuleVariants, `unknown field "remove"`},
		{"bad channel", `{"jb": {"channels": ["beta"]}}`, 1, 22, RuleVariants, `channel "beta"`},
		{"main patches", `{"registry": {"patch": {"a": {"name": "x"}}}}`, 1, 15, RuleVariants, `takes only "exclude"`},
		{"file clash", `{"jb": {"channels": ["stable", "preview"]}, "jb-preview": {}}`, 1, 45, RuleVariants, "both write registry-jb-preview.json"},
		{"id change", `{"jb": {"patch": {"a": {"id": "z"}}}}`, 1, 25, RuleVariants, `may not change "id"`},
		{"icon change", `{"jb": {"patch": {"a": {"icon": "https://evil.example/x.svg"}}}}`, 1, 25, RuleVariants, `may not change "icon"`},
		{"reserved env", `{"jb": {"patch": {"a": {"distribution": {"npx": {"env": {"PATH": "/tmp"}}}}}}}`, 1, 66, RuleEnvReserved, `patch of "a"`},
		{"http archive", `{"jb": {"patch": {"b": {"distribution": {"binary": {"linux-x86_64": {"archive": "http://example.com/b/releases/download/v1.0.0/b.tar.gz"}}}}}}}`, 1, 81, RuleBinaryArchiveHTTPS, ""},
		{"bad format", `{"jb": {"patch": {"b": {"distribution": {"binary": {"linux-x86_64": {"archive": "https://example.com/b/releases/download/v1.0.0/b.dmg"}}}}}}}`, 1, 81, RuleBinaryArchiveFormat, ""},
		{"cmd escapes", `{"jb": {"patch": {"b": {"distribution": {"binary": {"linux-x86_64": {"cmd": "../../bin/sh"}}}}}}}`, 1, 77, RuleBinaryCmdPath, ""},
		{"pin moved", `{"jb": {"patch": {"a": {"distribution": {"npx": {"package": "a-acp@2.0.0"}}}}}}`, 1, 61, RulePackageVersionMismatch, ""},
		{"required deleted", `{"jb": {"patch": {"a": {"distribution": null}}}}`, 1, 24, RuleSchema, ""},
		{"wrong type", `{"jb": {"patch": {"a": {"version": 3}}}}`, 1, 36, RuleSchema, ""},
		{"control text", `{"jb": {"patch": {"a": {"name": "A\u001b[2J"}}}}`, 1, 33, "text-control", "control"},
		{"field not declared", `{"jb": {"patch": {"a": {"distribution": {"npx": {"bundled": true}}}}}}`, 1, 61, RuleSchema, ""},
		{"top-level field undeclared", `{"jb": {"patch": {"a": {"bundled": true}}}}`, 1, 36, RuleUnknownField, `named in the variant's "fields"`},
		{"top-level field reserved", `{"jb": {"fields": ["license"]}}`, 1, 20, RuleVariants, "cannot be a client-specific field"},
		{"append unknown id", `{"jb": {"append": {"nope": {}}}}`, 1, 20, RuleVariants, `appends to "nope"`},
		{"append not args", `{"jb": {"append": {"a": {"/name": ["x"]}}}}`, 1, 26, RuleVariants, "is not an argument list"},
		{"append not strings", `{"jb": {"append": {"a": {"/distribution/npx/args": [1]}}}}`, 1, 53, RuleVariants, "list of strings"},
		{"append unsafe", `{"jb": {"append": {"a": {"/distribution/npx/args": ["\u001b[2J"]}}}}`, 1, 53, "text-control", "control"},
		{"append missing object", `{"jb": {"append": {"a": {"/distribution/uvx/args": ["-x"]}}}}`, 1, 20, RuleVariants, `has no object "uvx"`},
		{"unsafe field value", `{"jb": {"fields": ["bundled"], "patch": {"a": {"distribution": {"npx": {"bundled": "\u202e"}}}}}}`, 1, 84, "text-control", "control or bidirectional"},
		{"reserved field name", `{"jb": {"fields": ["args"]}}`, 1, 20, RuleVariants, "cannot be a client-specific field"},
		{"preview pin moved", `{"jb": {"channels": ["stable", "preview"], "patch": {"b": {"distribution": {"npx": {"package": "b-acp@9.9.9"}}}}}}`, 1, 96, "", "preview.version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs := variantsProblems(t, tc.json)
			var got []string
			for _, p := range probs {
				if (tc.rule == "" || p.Rule == tc.rule) && strings.Contains(p.Message, tc.want) && p.Line == tc.line && p.Column == tc.col && p.Severity == SeverityError {
					return
				}
				got = append(got, p.Rule+" "+itoa(p.Line)+":"+itoa(p.Column)+" "+p.Message)
			}
			t.Errorf("want %s at %d:%d containing %q; got %q", tc.rule, tc.line, tc.col, tc.want, got)
		})
	}
}

func itoa(n int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(n))
}

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for n > 0 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}

// Every problem of variants.json in one run: a wrong id does not hide a
// patch that breaks a rule.
func TestVariantsAllProblemsAtOnce(t *testing.T) {
	probs := variantsProblems(t, `{"jb": {"exclude": ["nope"], "patch": {"a": {"distribution": {"npx": {"env": {"PATH": "/x"}}}}}}}`)
	rules := map[string]bool{}
	for _, p := range probs {
		rules[p.Rule] = true
	}
	if !rules[RuleVariants] || !rules[RuleEnvReserved] || len(probs) != 2 {
		t.Errorf("problems %+v, want the unknown id and the reserved env", probs)
	}
}

// A patch that changes the icon does not hide its other problems, nor
// those of other patches and variants.
func TestVariantsIconPatchHidesNothing(t *testing.T) {
	probs := variantsProblems(t, `{
  "jb": {"patch": {"a": {"icon": "https://evil.example/x.svg", "distribution": {"npx": {"env": {"PATH": "/x"}}}}}},
  "zed": {"exclude": ["nope"], "patch": {"b": {"version": "1.0"}}}
}`)
	got := map[string]int{}
	for _, p := range probs {
		got[p.Rule+" "+p.Pointer]++
	}
	for _, want := range []string{
		RuleVariants + " /jb/patch/a/icon",
		RuleEnvReserved + " /jb/patch/a/distribution/npx/env/PATH",
		RuleVariants + " /zed/exclude/0",
		RuleVersionSemver + " /zed/patch/b/version",
	} {
		if got[want] != 1 {
			t.Errorf("want one %s, got %v", want, got)
		}
	}
}

// variants.json is a file of the registry, not an agent: the summary
// counts agents only, its problems are listed apart in every format, and
// they still fail the run.
func TestVariantsReportedApart(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a", "agent.json"), manifestFor("a"))
	writeFile(t, filepath.Join(root, "a", "icon.svg"), goodIcon)
	writeFile(t, filepath.Join(root, VariantsFile), `{"jb": {"exclude": ["nope"]}}`)
	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rep.Agents {
		if a.ID == VariantsFile {
			t.Errorf("variants.json is listed as an agent")
		}
	}
	if rep.Summary != (Summary{Agents: 1, Invalid: 0, Errors: 1}) || !rep.HasErrors() {
		t.Errorf("summary %+v, want 1 agent, none invalid, 1 error (the file's), failing", rep.Summary)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Agents []struct{ ID string }
		Files  []struct {
			File     string
			Valid    bool
			Problems []Problem
		}
		Summary Summary
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Agents) != 1 || len(doc.Files) != 1 || doc.Files[0].Valid || len(doc.Files[0].Problems) != 1 ||
		filepath.Base(doc.Files[0].File) != VariantsFile || doc.Files[0].Problems[0].Rule != RuleVariants {
		t.Errorf("JSON report:\n%s", js.String())
	}

	var text bytes.Buffer
	if err := WriteText(&text, rep, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	show := rep.Files[0].File
	for _, want := range []string{show + ": 1 error\n" + show + ":1:21: error variants: ", "1 agent valid; variants.json: 1 error\n"} {
		if !bytes.Contains(text.Bytes(), []byte(want)) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}

	var gh, sum bytes.Buffer
	if err := WriteGitHub(&gh, &sum, rep); err != nil {
		t.Fatal(err)
	}
	// A property value escapes %, : and , (C: on Windows).
	ghShow := strings.NewReplacer("%", "%25", ":", "%3A", ",", "%2C").Replace(show)
	if !bytes.Contains(gh.Bytes(), []byte("::error file="+ghShow+",line=1,")) || !bytes.Contains(sum.Bytes(), []byte(`| variants\.json |`)) {
		t.Errorf("GitHub output lacks the variants.json annotation or row:\n%s\n%s", gh.String(), sum.String())
	}
}
