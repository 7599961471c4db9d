package validate

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// The real registry: every agent gets a verdict, and exactly the agents a
// maintainer would reject are invalid, for those reasons.
func TestCorpus(t *testing.T) {
	root := testkit.RequireCorpus(t)
	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := os.ReadDir(root)
	want := 0
	for _, d := range dirs {
		if d.IsDir() && !strings.HasPrefix(d.Name(), "_") {
			want++
		}
	}
	if len(rep.Agents) != want {
		t.Errorf("%d agents judged, want %d", len(rep.Agents), want)
	}
	// Manifest rules (icon rules are package icons' own test) of every
	// agent with an error.
	wantInvalid := map[string]string{
		"aider-acp":     "icon-missing package-latest schema", // authors are objects, pinned to @latest
		"chump":         "binary-archive-format",              // .tar.xz
		"kiro":          "binary-archive-format",              // .dmg and .msi
		"mammouth-code": "version-semver",                     // 1.18.31.1
		"contenox":      "icon-missing", "deel": "icon-missing", "dsh-acp": "icon-missing", "elph": "icon-missing",
		"fivedive": "icon-missing", "flixa": "icon-missing", "harn": "icon-missing",
		// icons the corpus README lists as breaking the published rules
		// (cline, crow-cli, cursor, devin, felan, qwen-code and spirit only letterbox: a warning)
		"bob": "", "cursor-acp": "", "grok-cli": "", "hermes-agent": "", "hive": "", "iflow-cli": "", "pando": "",
	}
	got := map[string]string{}
	for _, a := range rep.Agents {
		if a.Valid {
			continue
		}
		set := map[string]bool{}
		for _, p := range a.Problems {
			if p.Severity == SeverityError && (!strings.HasPrefix(p.Rule, "icon-") || p.Rule == RuleIconMissing) {
				set[p.Rule] = true
			}
		}
		var rules []string
		for r := range set {
			rules = append(rules, r)
		}
		sort.Strings(rules)
		got[a.ID] = strings.Join(rules, " ")
	}
	for id, rules := range wantInvalid {
		g, ok := got[id]
		if !ok {
			t.Errorf("%s: valid, want invalid (%s)", id, rules)
		} else if g != rules {
			t.Errorf("%s: manifest errors %q, want %q", id, g, rules)
		}
	}
	for id, rules := range got {
		if _, ok := wantInvalid[id]; !ok {
			t.Errorf("%s: unexpectedly invalid: %s %+v", id, rules, byID(t, rep, id).Problems)
		}
	}
	// Spot checks of what the old CI missed.
	if a := byID(t, rep, "cursor"); !hasRule(a, RuleVersionLeadingZero) {
		t.Errorf("cursor 2026.10.01: no leading-zero warning: %v", rulesOf(a))
	}
	if a := byID(t, rep, "gptme"); !hasRule(a, RulePackageUnpinned) {
		t.Errorf("gptme: unpinned package not reported: %v", rulesOf(a))
	}
	if a := byID(t, rep, "aither-adk"); !a.Valid {
		t.Errorf("aither-adk (CRLF) invalid: %+v", a.Problems)
	}
}
