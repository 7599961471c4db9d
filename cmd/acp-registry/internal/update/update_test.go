package update

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
)

// fake is one TLS server playing npm (/npm/), PyPI (/pypi/), the GitHub API
// (/gh/) and a release download host (/dl/). Archive URLs in manifests must
// be https, hence TLS.
type fake struct {
	srv *httptest.Server

	mu       sync.Mutex
	npm      map[string]any    // package name -> packument
	pypi     map[string]any    // project -> JSON document
	releases map[string]string // owner/repo -> latest tag
	// lists are owner/repo's releases list (newest first); without one,
	// the list is the latest release alone.
	lists     map[string][]ghRelease
	files     map[string][]byte // /dl/ path -> content
	feed      any               // the /feed document (nil: 404)
	failFirst map[string]int    // path -> status to answer once before succeeding
	hits      map[string]int
	auth      []string
}

func newFake(t *testing.T) *fake {
	f := &fake{npm: map[string]any{}, pypi: map[string]any{}, releases: map[string]string{}, lists: map[string][]ghRelease{},
		files: map[string][]byte{}, failFirst: map[string]int{}, hits: map[string]int{}}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := r.URL.EscapedPath()
	f.hits[p]++
	if st, ok := f.failFirst[p]; ok && f.hits[p] == 1 {
		if st == http.StatusForbidden {
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", fmt.Sprint(time.Now().Unix()))
		}
		w.WriteHeader(st)
		fmt.Fprint(w, `{"message":"slow down"}`)
		return
	}
	switch {
	case strings.HasPrefix(p, "/npm/"):
		name := strings.ReplaceAll(strings.TrimPrefix(p, "/npm/"), "%2F", "/")
		if doc, ok := f.npm[name]; ok {
			json.NewEncoder(w).Encode(doc)
			return
		}
	case strings.HasPrefix(p, "/pypi/pypi/"):
		name := strings.TrimSuffix(strings.TrimPrefix(p, "/pypi/pypi/"), "/json")
		if doc, ok := f.pypi[name]; ok {
			json.NewEncoder(w).Encode(doc)
			return
		}
	case strings.HasPrefix(p, "/gh/repos/") && strings.HasSuffix(p, "/releases/latest"):
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		repo := strings.TrimSuffix(strings.TrimPrefix(p, "/gh/repos/"), "/releases/latest")
		if tag, ok := f.releases[repo]; ok {
			fmt.Fprintf(w, `{"id": 1, "tag_name": %q, "draft": false, "prerelease": false}`, tag)
			return
		}
	case strings.HasPrefix(p, "/gh/repos/") && strings.HasSuffix(p, "/releases"):
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		repo := strings.TrimSuffix(strings.TrimPrefix(p, "/gh/repos/"), "/releases")
		if r.URL.Query().Get("per_page") != "100" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		list, ok := f.lists[repo]
		if tag, latest := f.releases[repo]; !ok && latest {
			list, ok = []ghRelease{{Tag: tag}}, true
		}
		if ok {
			json.NewEncoder(w).Encode(list)
			return
		}
	case p == "/feed" && f.feed != nil:
		json.NewEncoder(w).Encode(f.feed)
		return
	case strings.HasPrefix(p, "/dl/"):
		if b, ok := f.files[p]; ok {
			w.Write(b)
			return
		}
	}
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprint(w, `{"message":"Not Found"}`)
}

// ghRelease is one release as GitHub's API lists it.
type ghRelease struct {
	Tag        string    `json:"tag_name"`
	Draft      bool      `json:"draft"`
	Prerelease bool      `json:"prerelease"`
	Assets     []ghAsset `json:"assets"`
}

type ghAsset struct {
	Name string `json:"name"`
}

func packument(latest string, versions ...string) map[string]any {
	vs := map[string]any{}
	for _, v := range versions {
		vs[v] = map[string]any{"version": v}
	}
	return map[string]any{"dist-tags": map[string]string{"latest": latest}, "versions": vs}
}

func (f *fake) options(t *testing.T, root string) Options {
	t.Helper()
	hc := f.srv.Client()
	gh, err := NewGitHubClient(hc, f.srv.URL+"/gh/", "", func(int) time.Duration { return time.Millisecond })
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		Root: root,
		Remote: &remote.Client{HTTP: hc, AllowPrivate: true, NPMRegistry: f.srv.URL + "/npm/",
			PyPIURL: f.srv.URL + "/pypi/", Backoff: func(int) time.Duration { return time.Millisecond }},
		GitHub: gh,
	}
}

func writeAgent(t *testing.T, root, id, manifest string) string {
	t.Helper()
	dir := filepath.Join(root, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agent.json")
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func npmAgent(id, pkg, version string) string {
	return fmt.Sprintf("{\n  \"id\": %q,\n  \"name\": \"N\",\n  \"version\": %q,\n  \"description\": \"d\",\n  \"distribution\": {\"npx\": {\"package\": \"%s@%s\"}}\n}\n", id, version, pkg, version)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLookupDecisions(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	f.npm["newer"] = packument("1.1.0", "1.0.0", "1.1.0", "2.0.0-beta.1")
	f.npm["@scope/pre"] = packument("2.0.0-rc.1", "1.0.0", "2.0.0-rc.1")
	f.npm["lower"] = packument("0.9.0", "0.9.0", "1.0.0")
	f.npm["ghost-tag"] = packument("1.5.0", "1.0.0")
	f.pypi["py-agent"] = map[string]any{"info": map[string]any{"version": "2.0.0rc1"}, "releases": map[string]any{
		"1.0.0": []any{map[string]any{"yanked": false}}, "1.1.0": []any{map[string]any{"yanked": false}},
		"1.2.0": []any{map[string]any{"yanked": true}}, "2.0.0rc1": []any{map[string]any{"yanked": false}},
		"1.3.0": []any{},
	}}
	f.releases["example/bin"] = "v1.3.0"
	f.releases["example/odd"] = "release-2024"
	paths := map[string]string{
		"odd": writeAgent(t, root, "odd", `{"id":"odd","name":"O","version":"1.0.0","description":"d","repository":"https://github.com/example/odd",
 "distribution":{"binary":{"linux-x86_64":{"archive":"https://x.invalid/v1.0.0/odd.tar.gz","cmd":"odd"}}}}`),
		"newer":     writeAgent(t, root, "newer", npmAgent("newer", "newer", "1.0.0")),
		"pre":       writeAgent(t, root, "pre", npmAgent("pre", "@scope/pre", "1.0.0")),
		"lower":     writeAgent(t, root, "lower", npmAgent("lower", "lower", "1.0.0")),
		"ghost-tag": writeAgent(t, root, "ghost-tag", npmAgent("ghost-tag", "ghost-tag", "1.0.0")),
		"missing":   writeAgent(t, root, "missing", npmAgent("missing", "missing", "1.0.0")),
		"py":        writeAgent(t, root, "py", `{"id":"py","name":"P","version":"1.0.0","description":"d","distribution":{"uvx":{"package":"py-agent==1.0.0"}}}`),
		"bin": writeAgent(t, root, "bin", `{"id":"bin","name":"B","version":"1.2.0","description":"d","repository":"https://github.com/example/bin",
 "distribution":{"binary":{"linux-x86_64":{"archive":"https://x.invalid/v1.2.0/bin.tar.gz","cmd":"bin"}}}}`),
	}
	before := map[string]string{}
	for id, p := range paths {
		before[id] = readFile(t, p)
	}
	os.MkdirAll(filepath.Join(root, "not-an-agent"), 0o755)
	writeAgent(t, root, "elsewhere", `{"id":"elsewhere","name":"E","version":"1.0.0","description":"d","repository":"https://gitlab.com/e/e",
 "distribution":{"binary":{"linux-x86_64":{"archive":"https://x.invalid/v1.0.0/e.tar.gz","cmd":"e"}}}}`)
	writeAgent(t, root, "norepo", `{"id":"norepo","name":"N","version":"1.0.0","description":"d",
 "distribution":{"binary":{"linux-x86_64":{"archive":"https://x.invalid/v1.0.0/n.tar.gz","cmd":"n"}}}}`)

	rep, err := Run(context.Background(), f.options(t, root))
	if err != nil {
		t.Fatal(err)
	}
	wantUpdates := []Update{
		{ID: "bin", Current: "1.2.0", Latest: "1.3.0", Source: "github"},
		{ID: "newer", Current: "1.0.0", Latest: "1.1.0", Source: "npm"},
		{ID: "py", Current: "1.0.0", Latest: "1.1.0", Source: "pypi"},
	}
	if !reflect.DeepEqual(rep.Updates, wantUpdates) {
		t.Errorf("updates = %+v\nwant %+v", rep.Updates, wantUpdates)
	}
	// A pre-release "latest" and a "latest" below the current version are
	// not updates.
	if !reflect.DeepEqual(rep.UpToDate, []string{"lower", "pre"}) {
		t.Errorf("upToDate = %v", rep.UpToDate)
	}
	if len(rep.Errors) != 3 || rep.Errors[0].ID != "ghost-tag" || rep.Errors[1].ID != "missing" || rep.Errors[2].ID != "odd" ||
		!strings.Contains(rep.Errors[0].Error, "not among its published versions") ||
		!strings.Contains(rep.Errors[1].Error, "404") || !strings.Contains(rep.Errors[1].Error, "the package does not exist there; check its name in agent.json") ||
		!strings.Contains(rep.Errors[2].Error, `"release-2024" is not a version`) {
		t.Errorf("errors = %+v", rep.Errors)
	}
	if len(rep.Skipped) != 2 || rep.Skipped[0].ID != "elsewhere" || !strings.Contains(rep.Skipped[0].Error, "not a github.com repository") ||
		rep.Skipped[1].ID != "norepo" || !strings.Contains(rep.Skipped[1].Error, `the GitHub releases of "repository", and the manifest has none`) {
		t.Errorf("skipped = %+v", rep.Skipped)
	}
	for id, p := range paths {
		if readFile(t, p) != before[id] {
			t.Errorf("%s changed without --apply", id)
		}
	}
}

func TestRateLimitsAreRetried(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	f.npm["busy"] = packument("1.1.0", "1.1.0")
	f.failFirst["/npm/busy"] = http.StatusTooManyRequests
	f.releases["example/bin"] = "v2.0.0"
	f.failFirst["/gh/repos/example/bin/releases"] = http.StatusForbidden
	writeAgent(t, root, "busy", npmAgent("busy", "busy", "1.0.0"))
	writeAgent(t, root, "bin", `{"id":"bin","name":"B","version":"1.0.0","description":"d","repository":"https://github.com/example/bin.git",
 "distribution":{"binary":{"linux-x86_64":{"archive":"https://x.invalid/v1.0.0/bin.tar.gz","cmd":"bin"}}}}`)
	opts := f.options(t, root)
	gh, _ := NewGitHubClient(f.srv.Client(), f.srv.URL+"/gh/", "secret-token", func(int) time.Duration { return time.Millisecond })
	opts.GitHub = gh
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 0 || len(rep.Updates) != 2 {
		t.Fatalf("a rate limit followed by success must not fail: %+v", rep)
	}
	if f.hits["/npm/busy"] != 2 || f.hits["/gh/repos/example/bin/releases"] != 2 {
		t.Errorf("hits = %v", f.hits)
	}
	for _, a := range f.auth {
		if a != "Bearer secret-token" {
			t.Errorf("GitHub request sent Authorization %q, want the token", a)
		}
	}
}

func TestGitHubRateLimitExhausted(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	writeAgent(t, root, "bin", `{"id":"bin","name":"B","version":"1.0.0","description":"d","repository":"https://github.com/example/bin",
 "distribution":{"binary":{"linux-x86_64":{"archive":"https://x.invalid/v1.0.0/bin.tar.gz","cmd":"bin"}}}}`)
	writeAgent(t, root, "ok", npmAgent("ok", "ok", "1.0.0"))
	f.npm["ok"] = packument("1.0.0", "1.0.0")
	// Always limited, with a reset an hour away: reported, not waited for.
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/gh/") {
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", fmt.Sprint(time.Now().Add(time.Hour).Unix()))
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"message":"API rate limit exceeded"}`)
			return
		}
		f.serve(w, r)
	})
	rep, err := Run(context.Background(), f.options(t, root))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 1 || !errorsContain(rep.Errors[0].Error, "rate limit", "GITHUB_TOKEN") {
		t.Errorf("errors = %+v", rep.Errors)
	}
	if !reflect.DeepEqual(rep.UpToDate, []string{"ok"}) {
		t.Errorf("the other agent was not checked: %+v", rep)
	}
}

// A Retry-After longer than the client's timeout is not waited for (the
// wait would end in a bare timeout): the agent is reported as rate
// limited, at once.
func TestGitHubRetryAfterBeyondTimeout(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	writeAgent(t, root, "bin", `{"id":"bin","name":"B","version":"1.0.0","description":"d","repository":"https://github.com/example/bin",
 "distribution":{"binary":{"linux-x86_64":{"archive":"https://x.invalid/v1.0.0/bin.tar.gz","cmd":"bin"}}}}`)
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "90")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"message":"You have exceeded a secondary rate limit"}`)
	})
	start := time.Now()
	rep, err := Run(context.Background(), f.options(t, root))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 1 || !errorsContain(rep.Errors[0].Error, "rate limit", "GITHUB_TOKEN") {
		t.Errorf("errors = %+v", rep.Errors)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v: the Retry-After was waited for", d)
	}
}

func errorsContain(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestApplyRewritesOnlyChangedValues(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	linux := []byte("new linux archive")
	mac := []byte("new mac archive")
	f.files["/dl/example/bin/releases/download/v1.3.0/bin-1.3.0-linux.tar.gz"] = linux
	f.files["/dl/example/bin/releases/download/v1.3.0/bin-1.3.0-mac.zip"] = mac
	f.releases["example/bin"] = "v1.3.0"
	base := f.srv.URL + "/dl/example/bin/releases/download/"
	// Tabs, CRLF-free odd spacing, key order and no final newline: all kept.
	orig := "{\n\t\"version\":   \"1.2.0\",\n\t\"id\": \"bin\",\n\t\"name\": \"Bin 1.2.0 & co\",\n\t\"description\": \"d\",\n" +
		"\t\"repository\": \"https://github.com/example/bin\",\n\t\"distribution\": {\"binary\": {\n" +
		"\t\t\"linux-x86_64\": {\"archive\": \"" + base + "v1.2.0/bin-1.2.0-linux.tar.gz\", \"cmd\": \"bin\", \"sha256\": \"" + strings.Repeat("a", 64) + "\"},\n" +
		"\t\t\"darwin-aarch64\": {\"cmd\": \"bin\", \"archive\": \"" + base + "v1.2.0/bin-1.2.0-mac.zip\"}\n\t}}\n}"
	path := writeAgent(t, root, "bin", orig)
	opts := f.options(t, root)
	opts.Apply = true // and validated by validate.ValidateManifest
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 0 || len(rep.Updates) != 1 || !rep.Updates[0].Applied {
		t.Fatalf("report = %+v", rep)
	}
	sum := sha256.Sum256(linux)
	want := strings.NewReplacer(
		`"1.2.0"`, `"1.3.0"`,
		"v1.2.0/bin-1.2.0-linux", "v1.3.0/bin-1.3.0-linux",
		"v1.2.0/bin-1.2.0-mac", "v1.3.0/bin-1.3.0-mac",
		strings.Repeat("a", 64), hex.EncodeToString(sum[:]),
	).Replace(orig)
	if got := readFile(t, path); got != want {
		t.Errorf("rewritten manifest:\n%s\nwant:\n%s", got, want)
	}
	// No sha256 is added where there was none, and the display name that
	// happens to contain the version is not touched.
	if got := readFile(t, path); strings.Count(got, "sha256") != 1 || !strings.Contains(got, "Bin 1.2.0 & co") {
		t.Errorf("unexpected change: %s", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestApplyAbortsWhenAnArchiveIsMissing(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	f.releases["example/bin"] = "v1.3.0"
	f.files["/dl/v1.3.0/bin-linux.tar.gz"] = []byte("x") // mac build missing
	orig := `{"id":"bin","name":"B","version":"1.2.0","description":"d","repository":"https://github.com/example/bin",
 "distribution":{"binary":{"linux-x86_64":{"archive":"` + f.srv.URL + `/dl/v1.2.0/bin-linux.tar.gz","cmd":"bin"},
 "darwin-aarch64":{"archive":"` + f.srv.URL + `/dl/v1.2.0/bin-mac.zip","cmd":"bin"}}}}`
	path := writeAgent(t, root, "bin", orig)
	f.npm["other"] = packument("1.0.1", "1.0.1")
	other := writeAgent(t, root, "other", npmAgent("other", "other", "1.0.0"))
	opts := f.options(t, root)
	opts.Apply = true
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, path) != orig {
		t.Error("the agent was changed although an archive is missing")
	}
	if len(rep.Errors) != 1 || !errorsContain(rep.Errors[0].Error, "darwin-aarch64", "404", "left unchanged") {
		t.Errorf("errors = %+v", rep.Errors)
	}
	if len(rep.Updates) != 2 || rep.Updates[0].Applied || !rep.Updates[1].Applied {
		t.Errorf("updates = %+v", rep.Updates)
	}
	if !strings.Contains(readFile(t, other), `"other@1.0.1"`) {
		t.Error("the other agent was not applied")
	}
}

// The rewritten manifest is validated before it is written; a problem the
// bump cannot fix (here an env-reserved error) keeps the file as it was.
func TestApplyRevertsWhenTheResultIsInvalid(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	f.npm["a"] = packument("1.1.0", "1.1.0")
	orig := `{"id":"a","name":"A","version":"1.0.0","description":"d","distribution":{"npx":{"package":"a@1.0.0","env":{"PATH":"/evil"}}}}`
	path := writeAgent(t, root, "a", orig)
	opts := f.options(t, root)
	opts.Apply = true
	rep, _ := Run(context.Background(), opts)
	if readFile(t, path) != orig {
		t.Error("an invalid result was written")
	}
	if len(rep.Errors) != 1 || !errorsContain(rep.Errors[0].Error, "does not validate", "env-reserved", "left unchanged") || rep.Updates[0].Applied {
		t.Errorf("report = %+v", rep)
	}
}

// PyPI's two-part versions become X.Y.Z in "version"; the pin keeps the
// spelling PyPI serves.
func TestApplyPyPIShortVersion(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	f.pypi["py"] = map[string]any{"info": map[string]any{"version": "1.1"}, "releases": map[string]any{
		"1.0.0": []any{map[string]any{"yanked": false}}, "1.1": []any{map[string]any{"yanked": false}}}}
	orig := "{\n  \"id\": \"py\",\n  \"name\": \"P\",\n  \"version\": \"1.0.0\",\n  \"description\": \"d\",\n  \"distribution\": {\"uvx\": {\"package\": \"py[cli]==1.0.0\"}}\n}\n"
	path := writeAgent(t, root, "py", orig)
	opts := f.options(t, root)
	opts.Apply = true
	rep, _ := Run(context.Background(), opts)
	if len(rep.Errors) != 0 || len(rep.Updates) != 1 || rep.Updates[0].Latest != "1.1.0" {
		t.Fatalf("report = %+v", rep)
	}
	want := strings.NewReplacer(`"1.0.0"`, `"1.1.0"`, "py[cli]==1.0.0", "py[cli]==1.1").Replace(orig)
	if got := readFile(t, path); got != want {
		t.Errorf("got %s", got)
	}
}

func TestPreviewChannel(t *testing.T) {
	f := newFake(t)
	root := t.TempDir()
	doc := packument("1.0.0", "1.0.0", "1.1.0-preview.1", "1.1.0-preview.3")
	doc["dist-tags"].(map[string]string)["next"] = "1.1.0-preview.3"
	f.npm["p"] = doc
	orig := `{"id":"p","name":"P","version":"1.0.0","description":"d","distribution":{"npx":{"package":"p@1.0.0"}},
  "preview":{"version":"1.1.0-preview.1","distribution":{"npx":{"package":"p@1.1.0-preview.1"}}}}`
	path := writeAgent(t, root, "p", orig)
	opts := f.options(t, root)
	opts.Apply = true
	rep, _ := Run(context.Background(), opts)
	if !reflect.DeepEqual(rep.UpToDate, []string{"p"}) {
		t.Errorf("without --preview the preview channel moved: %+v", rep)
	}
	opts.Preview = true
	rep, _ = Run(context.Background(), opts)
	want := []Update{{ID: "p", Current: "1.1.0-preview.1", Latest: "1.1.0-preview.3", Source: "npm", Applied: true, Channel: "preview"}}
	if !reflect.DeepEqual(rep.Updates, want) {
		t.Errorf("updates = %+v", rep.Updates)
	}
	if got := readFile(t, path); got != strings.ReplaceAll(orig, "1.1.0-preview.1", "1.1.0-preview.3") {
		t.Errorf("got %s", got)
	}
}

func TestUnknownAgent(t *testing.T) {
	root := t.TempDir()
	writeAgent(t, root, "a", npmAgent("a", "a", "1.0.0"))
	_, err := Run(context.Background(), Options{Root: root, Agents: []string{"a", "zz"}})
	if err == nil || !strings.Contains(err.Error(), "no agent zz") {
		t.Errorf("err = %v", err)
	}
}

func TestReplaceVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"https://h/download/v1.2.3/a-1.2.3-x.tar.gz", 2, "https://h/download/v1.3.0/a-1.3.0-x.tar.gz"},
		{"https://h/11.2.3/a-1.2.30.zip", 0, "https://h/11.2.3/a-1.2.30.zip"},
		{"https://h/1.2.3.4/a", 0, "https://h/1.2.3.4/a"},
		{"https://h/a_1.2.3.zip", 1, "https://h/a_1.3.0.zip"},
	} {
		got, n := replaceVersion(tc.in, "1.2.3", "1.3.0")
		if got != tc.want || n != tc.n {
			t.Errorf("replaceVersion(%s) = %s, %d; want %s, %d", tc.in, got, n, tc.want, tc.n)
		}
	}
}

// A manifest that does not decode fails alone, named in the registry's
// terms: a position for bad JSON, never encoding/json's Go types.
func TestBrokenManifestMessage(t *testing.T) {
	root := t.TempDir()
	writeAgent(t, root, "bad", "{\"id\": \"bad\",\n  oops}")
	writeAgent(t, root, "typed", `{"id": "typed", "authors": [{"name": "x"}]}`)
	rep, err := Run(context.Background(), Options{Root: root})
	if err != nil || len(rep.Errors) != 2 {
		t.Fatalf("Run = %+v, %v", rep, err)
	}
	for i, want := range []string{"it is not valid JSON (line 2, column 3: ", "it does not match the manifest schema: fix it first (acp-registry validate shows where)"} {
		if e := rep.Errors[i].Error; !strings.Contains(e, want) || strings.Contains(e, "Go struct") {
			t.Errorf("%s: %q, want %q", rep.Errors[i].ID, e, want)
		}
	}
}

// Owner and repo go into the GitHub API path as they are: a "repository"
// that would climb out of repos/<owner>/<repo>/ (the token goes along) is
// no GitHub repository.
func TestGitHubRepoNames(t *testing.T) {
	for _, tc := range []struct{ in, owner, repo string }{
		{"https://github.com/example/bin", "example", "bin"},
		{"https://github.com/example/bin.git", "example", "bin"},
		{"https://www.github.com/Ex-1/my_repo.js/tree/main", "Ex-1", "my_repo.js"},
		{"https://github.com/../../user", "", ""},
		{"https://github.com/example/..", "", ""},
		{"https://github.com/example/.", "", ""},
		{"https://github.com/a%2F..%2F../b", "", ""},
		{"https://github.com/example/a%3Fb", "", ""},
		{"https://github.com/example/%2e%2e", "", ""},
		{"https://github.com/example", "", ""},
	} {
		owner, repo, err := githubRepo(tc.in)
		if tc.owner == "" {
			if err == nil || !errors.Is(err, ErrNoSource) {
				t.Errorf("%s: accepted as %s/%s (%v)", tc.in, owner, repo, err)
			}
			continue
		}
		if err != nil || owner != tc.owner || repo != tc.repo {
			t.Errorf("%s: %q %q %v", tc.in, owner, repo, err)
		}
	}
}

// An archive host that drips its bytes never goes quiet long enough for
// the client's idle timer: the download has a budget of its own.
func TestArchiveDownloadHasABudget(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 100; i++ {
			w.Write([]byte{0})
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	o := &Options{Remote: &remote.Client{HTTP: srv.Client(), AllowPrivate: true}, ArchiveTimeout: 300 * time.Millisecond}
	done := make(chan error, 1)
	go func() { _, err := o.sha256Of(context.Background(), srv.URL+"/a.tar.gz"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "took longer than") {
			t.Errorf("err = %v, want the budget named", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("the dripping download was not stopped by its budget")
	}
}
