package publish

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakegithub"
)

// assetList is the path of a release's asset listing.
var assetList = regexp.MustCompile(`^/repos/o/r/releases/(\d+)/assets$`)

// newFakeGitHub is a fake GitHub closed when the test ends, failing the
// test on a request it does not know.
func newFakeGitHub(t *testing.T) *fakegithub.Server {
	f := fakegithub.New(t.Errorf)
	t.Cleanup(f.Close)
	return f
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

func options(t *testing.T, f *fakegithub.Server, dir, token string) Options {
	t.Helper()
	c, err := NewClient(f.Client(), f.URL, token)
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
	res, err := Publish(context.Background(), options(t, f, dist(t, build1), "good"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Tag != "v2026.05.05-abc123" || !res.Created || !res.Latest {
		t.Errorf("result = %+v (the default tag uses the UTC date)", res)
	}
	want := []string{"a.svg", "b.svg", "registry.json"}
	if got := f.AssetNames(res.Tag); !reflect.DeepEqual(got, want) {
		t.Errorf("assets = %v", got)
	}
	if got := f.AssetNames("latest"); !reflect.DeepEqual(got, want) {
		t.Errorf("latest assets = %v", got)
	}
	if f.Refs["latest"] != "abc123full" || f.Refs[res.Tag] != "abc123full" {
		t.Errorf("refs = %v: latest must point at the build's commit", f.Refs)
	}
	if f.Releases[res.Tag].Latest != "true" || f.Releases["latest"].Latest != "false" {
		t.Error("the dated release must be GitHub's latest release, the rolling one not")
	}

	// The next build: latest follows it, and drops files no longer built.
	build2 := map[string]string{"registry.json": `{"agents":[1]}`, "a.svg": "<svg/>"}
	opts := options(t, f, dist(t, build2), "good")
	opts.Tag, opts.Target = "v2", "def456full"
	if _, err := Publish(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := f.AssetNames("latest"); !reflect.DeepEqual(got, []string{"a.svg", "registry.json"}) {
		t.Errorf("latest assets = %v", got)
	}
	if string(f.Releases["latest"].Assets["registry.json"].Data) != `{"agents":[1]}` || f.Refs["latest"] != "def456full" {
		t.Error("latest release does not hold the new build")
	}
}

func TestPublishResumesPartialUpload(t *testing.T) {
	f := newFakeGitHub(t)
	f.FailAfter = 2
	dir := dist(t, build1)
	opts := options(t, f, dir, "good")
	opts.Tag = "v1"
	_, err := Publish(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "run publish again") {
		t.Fatalf("err = %v", err)
	}
	if got := f.AssetNames("v1"); len(got) != 2 {
		t.Fatalf("assets after the failure = %v", got)
	}
	f.Lock()
	f.FailAfter = 0
	f.Uploads = 0
	// A stale asset of the wrong size, as an interrupted upload leaves.
	f.Releases["v1"].Assets["a.svg"].Data = []byte("trunc")
	f.Unlock()
	res, err := Publish(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || !reflect.DeepEqual(res.Kept, []string{"b.svg"}) || !reflect.DeepEqual(res.Uploaded, []string{"a.svg", "registry.json"}) {
		t.Errorf("result = %+v", res)
	}
	if string(f.Releases["v1"].Assets["a.svg"].Data) != "<svg/>" {
		t.Error("the wrong-size asset was not replaced")
	}
	// Running once more uploads nothing to the dated release.
	f.Lock()
	f.Uploads = 0
	f.Unlock()
	opts.Latest = false
	res, err = Publish(context.Background(), opts)
	if err != nil || len(res.Uploaded) != 0 || f.UploadCount() != 0 {
		t.Errorf("re-run: %+v, %v, %d uploads", res, err, f.UploadCount())
	}
}

func TestPublishPreflightFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(f *fakegithub.Server, o *Options)
		is    error
		want  string
	}{
		{"no token", func(f *fakegithub.Server, o *Options) { o.Token = "" }, ErrNoToken, "set GITHUB_TOKEN"},
		// The token is checked before the default tag is named: outside a
		// git checkout the missing token must still be what is reported.
		{"no token, no tag", func(f *fakegithub.Server, o *Options) {
			o.Token, o.Tag = "", ""
			o.ShortCommit = func(context.Context) (string, error) { return "", errors.New("not a git repository") }
		}, ErrNoToken, "set GITHUB_TOKEN"},
		{"401", func(f *fakegithub.Server, o *Options) { f.Token = "other" }, ErrPermission, "401 Bad credentials"},
		{"read-only token", func(f *fakegithub.Server, o *Options) { f.Push = false }, ErrPermission, "contents: write"},
		{"tag without release", func(f *fakegithub.Server, o *Options) { f.Refs["v1"] = "x" }, ErrTagTaken, "choose another --tag"},
		{"422", func(f *fakegithub.Server, o *Options) { f.RejectNew = "invalid" }, nil, "GitHub rejected it (422): Validation Failed; tag_name invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			opts := options(t, f, dist(t, build1), "good")
			opts.Tag = "v1"
			tc.setup(f, &opts)
			if opts.Tag == "" && opts.ShortCommit == nil {
				t.Fatal("test setup: no tag and no commit namer")
			}
			_, err := Publish(context.Background(), opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if f.UploadCount() != 0 || len(f.Releases) != 0 {
				t.Errorf("something was created or uploaded before the failure: %v", f.Log)
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
		opts := options(t, f, dist(t, build1), "good")
		tc.mod(&opts)
		if _, err := Publish(context.Background(), opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
	if len(f.Log) != 0 {
		t.Errorf("bad input reached GitHub: %v", f.Log)
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
		f.NoDigest = noDigest
		dir := dist(t, build1)
		opts := options(t, f, dir, "good")
		if _, err := Publish(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		f.Lock()
		f.Uploads, f.Log = 0, nil
		f.Unlock()
		res, err := Publish(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var writes []string
		for _, l := range f.Log {
			if !strings.HasPrefix(l, "GET ") {
				writes = append(writes, l)
			}
		}
		if f.UploadCount() != 0 || len(writes) != 0 || len(res.Uploaded) != 0 || len(res.LatestUploaded) != 0 || len(res.Kept) != 3 {
			t.Errorf("noDigest=%v: second run wrote %v (result %+v)", noDigest, writes, res)
		}
	}
}

// The rolling latest release never lacks an asset while a new build
// replaces it: each new copy is uploaded beside the old one, and the old
// one is deleted only right before the new one takes its name.
func TestPublishLatestNeverLacksAnAsset(t *testing.T) {
	f := newFakeGitHub(t)
	opts := options(t, f, dist(t, build1), "good")
	if _, err := Publish(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	build2 := map[string]string{"registry.json": `{"agents":[2]}`, "a.svg": "<svg>A</svg>", "b.svg": "<svg>b</svg>"}
	opts = options(t, f, dist(t, build2), "good")
	opts.Tag, opts.Target = "v2", "def456full"
	res, err := Publish(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Missing) != 0 {
		t.Errorf("latest lacked an asset while serving other requests: %v", f.Missing)
	}
	if !reflect.DeepEqual(res.LatestUploaded, []string{"a.svg", "registry.json"}) {
		t.Errorf("latest uploads %v, want only the changed files", res.LatestUploaded)
	}
	if got := f.AssetNames("latest"); !reflect.DeepEqual(got, []string{"a.svg", "b.svg", "registry.json"}) {
		t.Errorf("latest assets %v", got)
	}
	if string(f.Releases["latest"].Assets["registry.json"].Data) != `{"agents":[2]}` {
		t.Error("latest does not hold the new registry.json")
	}
}

// An API whose asset pages never end (a Link to the next page, forever)
// is refused after the most pages a release can have, not followed
// until the job's time limit.
func TestPublishStopsEndlessAssetPages(t *testing.T) {
	f := newFakeGitHub(t)
	f.LoopPages = true
	_, err := Publish(context.Background(), options(t, f, dist(t, build1), "good"))
	if err == nil || !strings.Contains(err.Error(), "pages") {
		t.Errorf("err = %v, want the endless listing refused", err)
	}
	f.Lock()
	defer f.Unlock()
	n := 0
	for _, l := range f.Log {
		if strings.HasPrefix(l, "GET ") && assetList.MatchString(strings.TrimPrefix(l, "GET ")) {
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
	f.EvilTag = "v1\n::add-mask::q\x1b[2J"
	opts := options(t, f, dist(t, build1), "good")
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
	f.NoDigest = true
	dir := dist(t, build1)
	opts := options(t, f, dir, "good")
	if _, err := Publish(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	f.Lock()
	f.Uploads, f.Short = 0, true
	f.Unlock()
	if _, err := Publish(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "ended after") {
		t.Errorf("err = %v, want the short download named", err)
	}
	if n := f.UploadCount(); n != 0 {
		t.Errorf("%d assets were uploaded again after a short download", n)
	}
}
