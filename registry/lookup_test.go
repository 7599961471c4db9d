package registry

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// Ids of the public registry, as typed by users.
var publicIDs = []string{"auggie", "claude-agent", "codex-acp", "fast-agent", "gemini", "github-copilot", "goose", "kilo", "octomind", "qwen-code"}

func TestSuggestOffersOnlyWhatIsClose(t *testing.T) {
	for q, want := range map[string]string{
		"claud":   "claude-agent",
		"claude":  "claude-agent",
		"cladue":  "claude-agent", // two letters swapped: one typo
		"gemeni":  "gemini",
		"gemin":   "gemini",
		"copilot": "github-copilot",
		"qewn":    "qwen-code",
		"octomnd": "octomind",
		// Not close to anything: no suggestion rather than a wrong one.
		"nope":   "",
		"zzzzzz": "",
		"geese":  "",
		"x":      "",
		"a b":    "",
		"":       "",
	} {
		got := strings.Join(Suggest(q, publicIDs, 3), ",")
		if want == "" && got != "" || !strings.HasPrefix(got, want) {
			t.Errorf("Suggest(%q) = %q, want it to start with %q", q, got, want)
		}
	}
}

func TestLookupByIDSlugAndName(t *testing.T) {
	idx := &Index{Agents: []Manifest{{ID: "claude-acp", Name: "Claude Agent"}, {ID: "gemini", Name: "Gemini CLI"}}}
	for q, want := range map[string]string{"gemini": "gemini", "claude-agent": "claude-acp", "Gemini CLI": "gemini"} {
		if m, err := idx.Lookup(q); err != nil || m.ID != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", q, m, err, want)
		}
	}
	_, err := idx.Lookup("gemin")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) || strings.Join(nf.Candidates, ",") != "gemini" || nf.Hint() != "did you mean gemini?" {
		t.Fatalf("Lookup(gemin) = %v (%#v)", err, nf)
	}
	if err.Error() != `no agent "gemin" in the registry` {
		t.Errorf("message %q", err)
	}
	two := &Index{Agents: []Manifest{{ID: "a-one", Name: "Same"}, {ID: "a-two", Name: "Same"}}}
	_, err = two.Lookup("same")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || !strings.Contains(err.Error(), "a-one, a-two") {
		t.Fatalf("ambiguous name: %v", err)
	}
}

func TestSearchMatchesEveryWord(t *testing.T) {
	idx := &Index{Agents: []Manifest{
		{ID: "fake", Name: "Fake Agent", Description: "A test agent that echoes its arguments"},
		{ID: "other", Name: "Other Helper", Description: "An npx agent"},
	}}
	ids := func(ms []*Manifest) string {
		var s []string
		for _, m := range ms {
			s = append(s, m.ID)
		}
		return strings.Join(s, ",")
	}
	for term, want := range map[string]string{"ECHOES its": "fake", "agent": "fake,other", "helper npx": "other", "  ": "", "nothing": ""} {
		if got := ids(idx.Search(term)); got != want {
			t.Errorf("Search(%q) = %q, want %q", term, got, want)
		}
	}
}

// Suggestions look for ids one typo away, so an id far longer than the
// query (a hostile index's 10 MB id) costs nothing to rule out.
func TestSuggestIgnoresFarLongerIDs(t *testing.T) {
	ids := []string{"z" + strings.Repeat("a", 10<<20), "good"}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := Suggest("goad", ids, 3)
	runtime.ReadMemStats(&after)
	if len(got) != 1 || got[0] != "good" {
		t.Errorf("Suggest = %q, want good", got)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("Suggest allocated %d MiB for one long id", n>>20)
	}
}
