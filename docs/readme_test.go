package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/config"
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

// The install line, the Action and the pre-commit snippets of README and
// docs/ name what one version tag publishes (issue 22: they named tags
// that did not exist): the same vX.Y.Z, its major vX for the Action, and
// assets that build.sh writes and release.yml publishes on such a tag.
func TestSnippetsNameWhatATagPublishes(t *testing.T) {
	pages := map[string]string{"README.md": read(t, "../README.md"), "action.md": read(t, "action.md"), "release.md": read(t, "release.md")}
	installRe := regexp.MustCompile(`releases/download/(v\d+\.\d+\.\d+)/(install\.sh|acp-[a-z]+-[a-z0-9]+\.(?:tar\.gz|zip)|SHA256SUMS)`)
	revRe := regexp.MustCompile(`rev: (v\d+\.\d+\.\d+)`)
	usesRe := regexp.MustCompile(`uses: agentclientprotocol/acp-registry-go@(v\d+)\b`)
	tags := map[string]bool{}
	var majors []string
	for name, md := range pages {
		for _, m := range installRe.FindAllStringSubmatch(md, -1) {
			tags[m[1]] = true
		}
		for _, m := range revRe.FindAllStringSubmatch(md, -1) {
			tags[m[1]] = true
		}
		for _, m := range usesRe.FindAllStringSubmatch(md, -1) {
			majors = append(majors, m[1])
		}
		if name == "README.md" && (!installRe.MatchString(md) || !revRe.MatchString(md) || !usesRe.MatchString(md)) {
			t.Errorf("README.md lacks the install line, the pre-commit rev or the Action's uses")
		}
	}
	if len(tags) != 1 {
		t.Fatalf("the snippets name several release tags: %v", tags)
	}
	var tag string
	for tag = range tags {
	}
	for _, m := range majors {
		if !strings.HasPrefix(tag, m+".") {
			t.Errorf("uses: …@%s does not follow %s", m, tag)
		}
	}
	build := read(t, "../.github/release/build.sh")
	for _, want := range []string{"archive=acp-$goos-$goarch.tar.gz", "archive=acp-$goos-$goarch.zip", `"$out/install.sh"`, "SHA256SUMS"} {
		if !strings.Contains(build, want) {
			t.Errorf("build.sh no longer writes %s", want)
		}
	}
	wf := read(t, "../.github/workflows/release.yml")
	for _, want := range []string{`tags: ["v[0-9]+.[0-9]+.[0-9]+"`, `.github/release/build.sh "$RUNNER_TEMP/bin" "$TAG"`, `"$RUNNER_TEMP"/bin/*`, `push --force origin "$commit:refs/tags/$major"`} {
		if !strings.Contains(wf, want) {
			t.Errorf("release.yml no longer has %s", want)
		}
	}
}

// Every ACP_* variable developers.md documents, but the one naming the
// file itself, is a key of the config file (issue 22: "keys mirror the
// ACP_* variables").
func TestConfigKeysMirrorTheVariables(t *testing.T) {
	names := regexp.MustCompile("`ACP_([A-Z_]+)`").FindAllStringSubmatch(read(t, "developers.md"), -1)
	if len(names) < 5 {
		t.Fatalf("developers.md names %d ACP_* variables: has its table moved?", len(names))
	}
	for _, m := range names {
		key := strings.ToLower(m[1])
		if key == "config" {
			continue
		}
		if !slices.Contains(config.Keys, key) {
			t.Errorf("ACP_%s is documented but the config file has no key %q (internal/config.Keys)", m[1], key)
		}
	}
}
