package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// quotedPathRe finds what a page quotes in backticks.
var quotedPathRe = regexp.MustCompile("`([^`\n]+)`")

// goIdentRe matches a package's identifier (internal/cli.Version), not a
// file.
var goIdentRe = regexp.MustCompile(`\.[A-Z][A-Za-z0-9_]*$`)

// repoTops are the repository's top-level entries: a quoted path that
// starts with one of them names a file of this repository.
func repoTops(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	tops := map[string]bool{}
	for _, e := range entries {
		if e.Name() != ".git" {
			tops[e.Name()] = true
		}
	}
	return tops
}

// missingPaths are the repository paths md quotes in backticks
// ("installer/extract.go", "validate/network.go:281", "agents/") that do
// not exist under root. A quote with a placeholder or a pattern
// ("agents/<id>/agent.json", "*.go"), a URL or a space is not a path.
func missingPaths(md, root string, tops map[string]bool) []string {
	var out []string
	for _, m := range quotedPathRe.FindAllStringSubmatch(md, -1) {
		p := m[1]
		if strings.ContainsAny(p, " <>*{}$|?…") || strings.Contains(p, "://") || goIdentRe.MatchString(p) || !strings.Contains(p, "/") && !tops[p] {
			continue
		}
		p, _, _ = strings.Cut(p, "#")
		if i := strings.IndexByte(p, ':'); i > 0 { // file.go:12 or file.go:12:3
			p = p[:i]
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(p, "./"), "/")
		if !tops[first] {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// TestQuotedPathsExist: every repository path a page quotes in backticks
// exists, so a page does not send a reader to a file that moved (issue 27).
func TestQuotedPathsExist(t *testing.T) {
	tops := repoTops(t)
	pages, _ := filepath.Glob("*.md")
	pages = append(pages, "../README.md")
	for _, page := range pages {
		for _, p := range missingPaths(read(t, page), "..", tops) {
			t.Errorf("%s quotes `%s`, which is not in the repository: name the file where it is now", page, p)
		}
	}
}

func TestQuotedPathsCheckCanFail(t *testing.T) {
	tops := repoTops(t)
	md := "See `installer/extract.go`, `validate/network.go:281`, `registry/`, `agents/<id>/agent.json`, `a/b`, `go.mod`, `cmd/…`, `internal/cli.Version` and `README.md#top`."
	got := missingPaths(md, "..", tops)
	if len(got) != 1 || got[0] != "installer/extract.go" {
		t.Errorf("missing paths = %q, want only installer/extract.go", got)
	}
}
