package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"
)

func indexJSON(version string) string {
	return fmt.Sprintf(`{"version":"1.0.0","agents":[{"id":"demo","name":"Demo Agent","version":%q,"description":"d","distribution":{"npx":{"package":"demo@%s"}}}],"extensions":[]}`, version, version)
}

// server serves body with an ETag and answers 304 when it matches. Its
// status and body can be changed by the test between loads.
type server struct {
	*httptest.Server
	requests atomic.Int32
	body     atomic.Value // string
	etag     atomic.Value // string
	status   atomic.Int32 // 0 = normal
	lastINM  atomic.Value // string
}

func newServer(t testing.TB, body string) *server {
	s := &server{}
	s.body.Store(body)
	s.etag.Store(`"v1"`)
	s.lastINM.Store("")
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.lastINM.Store(r.Header.Get("If-None-Match"))
		if code := s.status.Load(); code != 0 {
			http.Error(w, "boom", int(code))
			return
		}
		etag := s.etag.Load().(string)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		fmt.Fprint(w, s.body.Load().(string))
	}))
	t.Cleanup(s.Close)
	return s
}

type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

var embedded = fstest.MapFS{
	"builtin/agent.json": {Data: []byte(`{"id":"builtin","name":"Built In","version":"1.0.0","description":"d","distribution":{"npx":{"package":"builtin@1.0.0"}}}`)},
	"builtin/icon.svg":   {Data: []byte(`<svg/>`)},
}

func opts(t *testing.T, s *server, c *clock, stderr *bytes.Buffer) Options {
	return Options{
		CacheDir:   t.TempDir(),
		HTTP:       s.Client(),
		Now:        c.Now,
		Stderr:     stderr,
		DefaultURL: s.URL + "/registry.json",
		Embedded:   embedded,
	}
}

func mustLoad(t *testing.T, o Options) (version string, origin Origin) {
	t.Helper()
	idx, origin, err := Load(context.Background(), o)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return idx.Agents[0].Version, origin
}

func TestFetchCachesAndReusesForAnHour(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	var stderr bytes.Buffer
	o := opts(t, s, c, &stderr)

	if v, origin := mustLoad(t, o); v != "1.0.0" || origin != OriginCDN {
		t.Fatalf("first load = %s from %s, want 1.0.0 from cdn", v, origin)
	}
	cached, err := os.ReadFile(filepath.Join(o.CacheDir, "registry.json"))
	if err != nil || string(cached) != indexJSON("1.0.0") {
		t.Fatalf("cache body = %q, %v", cached, err)
	}
	meta, _ := os.ReadFile(filepath.Join(o.CacheDir, "registry.meta.json"))
	if !strings.Contains(string(meta), `"etag": "\"v1\""`) || !strings.Contains(string(meta), "2026-11-22T10:00:00Z") {
		t.Fatalf("meta = %s", meta)
	}

	c.t = c.t.Add(59 * time.Minute)
	s.body.Store(indexJSON("2.0.0"))
	s.etag.Store(`"v2"`)
	if v, origin := mustLoad(t, o); v != "1.0.0" || origin != OriginCache {
		t.Fatalf("load within the hour = %s from %s, want the cached 1.0.0", v, origin)
	}
	if n := s.requests.Load(); n != 1 {
		t.Fatalf("requests = %d, want 1 (fresh cache needs no request)", n)
	}

	c.t = c.t.Add(2 * time.Minute)
	if v, origin := mustLoad(t, o); v != "2.0.0" || origin != OriginCDN {
		t.Fatalf("stale load = %s from %s, want 2.0.0 from cdn", v, origin)
	}
	if inm := s.lastINM.Load(); inm != `"v1"` {
		t.Fatalf("If-None-Match = %q, want the cached ETag", inm)
	}
	if stderr.Len() != 0 {
		t.Fatalf("unexpected stderr: %s", stderr.String())
	}
}

func TestNotModifiedTouchesTheCache(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	var stderr bytes.Buffer
	o := opts(t, s, c, &stderr)
	mustLoad(t, o)

	c.t = c.t.Add(3 * time.Hour)
	if v, origin := mustLoad(t, o); v != "1.0.0" || origin != OriginCache {
		t.Fatalf("after 304 = %s from %s", v, origin)
	}
	if n := s.requests.Load(); n != 2 {
		t.Fatalf("requests = %d, want 2", n)
	}
	// The 304 renewed fetchedAt: another load half an hour later asks nobody.
	c.t = c.t.Add(30 * time.Minute)
	mustLoad(t, o)
	if n := s.requests.Load(); n != 2 {
		t.Fatalf("requests = %d after a 304 refresh, want still 2", n)
	}
}

func TestServerErrorsFallBackToCacheWithWarning(t *testing.T) {
	for _, code := range []int{404, 500} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			s := newServer(t, indexJSON("1.0.0"))
			c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
			var stderr bytes.Buffer
			o := opts(t, s, c, &stderr)
			mustLoad(t, o)

			s.status.Store(int32(code))
			c.t = c.t.Add(2 * time.Hour)
			if v, origin := mustLoad(t, o); v != "1.0.0" || origin != OriginCache {
				t.Fatalf("load = %s from %s, want the cached copy", v, origin)
			}
			if !strings.Contains(stderr.String(), "warning:") || !strings.Contains(stderr.String(), fmt.Sprint(code)) {
				t.Fatalf("stderr = %q, want a warning naming the status", stderr.String())
			}
		})
	}
}

func TestNoCacheFallsBackToEmbeddedWithNotice(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	s.status.Store(500)
	var stderr bytes.Buffer
	o := opts(t, s, &clock{time.Now()}, &stderr)
	idx, origin, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if origin != OriginEmbedded || idx.Agents[0].ID != "builtin" {
		t.Fatalf("got %s from %s, want builtin from embedded", idx.Agents[0].ID, origin)
	}
	if !strings.Contains(stderr.String(), "notice: using the registry built into this binary") {
		t.Fatalf("stderr = %q", stderr.String())
	}
}

func TestExplicitURLFailureIsAnError(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	s.status.Store(404)
	var stderr bytes.Buffer
	o := opts(t, s, &clock{time.Now()}, &stderr)
	o.Registry = s.URL + "/mirror/registry.json"
	_, _, err := Load(context.Background(), o)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "/mirror/registry.json") {
		t.Fatalf("err = %v, want unavailable naming the URL and 404", err)
	}
}

// A private mirror's password must not end up in messages (and CI logs).
func TestFetchErrorsHideThePassword(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	for _, code := range []int32{500, 404} {
		s.status.Store(code)
		var stderr bytes.Buffer
		o := opts(t, s, &clock{time.Now()}, &stderr)
		o.Registry = strings.Replace(s.URL, "http://", "http://mirror-user:s3cret@", 1) + "/registry.json"
		_, _, err := Load(context.Background(), o)
		if err == nil || strings.Contains(err.Error()+stderr.String(), "s3cret") || !strings.Contains(err.Error(), "mirror-user:xxxxx@") {
			t.Errorf("status %d: err = %v; stderr %q", code, err, stderr.String())
		}
	}
}

func TestExplicitURLIsCachedSeparately(t *testing.T) {
	s := newServer(t, indexJSON("3.0.0"))
	c := &clock{time.Now()}
	var stderr bytes.Buffer
	o := opts(t, s, c, &stderr)
	o.Registry = s.URL + "/mirror/registry.json"
	if v, origin := mustLoad(t, o); v != "3.0.0" || origin != OriginURL {
		t.Fatalf("got %s from %s", v, origin)
	}
	if _, err := os.Stat(filepath.Join(o.CacheDir, "registry.json")); !os.IsNotExist(err) {
		t.Fatalf("a mirror must not overwrite the CDN's cache: %v", err)
	}
	s.status.Store(500)
	c.t = c.t.Add(2 * time.Hour)
	if v, origin := mustLoad(t, o); v != "3.0.0" || origin != OriginCache {
		t.Fatalf("got %s from %s, want the mirror's cached copy", v, origin)
	}
}

func TestBadBodiesNeverReplaceTheCache(t *testing.T) {
	huge := strings.Repeat(" ", 64<<20+10) + indexJSON("9.9.9")
	cases := map[string]string{
		"corrupt":       `{"version":"1.0.0","agents":[{"id":`,
		"not an object": `"hello"`,
		"duplicate ids": `{"version":"1.0.0","agents":[{"id":"a","name":"A","version":"1.0.0","description":"d","distribution":{"npx":{"package":"a@1.0.0"}}},{"id":"a","name":"A","version":"1.0.0","description":"d","distribution":{"npx":{"package":"a@1.0.0"}}}],"extensions":[]}`,
		"wrong types":   `{"version":"1.0.0","agents":[{"id":"a","name":7,"version":"1.0.0","description":"d","distribution":{"npx":{"package":"a@1.0.0"}}}],"extensions":[]}`,
		"bad id":        `{"version":"1.0.0","agents":[{"id":"../../etc","name":"A","version":"1.0.0","description":"d","distribution":{"npx":{"package":"a@1.0.0"}}}],"extensions":[]}`,
		"huge":          huge,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, indexJSON("1.0.0"))
			c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
			var stderr bytes.Buffer
			o := opts(t, s, c, &stderr)
			mustLoad(t, o)
			before, _ := os.ReadFile(filepath.Join(o.CacheDir, "registry.json"))

			s.body.Store(body)
			s.etag.Store(`"evil"`)
			c.t = c.t.Add(2 * time.Hour)
			if v, origin := mustLoad(t, o); v != "1.0.0" || origin != OriginCache {
				t.Fatalf("got %s from %s, want the good cached copy", v, origin)
			}
			after, _ := os.ReadFile(filepath.Join(o.CacheDir, "registry.json"))
			if !bytes.Equal(before, after) {
				t.Fatal("the cached registry.json changed")
			}
			meta, _ := os.ReadFile(filepath.Join(o.CacheDir, "registry.meta.json"))
			if strings.Contains(string(meta), "evil") {
				t.Fatalf("meta took the bad body's ETag: %s", meta)
			}
			if !strings.Contains(stderr.String(), "warning:") {
				t.Fatalf("stderr = %q, want a warning", stderr.String())
			}
		})
	}
}

func TestNetworkFailureUsesCache(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	c := &clock{time.Now()}
	var stderr bytes.Buffer
	o := opts(t, s, c, &stderr)
	mustLoad(t, o)
	s.Close()
	c.t = c.t.Add(2 * time.Hour)
	if v, origin := mustLoad(t, o); v != "1.0.0" || origin != OriginCache {
		t.Fatalf("got %s from %s", v, origin)
	}
	if !strings.Contains(stderr.String(), "warning: fetch "+s.URL) {
		t.Fatalf("stderr = %q", stderr.String())
	}
}

func TestOfflineNeverTouchesTheNetwork(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	c := &clock{time.Now()}
	var stderr bytes.Buffer
	o := opts(t, s, c, &stderr)
	o.Offline = true
	if _, origin := mustLoad(t, o); origin != OriginEmbedded {
		t.Fatalf("offline without cache: origin %s, want embedded", origin)
	}
	o.Offline = false
	mustLoad(t, o)
	o.Offline = true
	c.t = c.t.Add(48 * time.Hour)
	if v, origin := mustLoad(t, o); v != "1.0.0" || origin != OriginCache {
		t.Fatalf("offline with an old cache: %s from %s", v, origin)
	}
	if n := s.requests.Load(); n != 1 {
		t.Fatalf("requests = %d, want only the one online load", n)
	}

	o.Registry = s.URL + "/other.json"
	if _, _, err := Load(context.Background(), o); err == nil || !strings.Contains(err.Error(), "offline, and nothing cached yet") {
		t.Fatalf("offline explicit URL without cache: err = %v", err)
	}
}

func TestCorruptCacheOnDiskIsIgnored(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	var stderr bytes.Buffer
	o := opts(t, s, &clock{time.Now()}, &stderr)
	os.WriteFile(filepath.Join(o.CacheDir, "registry.json"), []byte("{garbage"), 0o644)
	os.WriteFile(filepath.Join(o.CacheDir, "registry.meta.json"), []byte(`{"url":"`+o.DefaultURL+`","etag":"\"v1\"","fetchedAt":"`+time.Now().UTC().Format(time.RFC3339)+`"}`), 0o644)
	if v, origin := mustLoad(t, o); v != "1.0.0" || origin != OriginCDN {
		t.Fatalf("got %s from %s, want a fresh fetch", v, origin)
	}
	if s.lastINM.Load() != "" {
		t.Fatal("sent If-None-Match for a corrupt cached body; a 304 would leave nothing to use")
	}
}

func TestFutureFetchTimeCountsAsStale(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	var stderr bytes.Buffer
	o := opts(t, s, c, &stderr)
	mustLoad(t, o)
	c.t = c.t.Add(-24 * time.Hour) // the clock was wrong at the first fetch
	mustLoad(t, o)
	if n := s.requests.Load(); n != 2 {
		t.Fatalf("requests = %d, want a revalidation", n)
	}
}

func TestPlainHTTPOnlyFromLoopback(t *testing.T) {
	var stderr bytes.Buffer
	o := Options{Registry: "http://registry.example.com/registry.json", CacheDir: t.TempDir(), Stderr: &stderr}
	_, _, err := Load(context.Background(), o)
	if !errors.Is(err, ErrInsecureURL) || !strings.Contains(err.Error(), "use https") {
		t.Fatalf("err = %v", err)
	}

	// A loopback server may not redirect to plain http elsewhere.
	redirect := httptest.NewServer(http.RedirectHandler("http://registry.example.com/registry.json", http.StatusFound))
	defer redirect.Close()
	o = Options{Registry: redirect.URL, HTTP: redirect.Client(), Stderr: &stderr}
	_, _, err = Load(context.Background(), o)
	if !errors.Is(err, ErrInsecureURL) {
		t.Fatalf("redirect: err = %v", err)
	}
}

func TestFileAndFolderSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "registry.json")
	os.WriteFile(file, []byte(indexJSON("4.0.0")), 0o644)
	idx, origin, err := Load(context.Background(), Options{Registry: file})
	if err != nil || origin != OriginFile || idx.Agents[0].Version != "4.0.0" {
		t.Fatalf("file: %v %s %v", idx, origin, err)
	}

	tree := filepath.Join(dir, "tree")
	os.MkdirAll(filepath.Join(tree, "builtin"), 0o755)
	os.WriteFile(filepath.Join(tree, "builtin", "agent.json"), embedded["builtin/agent.json"].Data, 0o644)
	idx, origin, err = Load(context.Background(), Options{Registry: tree})
	if err != nil || origin != OriginDir || idx.Agents[0].ID != "builtin" {
		t.Fatalf("dir: %v %s %v", idx, origin, err)
	}

	os.WriteFile(file, []byte(`{"version":"1.0.0"}`), 0o644)
	_, _, err = Load(context.Background(), Options{Registry: file})
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), `no "agents"`) {
		t.Fatalf("bad file: err = %v", err)
	}
	_, _, err = Load(context.Background(), Options{Registry: filepath.Join(dir, "missing.json")})
	if err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("missing file: err = %v", err)
	}
}

func TestEmbeddedRejectsMismatchedFolder(t *testing.T) {
	fsys := fstest.MapFS{"other/agent.json": embedded["builtin/agent.json"]}
	if _, err := Embedded(fsys); err == nil || !strings.Contains(err.Error(), `"other"`) {
		t.Fatalf("err = %v", err)
	}
}

// Folders and files a user may point --registry at by mistake or on
// purpose: each either works or says what a registry folder is.
func TestFolderAndFileEdgeCases(t *testing.T) {
	dir := t.TempDir()
	manifest := embedded["builtin/agent.json"].Data
	load := func(path string) error {
		_, _, err := Load(context.Background(), Options{Registry: path})
		return err
	}

	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	if err := load(empty); err == nil || !strings.Contains(err.Error(), "no agents in it") {
		t.Errorf("empty folder: err = %v, want one saying it holds no agents", err)
	}

	// One agent's folder, or its agent.json: a registry of that agent.
	one := filepath.Join(dir, "builtin")
	os.MkdirAll(one, 0o755)
	os.WriteFile(filepath.Join(one, "agent.json"), manifest, 0o644)
	for _, p := range []string{one, filepath.Join(one, "agent.json")} {
		idx, _, err := Load(context.Background(), Options{Registry: p})
		if err != nil || len(idx.Agents) != 1 || idx.Agents[0].ID != "builtin" {
			t.Errorf("%s: %v, %v; want the one agent", p, idx, err)
		}
	}

	// A hand-edited folder is held to registry.json's invariants.
	dup := filepath.Join(dir, "dup")
	for _, name := range []string{"a", "b"} {
		os.MkdirAll(filepath.Join(dup, name), 0o755)
		os.WriteFile(filepath.Join(dup, name, "agent.json"), manifest, 0o644)
	}
	if err := load(dup); err == nil || !strings.Contains(err.Error(), `"builtin" appears 2 times`) {
		t.Errorf("duplicate ids: err = %v", err)
	}

	blank := filepath.Join(dir, "blank.json")
	os.WriteFile(blank, []byte("\r\n"), 0o644)
	if err := load(blank); err == nil || !strings.Contains(err.Error(), "the file is empty") || strings.Contains(err.Error(), "EOF") {
		t.Errorf("empty file: err = %v", err)
	}
}

// A connection failure names the URL once, not again in Go's
// `Get "…":` prefix.
func TestFetchErrorNamesURLOnce(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	u := s.URL + "/registry.json"
	s.Close()
	_, _, err := Load(context.Background(), Options{Registry: u})
	if err == nil || strings.Count(err.Error(), u) != 1 || strings.Contains(err.Error(), `Get "`) || !errors.Is(err, ErrUnavailable) {
		// "read registry URL: dial …"
		t.Fatalf("err = %v", err)
	}
}
