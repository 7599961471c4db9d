package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// README fits its readers (issue 22): short, naming the two commands,
// linking only into the repository, with an index of docs/ that lists
// every page.
func TestReadmeFits(t *testing.T) {
	readme := read(t, "../README.md")
	if n := strings.Count(readme, "\n"); n >= 200 {
		t.Errorf("README.md has %d lines: move detail into docs/ (under 200)", n)
	}
	for _, cmd := range []string{"go run ./cmd/acp install claude-agent", "go test ./..."} {
		if !strings.Contains(readme, cmd) {
			t.Errorf("README.md does not name %q", cmd)
		}
	}
	for _, section := range []string{"## Install", "## Two commands", "## For developers", "## For editors", "## For maintainers", "## Documentation"} {
		if !strings.Contains(readme, "\n"+section+"\n") {
			t.Errorf("README.md has no section %q", section)
		}
	}
	for _, p := range badLinks(t, "../README.md", readme, "..") {
		t.Error(p)
	}
	index := read(t, "README.md")
	pages, _ := filepath.Glob("*.md")
	for _, page := range pages {
		if page != "README.md" && !strings.Contains(index, "]("+page+")") {
			t.Errorf("docs/README.md does not list %s", page)
		}
	}
}

// badLinks are the links of a page (at path, its links relative to dir)
// that leave the repository or lead nowhere.
func badLinks(t *testing.T, path, md, dir string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`\]\(([^)\s]+)\)`).FindAllStringSubmatch(md, -1) {
		target := m[1]
		if strings.Contains(target, "://") {
			out = append(out, path+" links outside the repository: "+target)
			continue
		}
		file, anchor, _ := strings.Cut(target, "#")
		full := path
		if file != "" {
			full = filepath.Join(dir, file)
		}
		text, err := os.ReadFile(full)
		if err != nil {
			out = append(out, path+" links to "+target+", which does not exist")
			continue
		}
		if anchor != "" && !slices.Contains(anchors(string(text)), anchor) {
			out = append(out, path+" links to "+target+": no such heading")
		}
	}
	return out
}

func TestReadmeCheckCanFail(t *testing.T) {
	got := badLinks(t, "../README.md", "[a](https://example.com) [b](docs/nope.md) [c](docs/cli.md#nope) [d](docs/cli.md#exit-codes)", "..")
	if len(got) != 3 {
		t.Errorf("bad links found: %q, want 3", got)
	}
}
