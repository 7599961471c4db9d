package publish

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeGitHub is an in-memory GitHub with the endpoints publish uses.
type fakeGitHub struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	token     string // the valid token
	push      bool
	releases  map[string]*fakeRelease // by tag
	refs      map[string]string       // tag -> sha
	nextID    int64
	failAfter int    // fail uploads after this many (0: never)
	uploads   int    // successful uploads
	rejectNew string // when set, creating a release answers 422 with this code
	noDigest  bool   // list assets without "digest", as older GitHub APIs do
	loopPages bool   // every page of assets says there is a next one
	evilTag   string // when set, the tag_name every release answers with
	log       []string
	// missing records every moment a latest-release asset was absent
	// while a request other than its own rename was served.
	missing []string
	gone    string // a latest asset deleted and not yet replaced
	short   bool   // asset downloads send half their bytes
}

type fakeRelease struct {
	ID     int64
	Tag    string
	Latest string
	Assets map[string]*fakeAsset
}

type fakeAsset struct {
	ID   int64
	Data []byte
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	f := &fakeGitHub{t: t, token: "good", push: true, releases: map[string]*fakeRelease{}, refs: map[string]string{}, nextID: 1}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

var (
	reRepo     = regexp.MustCompile(`^/repos/o/r$`)
	reByTag    = regexp.MustCompile(`^/repos/o/r/releases/tags/([^/]+)$`)
	reReleases = regexp.MustCompile(`^/repos/o/r/releases$`)
	reAssets   = regexp.MustCompile(`^/repos/o/r/releases/(\d+)/assets$`)
	reAsset    = regexp.MustCompile(`^/repos/o/r/releases/assets/(\d+)$`)
	reRef      = regexp.MustCompile(`^/repos/o/r/git/refs?/tags/([^/]+)$`)
	reRefs     = regexp.MustCompile(`^/repos/o/r/git/refs$`)
)

func (f *fakeGitHub) release(w http.ResponseWriter, r *fakeRelease) {
	tag := r.Tag
	if f.evilTag != "" {
		tag = f.evilTag
	}
	json.NewEncoder(w).Encode(map[string]any{"id": r.ID, "tag_name": tag, "html_url": "https://github.com/o/r/releases/tag/" + tag})
}

func (f *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := r.URL.Path
	f.log = append(f.log, r.Method+" "+p)
	if f.gone != "" && !(r.Method == "PATCH" && reAsset.MatchString(p)) {
		// Only the rename that follows the deletion may see the gap.
		f.missing = append(f.missing, f.gone+" during "+r.Method+" "+p)
	}
	if r.Header.Get("Authorization") != "Bearer "+f.token {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message":"Bad credentials"}`)
		return
	}
	notFound := func() { w.WriteHeader(http.StatusNotFound); fmt.Fprint(w, `{"message":"Not Found"}`) }
	var m []string
	match := func(re *regexp.Regexp) bool { m = re.FindStringSubmatch(p); return m != nil }
	switch {
	case r.Method == "GET" && match(reRepo):
		json.NewEncoder(w).Encode(map[string]any{"full_name": "o/r", "permissions": map[string]bool{"pull": true, "push": f.push}})
	case r.Method == "GET" && match(reByTag):
		if rel, ok := f.releases[m[1]]; ok {
			f.release(w, rel)
			return
		}
		notFound()
	case r.Method == "POST" && match(reReleases):
		var req struct {
			Tag        string `json:"tag_name"`
			Target     string `json:"target_commitish"`
			MakeLatest string `json:"make_latest"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if f.rejectNew != "" || f.releases[req.Tag] != nil {
			code := f.rejectNew
			if code == "" {
				code = "already_exists"
			}
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprintf(w, `{"message":"Validation Failed","errors":[{"resource":"Release","code":%q,"field":"tag_name"}]}`, code)
			return
		}
		if _, ok := f.refs[req.Tag]; !ok {
			sha := req.Target
			if sha == "" {
				sha = "sha-of-main"
			}
			f.refs[req.Tag] = sha
		}
		rel := &fakeRelease{ID: f.nextID, Tag: req.Tag, Latest: req.MakeLatest, Assets: map[string]*fakeAsset{}}
		f.nextID++
		f.releases[req.Tag] = rel
		w.WriteHeader(http.StatusCreated)
		f.release(w, rel)
	case r.Method == "GET" && match(reAssets):
		rel := f.byID(m[1])
		if rel == nil {
			notFound()
			return
		}
		var out []map[string]any
		for name, a := range rel.Assets {
			asset := map[string]any{"id": a.ID, "name": name, "size": len(a.Data), "state": "uploaded"}
			if !f.noDigest {
				asset["digest"] = fmt.Sprintf("sha256:%x", sha256.Sum256(a.Data))
			}
			out = append(out, asset)
		}
		sort.Slice(out, func(i, j int) bool { return out[i]["name"].(string) < out[j]["name"].(string) })
		if f.loopPages {
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?page=2&per_page=100>; rel="next"`, f.srv.URL, p))
		}
		json.NewEncoder(w).Encode(out)
	case r.Method == "POST" && match(reAssets):
		rel := f.byID(m[1])
		name := r.URL.Query().Get("name")
		if rel == nil || name == "" {
			notFound()
			return
		}
		if rel.Assets[name] != nil {
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprint(w, `{"message":"Validation Failed","errors":[{"code":"already_exists","field":"name"}]}`)
			return
		}
		if f.failAfter > 0 && f.uploads >= f.failAfter {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, `{"message":"upstream went away"}`)
			return
		}
		data, _ := io.ReadAll(r.Body)
		rel.Assets[name] = &fakeAsset{ID: f.nextID, Data: data}
		f.nextID++
		f.uploads++
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id": %d, "name": %q, "size": %d}`, rel.Assets[name].ID, name, len(data))
	case r.Method == "DELETE" && match(reAsset):
		id, _ := strconv.ParseInt(m[1], 10, 64)
		for _, rel := range f.releases {
			for name, a := range rel.Assets {
				if a.ID == id {
					delete(rel.Assets, name)
					if rel.Tag == "latest" && !strings.HasSuffix(name, ".next") {
						f.gone = name
					}
					w.WriteHeader(http.StatusNoContent)
					return
				}
			}
		}
		notFound()
	case r.Method == "GET" && match(reAsset):
		if a, _ := f.asset(m[1]); a != nil {
			w.Header().Set("Content-Type", "application/octet-stream")
			if f.short {
				w.Write(a.Data[:len(a.Data)/2])
				return
			}
			w.Write(a.Data)
			return
		}
		notFound()
	case r.Method == "PATCH" && match(reAsset):
		var req struct{ Name string }
		json.NewDecoder(r.Body).Decode(&req)
		a, rel := f.asset(m[1])
		if a == nil || req.Name == "" || rel.Assets[req.Name] != nil {
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprint(w, `{"message":"Validation Failed"}`)
			return
		}
		for name, x := range rel.Assets {
			if x == a {
				delete(rel.Assets, name)
			}
		}
		rel.Assets[req.Name] = a
		if f.gone == req.Name {
			f.gone = ""
		}
		fmt.Fprintf(w, `{"id": %d, "name": %q, "size": %d}`, a.ID, req.Name, len(a.Data))
	case r.Method == "GET" && match(reRef):
		if sha, ok := f.refs[m[1]]; ok {
			fmt.Fprintf(w, `{"ref": "refs/tags/%s", "object": {"sha": %q, "type": "commit"}}`, m[1], sha)
			return
		}
		notFound()
	case r.Method == "PATCH" && match(reRef):
		var req struct{ SHA string }
		json.NewDecoder(r.Body).Decode(&req)
		f.refs[m[1]] = req.SHA
		fmt.Fprintf(w, `{"ref": "refs/tags/%s", "object": {"sha": %q}}`, m[1], req.SHA)
	case r.Method == "POST" && match(reRefs):
		var req struct{ Ref, SHA string }
		json.NewDecoder(r.Body).Decode(&req)
		f.refs[strings.TrimPrefix(req.Ref, "refs/tags/")] = req.SHA
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"ref": %q, "object": {"sha": %q}}`, req.Ref, req.SHA)
	default:
		f.t.Errorf("unexpected request %s %s", r.Method, p)
		notFound()
	}
}

func (f *fakeGitHub) asset(s string) (*fakeAsset, *fakeRelease) {
	id, _ := strconv.ParseInt(s, 10, 64)
	for _, rel := range f.releases {
		for _, a := range rel.Assets {
			if a.ID == id {
				return a, rel
			}
		}
	}
	return nil, nil
}

func (f *fakeGitHub) byID(s string) *fakeRelease {
	id, _ := strconv.ParseInt(s, 10, 64)
	for _, r := range f.releases {
		if r.ID == id {
			return r
		}
	}
	return nil
}

func (f *fakeGitHub) assetNames(tag string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n []string
	if rel := f.releases[tag]; rel != nil {
		for name := range rel.Assets {
			n = append(n, name)
		}
	}
	sort.Strings(n)
	return n
}

func (f *fakeGitHub) uploadCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.uploads
}

func dist(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func (f *fakeGitHub) options(t *testing.T, dir, token string) Options {
	t.Helper()
	c, err := NewClient(f.srv.Client(), f.srv.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	return Options{Dir: dir, Repo: "o/r", Token: token, GitHub: c, Latest: true, Target: "abc123full",
		ShortCommit: func(context.Context) (string, error) { return "abc123", nil },
		Now:         func() time.Time { return time.Date(2026, 5, 4, 23, 30, 0, 0, time.FixedZone("x", -3600)) },
	}
}

var build1 = map[string]string{"registry.json": `{"agents":[]}`, "a.svg": "<svg/>", "b.svg": "<svg>b</svg>"}

func TestPublishNewRelease(t *testing.T) {
	f := newFakeGitHub(t)
	res, err := Publish(context.Background(), f.options(t, dist(t, build1), "good"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Tag != "v2026.05.05-abc123" || !res.Created || !res.Latest {
		t.Errorf("result = %+v (the default tag uses the UTC date)", res)
	}
	want := []string{"a.svg", "b.svg", "registry.json"}
	if got := f.assetNames(res.Tag); !reflect.DeepEqual(got, want) {
		t.Errorf("assets = %v", got)
	}
	if got := f.assetNames("latest"); !reflect.DeepEqual(got, want) {
		t.Errorf("latest assets = %v", got)
	}
	if f.refs["latest"] != "abc123full" || f.refs[res.Tag] != "abc123full" {
		t.Errorf("refs = %v: latest must point at the build's commit", f.refs)
	}
	if f.releases[res.Tag].Latest != "true" || f.releases["latest"].Latest != "false" {
		t.Error("the dated release must be GitHub's latest release, the rolling one not")
	}

	// The next build: latest follows it, and drops files no longer built.
	build2 := map[string]string{"registry.json": `{"agents":[1]}`, "a.svg": "<svg/>"}
	opts := f.options(t, dist(t, build2), "good")
	opts.Tag, opts.Target = "v2", "def456full"
	if _, err := Publish(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := f.assetNames("latest"); !reflect.DeepEqual(got, []string{"a.svg", "registry.json"}) {
		t.Errorf("latest assets = %v", got)
	}
	if string(f.releases["latest"].Assets["registry.json"].Data) != `{"agents":[1]}` || f.refs["latest"] != "def456full" {
		t.Error("latest release does not hold the new build")
	}
}

func TestPublishResumesPartialUpload(t *testing.T) {
	f := newFakeGitHub(t)
	f.failAfter = 2
	dir := dist(t, build1)
	opts := f.options(t, dir, "good")
	opts.Tag = "v1"
	_, err := Publish(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "run publish again") {
		t.Fatalf("err = %v", err)
	}
	if got := f.assetNames("v1"); len(got) != 2 {
		t.Fatalf("assets after the failure = %v", got)
	}
	f.mu.Lock()
	f.failAfter = 0
	f.uploads = 0
	// A stale asset of the wrong size, as an interrupted upload leaves.
	f.releases["v1"].Assets["a.svg"].Data = []byte("trunc")
	f.mu.Unlock()
	res, err := Publish(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || !reflect.DeepEqual(res.Kept, []string{"b.svg"}) || !reflect.DeepEqual(res.Uploaded, []string{"a.svg", "registry.json"}) {
		t.Errorf("result = %+v", res)
	}
	if string(f.releases["v1"].Assets["a.svg"].Data) != "<svg/>" {
		t.Error("the wrong-size asset was not replaced")
	}
	// Running once more uploads nothing to the dated release.
	f.mu.Lock()
	f.uploads = 0
	f.mu.Unlock()
	opts.Latest = false
	res, err = Publish(context.Background(), opts)
	if err != nil || len(res.Uploaded) != 0 || f.uploadCount() != 0 {
		t.Errorf("re-run: %+v, %v, %d uploads", res, err, f.uploadCount())
	}
}

func TestPublishPreflightFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(f *fakeGitHub, o *Options)
		is    error
		want  string
	}{
		{"no token", func(f *fakeGitHub, o *Options) { o.Token = "" }, ErrNoToken, "set GITHUB_TOKEN"},
		// The token is checked before the default tag is named: outside a
		// git checkout the missing token must still be what is reported.
		{"no token, no tag", func(f *fakeGitHub, o *Options) {
			o.Token, o.Tag = "", ""
			o.ShortCommit = func(context.Context) (string, error) { return "", errors.New("not a git repository") }
		}, ErrNoToken, "set GITHUB_TOKEN"},
		{"401", func(f *fakeGitHub, o *Options) { f.token = "other" }, ErrPermission, "401 Bad credentials"},
		{"read-only token", func(f *fakeGitHub, o *Options) { f.push = false }, ErrPermission, "contents: write"},
		{"tag without release", func(f *fakeGitHub, o *Options) { f.refs["v1"] = "x" }, ErrTagTaken, "choose another --tag"},
		{"422", func(f *fakeGitHub, o *Options) { f.rejectNew = "invalid" }, nil, "GitHub rejected it (422): Validation Failed; tag_name invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			opts := f.options(t, dist(t, build1), "good")
			opts.Tag = "v1"
			tc.setup(f, &opts)
			if opts.Tag == "" && opts.ShortCommit == nil {
				t.Fatal("test setup: no tag and no commit namer")
			}
			_, err := Publish(context.Background(), opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if f.uploadCount() != 0 || len(f.releases) != 0 {
				t.Errorf("something was created or uploaded before the failure: %v", f.log)
			}
		})
	}
}

func TestPublishRefusesBadInput(t *testing.T) {
	f := newFakeGitHub(t)
	for _, tc := range []struct {
		mod  func(o *Options)
		want string
	}{
		{func(o *Options) { o.Repo = "justname" }, "write OWNER/NAME"},
		{func(o *Options) { o.Tag = "latest" }, "rolling release"},
		{func(o *Options) { o.Tag = "v 1" }, "letters, digits"},
		{func(o *Options) { o.Dir = t.TempDir() }, "is empty"},
		{func(o *Options) { o.Dir = filepath.Join(t.TempDir(), "nope") }, "run acp-registry build first"},
		{func(o *Options) { o.Dir = filepath.Join(o.Dir, "registry.json") }, "is a file: pass the folder acp-registry build wrote"},
		// A stray dotfile would be published; a name GitHub rewrites would
		// never match its asset again, so a re-run could not complete.
		{func(o *Options) { os.WriteFile(filepath.Join(o.Dir, ".env"), []byte("TOKEN=x"), 0o644) }, ".env: publish uploads only files named with"},
		{func(o *Options) { os.WriteFile(filepath.Join(o.Dir, "my icon.svg"), []byte("<svg/>"), 0o644) }, "GitHub would upload it under another name"},
	} {
		opts := f.options(t, dist(t, build1), "good")
		tc.mod(&opts)
		if _, err := Publish(context.Background(), opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
	if len(f.log) != 0 {
		t.Errorf("bad input reached GitHub: %v", f.log)
	}
}

// A relative --github-api-url must not resolve against api.github.com.
func TestNewClientRefusesRelativeURL(t *testing.T) {
	for _, u := range []string{"nope", "api.example.com/v3", "ftp://x/"} {
		if _, err := NewClient(nil, u, ""); err == nil || !strings.Contains(err.Error(), "is not an http(s) URL") {
			t.Errorf("%q: err = %v", u, err)
		}
	}
	if c, err := NewClient(nil, "https://ghe.example.com/api/v3", ""); err != nil || c.BaseURL() != "https://ghe.example.com/api/v3/" {
		t.Errorf("GHE URL: %v, %v", c, err)
	}
}

// Publishing an unchanged dist changes nothing: no upload, no deletion,
// with GitHub's digests or, where the API has none, by the bytes.
func TestPublishUnchangedDistUploadsNothing(t *testing.T) {
	for _, noDigest := range []bool{false, true} {
		f := newFakeGitHub(t)
		f.noDigest = noDigest
		dir := dist(t, build1)
		opts := f.options(t, dir, "good")
		if _, err := Publish(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		f.uploads, f.log = 0, nil
		f.mu.Unlock()
		res, err := Publish(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var writes []string
		for _, l := range f.log {
			if !strings.HasPrefix(l, "GET ") {
				writes = append(writes, l)
			}
		}
		if f.uploadCount() != 0 || len(writes) != 0 || len(res.Uploaded) != 0 || len(res.LatestUploaded) != 0 || len(res.Kept) != 3 {
			t.Errorf("noDigest=%v: second run wrote %v (result %+v)", noDigest, writes, res)
		}
	}
}

// The rolling latest release never lacks an asset while a new build
// replaces it: each new copy is uploaded beside the old one, and the old
// one is deleted only right before the new one takes its name.
func TestPublishLatestNeverLacksAnAsset(t *testing.T) {
	f := newFakeGitHub(t)
	opts := f.options(t, dist(t, build1), "good")
	if _, err := Publish(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	build2 := map[string]string{"registry.json": `{"agents":[2]}`, "a.svg": "<svg>A</svg>", "b.svg": "<svg>b</svg>"}
	opts = f.options(t, dist(t, build2), "good")
	opts.Tag, opts.Target = "v2", "def456full"
	res, err := Publish(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.missing) != 0 {
		t.Errorf("latest lacked an asset while serving other requests: %v", f.missing)
	}
	if !reflect.DeepEqual(res.LatestUploaded, []string{"a.svg", "registry.json"}) {
		t.Errorf("latest uploads %v, want only the changed files", res.LatestUploaded)
	}
	if got := f.assetNames("latest"); !reflect.DeepEqual(got, []string{"a.svg", "b.svg", "registry.json"}) {
		t.Errorf("latest assets %v", got)
	}
	if string(f.releases["latest"].Assets["registry.json"].Data) != `{"agents":[2]}` {
		t.Error("latest does not hold the new registry.json")
	}
}

// An API whose asset pages never end (a Link to the next page, forever)
// is refused after the most pages a release can have, not followed
// until the job's time limit.
func TestPublishStopsEndlessAssetPages(t *testing.T) {
	f := newFakeGitHub(t)
	f.loopPages = true
	_, err := Publish(context.Background(), f.options(t, dist(t, build1), "good"))
	if err == nil || !strings.Contains(err.Error(), "pages") {
		t.Errorf("err = %v, want the endless listing refused", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, l := range f.log {
		if strings.HasPrefix(l, "GET ") && reAssets.MatchString(strings.TrimPrefix(l, "GET ")) {
			n++
		}
	}
	if n > 3*maxAssetPages {
		t.Errorf("%d asset pages were requested", n)
	}
}

// What the API says (a release's tag name) reaches the release job's log
// as text: never an escape sequence or a line that starts a workflow
// command.
func TestPublishLogShowsTheAPISafely(t *testing.T) {
	f := newFakeGitHub(t)
	f.evilTag = "v1\n::add-mask::q\x1b[2J"
	opts := f.options(t, dist(t, build1), "good")
	var log bytes.Buffer
	opts.Log = &log
	Publish(context.Background(), opts)
	if !strings.Contains(log.String(), "uploaded") {
		t.Fatalf("nothing was uploaded:\n%s", log.String())
	}
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.Contains(line, "\x1b") {
			t.Errorf("log line %q", line)
		}
	}
}

// An asset download cut short is no verdict on the asset: publish stops
// with an error instead of calling a good asset changed and replacing it.
func TestPublishShortAssetDownloadIsAnError(t *testing.T) {
	f := newFakeGitHub(t)
	f.noDigest = true
	dir := dist(t, build1)
	opts := f.options(t, dir, "good")
	if _, err := Publish(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.uploads, f.short = 0, true
	f.mu.Unlock()
	if _, err := Publish(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "ended after") {
		t.Errorf("err = %v, want the short download named", err)
	}
	if n := f.uploadCount(); n != 0 {
		t.Errorf("%d assets were uploaded again after a short download", n)
	}
}
