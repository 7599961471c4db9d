package update

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The platforms of upstream's OpenCode feed and their files (its
// custom_agent_sources/opencode_v2.py), as our data says them.
var feedAssets = map[string]string{
	"darwin-aarch64": "opencode-darwin-arm64.zip", "darwin-x86_64": "opencode-darwin-x64.zip",
	"linux-aarch64": "opencode-linux-arm64.tar.gz", "linux-x86_64": "opencode-linux-x64.tar.gz",
	"windows-aarch64": "opencode-windows-arm64.zip", "windows-x86_64": "opencode-windows-x64.zip",
}

// feedTree is upstream's test entry (opencode-v2 at 2.0.22, a binary of
// every platform with an archive, sha256 and cmd) and its feed source,
// with the feed and files served by f.
func feedTree(t *testing.T, f *fake) (root, path string) {
	root = t.TempDir()
	var targets []string
	for _, plat := range []string{"darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64"} {
		targets = append(targets, fmt.Sprintf("      %q: {\"archive\": \"%s/dl/bin/2.0.22/%s\", \"sha256\": \"%s\", \"cmd\": \"./opencode\"}",
			plat, f.srv.URL, feedAssets[plat], strings.Repeat("b", 64)))
	}
	manifest := "{\n  \"id\": \"opencode-v2\",\n  \"name\": \"OpenCode\",\n  \"version\": \"2.0.22\",\n  \"description\": \"d\",\n" +
		"  \"repository\": \"https://github.com/anomalyco/opencode\",\n  \"distribution\": {\n    \"binary\": {\n" + strings.Join(targets, ",\n") + "\n    }\n  }\n}\n"
	path = writeAgent(t, root, "opencode-v2", manifest)
	var assets []string
	for plat, file := range feedAssets {
		assets = append(assets, fmt.Sprintf("%q: %q", plat, file))
	}
	src := fmt.Sprintf(`{"feed": %q, "name": "cli", "distribution": "opencode", "assets": {%s}, "url": "%s/dl/bin/{version}/{file}"}`,
		f.srv.URL+"/feed", strings.Join(assets, ", "), f.srv.URL)
	os.MkdirAll(filepath.Join(root, SourcesDir), 0o755)
	os.WriteFile(filepath.Join(root, SourcesDir, "opencode-v2.json"), []byte(src), 0o644)
	// Upstream's module beside ours is not read.
	os.WriteFile(filepath.Join(root, SourcesDir, "opencode_v2.py"), []byte("# upstream's code\n"), 0o644)
	return root, path
}

// upstreamFeed is the feed document of upstream's test: 2.0.23 with every
// file at its versioned URL and a digest.
func upstreamFeed(f *fake) map[string]any {
	files := map[string]any{}
	for _, file := range feedAssets {
		files[file] = map[string]any{"url": f.srv.URL + "/dl/bin/2.0.23/" + file, "sha256": strings.Repeat("a", 64)}
	}
	return map[string]any{"version": "2.0.23", "name": "cli", "distribution": "opencode", "metadata": map[string]any{"files": files}}
}

// An agent released outside GitHub is updated from its feed: the version,
// every archive URL and every sha256 the feed's, cmd untouched, and
// GitHub never asked (upstream's test_updates_all_binary_urls_and_checksums).
func TestFeedUpdatesEveryTarget(t *testing.T) {
	f := newFake(t)
	root, path := feedTree(t, f)
	f.feed = upstreamFeed(f)
	opts := f.options(t, root)
	feeds, err := LoadFeedSources(root)
	if err != nil {
		t.Fatal(err)
	}
	opts.Feeds, opts.Apply = feeds, true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 0 || len(rep.Updates) != 1 || rep.Updates[0].Latest != "2.0.23" || rep.Updates[0].Source != SourceFeed || !rep.Updates[0].Applied {
		t.Fatalf("report %+v", rep)
	}
	got := readFile(t, path)
	if strings.Count(got, "/dl/bin/2.0.23/") != 6 || strings.Count(got, strings.Repeat("a", 64)) != 6 || strings.Count(got, `"./opencode"`) != 6 ||
		!strings.Contains(got, `"version": "2.0.23"`) || strings.Contains(got, "2.0.22") {
		t.Errorf("rewritten manifest:\n%s", got)
	}
	for p, n := range f.hits {
		if strings.HasPrefix(p, "/gh/") || strings.HasPrefix(p, "/dl/") {
			t.Errorf("%s was fetched %d times (the feed gives every digest)", p, n)
		}
	}
}

// A feed that cannot give a whole release changes nothing and is an
// error (upstream's test_rejects_unusable_feed): a platform missing, a
// bad digest, another version's URL, a pre-release, no feed at all.
func TestFeedRefusesUnusableFeeds(t *testing.T) {
	for _, fault := range []string{"missing_platform", "checksum", "wrong_version_url", "prerelease", "unavailable", "other_product"} {
		t.Run(fault, func(t *testing.T) {
			f := newFake(t)
			root, path := feedTree(t, f)
			feed := upstreamFeed(f)
			files := feed["metadata"].(map[string]any)["files"].(map[string]any)
			name := feedAssets["windows-aarch64"]
			switch fault {
			case "missing_platform":
				delete(files, name)
			case "checksum":
				files[name].(map[string]any)["sha256"] = "bad"
			case "wrong_version_url":
				files[name].(map[string]any)["url"] = f.srv.URL + "/dl/bin/2.0.22/old.zip"
			case "prerelease":
				feed["version"] = "2.0.24-preview.1"
			case "other_product":
				feed["name"] = "desktop"
			case "unavailable":
				feed = nil
			}
			if feed != nil {
				f.feed = feed
			}
			before := readFile(t, path)
			opts := f.options(t, root)
			opts.Feeds, _ = LoadFeedSources(root)
			opts.Apply = true
			rep, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Errors) != 1 || len(rep.Updates) != 0 || readFile(t, path) != before {
				t.Errorf("report %+v", rep)
			}
		})
	}
}

// A feed description that is not one names its file.
func TestLoadFeedSourcesErrors(t *testing.T) {
	for name, body := range map[string]string{
		"opencode.json": `{"feed": "https://x.example/f", "assets": {"linux-x86_64": "a"}, "url": "https://x.example/{version}"}`,
		"Bad Id.json":   `{}`,
		"extra.json":    `{"feed": "https://x.example/f", "assets": {"linux-x86_64": "a"}, "url": "https://x/{version}/{file}", "code": "x"}`,
		"plat.json":     `{"feed": "https://x.example/f", "assets": {"beos-m68k": "a"}, "url": "https://x/{version}/{file}"}`,
		// Sound, but of no agent (a typo in the id): the agent it was
		// meant for would be looked up on GitHub instead, silently.
		"ghost.json": `{"feed": "https://x.example/f", "assets": {"linux-x86_64": "a"}, "url": "https://x/{version}/{file}"}`,
	} {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, SourcesDir), 0o755)
		os.WriteFile(filepath.Join(root, SourcesDir, name), []byte(body), 0o644)
		if _, err := LoadFeedSources(root); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if s, err := LoadFeedSources(t.TempDir()); err != nil || len(s) != 0 {
		t.Errorf("no folder: %v %v", s, err)
	}
}

// A target without sha256 gets the feed's digest, written after its
// archive; the rest of the file keeps its formatting.
func TestFeedAddsAMissingDigest(t *testing.T) {
	f := newFake(t)
	root, path := feedTree(t, f)
	f.feed = upstreamFeed(f)
	orig := readFile(t, path)
	noSum := strings.Replace(orig, `opencode-linux-x64.tar.gz", "sha256": "`+strings.Repeat("b", 64)+`"`, `opencode-linux-x64.tar.gz"`, 1)
	os.WriteFile(path, []byte(noSum), 0o644)
	opts := f.options(t, root)
	opts.Feeds, _ = LoadFeedSources(root)
	opts.Apply = true
	if rep, err := Run(context.Background(), opts); err != nil || len(rep.Errors) != 0 {
		t.Fatalf("%v %+v", err, rep)
	}
	got := readFile(t, path)
	if !strings.Contains(got, `opencode-linux-x64.tar.gz", "sha256": "`+strings.Repeat("a", 64)+`", "cmd"`) || strings.Count(got, strings.Repeat("a", 64)) != 6 {
		t.Errorf("rewritten manifest:\n%s", got)
	}
}

// A feed server chooses its version, name and distribution: a refusal
// quotes a short excerpt of them, not the megabytes a hostile feed sends
// (they went whole into the JSON report and the CI log).
func TestFeedRefusalQuotesLittle(t *testing.T) {
	huge := strings.Repeat("9", 4<<20)
	for name, set := range map[string]func(map[string]any){
		"version": func(feed map[string]any) { feed["version"] = huge },
		"digits":  func(feed map[string]any) { feed["version"] = huge + ".0.0" },
		"object":  func(feed map[string]any) { feed["version"] = map[string]any{"a": huge} },
		"name":    func(feed map[string]any) { feed["name"] = huge },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t)
			root, _ := feedTree(t, f)
			feed := upstreamFeed(f)
			set(feed)
			f.feed = feed
			opts := f.options(t, root)
			opts.Feeds, _ = LoadFeedSources(root)
			rep, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Errors) != 1 || len(rep.Errors[0].Error) > 1000 {
				n := 0
				if len(rep.Errors) == 1 {
					n = len(rep.Errors[0].Error)
				}
				t.Errorf("errors %d, the message %d bytes long", len(rep.Errors), n)
			}
		})
	}
}

// A repeated key is refused, not read as its last value: a reviewer
// reads the first "feed", update would fetch the second.
func TestLoadFeedSourcesRefusesDuplicateKeys(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, SourcesDir), 0o755)
	os.MkdirAll(filepath.Join(root, "dup"), 0o755)
	os.WriteFile(filepath.Join(root, "dup", "agent.json"), []byte(`{"id": "dup"}`), 0o644)
	body := `{"feed": "https://x.example/f", "assets": {"linux-x86_64": "a"}, "url": "https://x/{version}/{file}", "feed": "https://evil.example/f"}`
	os.WriteFile(filepath.Join(root, SourcesDir, "dup.json"), []byte(body), 0o644)
	if _, err := LoadFeedSources(root); err == nil || !strings.Contains(err.Error(), "dup.json") || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("err = %v, want one naming dup.json and the duplicate key", err)
	}
}
