package validate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// problemsOf runs validate on root (lean or not) and returns every
// problem of the registry's files, and the agents' ids with their rules.
func problemsOf(t *testing.T, root string, lean bool) (files []Problem, agents map[string][]string) {
	t.Helper()
	rep, err := Run(context.Background(), []string{root}, Options{SkipURLs: true, Lean: lean})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Files {
		files = append(files, f.Problems...)
	}
	agents = map[string][]string{}
	rep.Each(func(a *AgentResult) error {
		agents[a.ID] = rulesOf(a)
		return nil
	})
	return files, agents
}

// custom_agent_sources/<id>.json is a registry file, judged like
// variants.json (duplicate keys, its shape, an agent it names), and its
// folder is never an agent (no manifest-missing warning).
func TestFeedSourcesJudged(t *testing.T) {
	root := t.TempDir()
	writeAgent(t, root, "opencode", manifestFor("opencode"), goodIcon)
	good := `{"feed": "https://opencode.ai/feed", "assets": {"linux-x86_64": "oc-linux.tar.gz"}, "url": "https://opencode.ai/{version}/{file}"}`
	writeFile(t, filepath.Join(root, FeedSourcesDir, "opencode.json"), good)
	writeFile(t, filepath.Join(root, FeedSourcesDir, "opencode.py"), "# upstream's module, not read\n")
	for _, lean := range []bool{false, true} {
		files, agents := problemsOf(t, root, lean)
		if len(files) != 0 || len(agents) != 1 || len(agents["opencode"]) != 0 {
			t.Fatalf("lean %v: a good feed source: files %v, agents %v", lean, files, agents)
		}
	}
	for name, c := range map[string]struct{ file, body, rule, msg string }{
		"duplicate key": {"opencode.json", `{"feed": "https://opencode.ai/feed", "feed": "https://evil.example/feed", "assets": {"linux-x86_64": "a"}, "url": "https://x/{version}/{file}"}`, RuleJSONSyntax, `duplicate field "feed"`},
		"syntax":        {"opencode.json", `{"feed": `, RuleJSONSyntax, ""},
		"unknown key":   {"opencode.json", `{"feed": "https://a/f", "assets": {"linux-x86_64": "a"}, "url": "https://x/{version}/{file}", "feeed": 1}`, RuleFeedSource, `"feeed"`},
		"not https":     {"opencode.json", `{"feed": "ftp://a/f", "assets": {"linux-x86_64": "a"}, "url": "https://x/{version}/{file}"}`, RuleFeedSource, `"feed"`},
		"no assets":     {"opencode.json", `{"feed": "https://a/f", "assets": {}, "url": "https://x/{version}/{file}"}`, RuleFeedSource, `"assets"`},
		"platform":      {"opencode.json", `{"feed": "https://a/f", "assets": {"linux-mips": "a"}, "url": "https://x/{version}/{file}"}`, RuleFeedSource, `"linux-mips"`},
		"url":           {"opencode.json", `{"feed": "https://a/f", "assets": {"linux-x86_64": "a"}, "url": "https://x/latest/a"}`, RuleFeedSource, `{version}`},
		"no agent":      {"opencod.json", good, RuleFeedSource, "names no agent"},
		"not an id":     {"Open Code.json", good, RuleFeedSource, "agent id"},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeAgent(t, root, "opencode", manifestFor("opencode"), goodIcon)
			writeFile(t, filepath.Join(root, FeedSourcesDir, c.file), c.body)
			for _, lean := range []bool{false, true} {
				files, agents := problemsOf(t, root, lean)
				if len(agents) != 1 {
					t.Errorf("lean %v: agents %v: custom_agent_sources is not an agent", lean, agents)
				}
				found := false
				for _, p := range files {
					if p.Rule == c.rule && strings.Contains(p.Message, c.msg) && strings.HasSuffix(p.File, FeedSourcesDir+"/"+c.file) && p.Severity == SeverityError {
						found = true
					}
				}
				if !found {
					t.Errorf("lean %v: want a %s error under %s saying %q, got %+v", lean, c.rule, c.file, c.msg, files)
				}
			}
		})
	}
}

// A variant name becomes a file name (registry-<name>-preview.json):
// validate refuses one that build could not write.
func TestVariantNameBounded(t *testing.T) {
	long := strings.Repeat("a", 300)
	ok := strings.Repeat("b", MaxVariantName)
	_, probs := ParseVariants("variants.json", []byte(`{"`+long+`": {"exclude": []}, "`+ok+`": {"channels": ["stable", "preview"]}}`), nil)
	if len(probs) != 1 || probs[0].Pointer != "/"+long || !strings.Contains(probs[0].Message, "characters") {
		t.Fatalf("problems %+v, want one for the 300-character name", probs)
	}
	if n := len("registry-" + ok + "-preview.json"); n > 255 {
		t.Errorf("the longest name allowed makes a %d-byte file name", n)
	}
}

// An index that variants.json leaves without any agent is an error, not
// an empty registry.json.
func TestVariantExcludingEveryAgent(t *testing.T) {
	ids := map[string]bool{"a": true, "b": true}
	for _, doc := range []string{`{"registry": {"exclude": ["a", "b"]}}`, `{"jb": {"exclude": ["b", "a"]}}`} {
		_, probs := ParseVariants("variants.json", []byte(doc), ids)
		if len(probs) != 1 || !strings.Contains(probs[0].Message, "every agent") {
			t.Errorf("%s: problems %+v, want one saying it excludes every agent", doc, probs)
		}
	}
	if _, probs := ParseVariants("variants.json", []byte(`{"registry": {"exclude": ["a"]}}`), ids); len(probs) != 0 {
		t.Errorf("excluding one of two: %+v", probs)
	}
}
