package iconcache

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const goodIcon = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><path fill="currentColor" d="M0 0h16v16H0z"/></svg>`

// hostile icons: each must never reach the cache.
var hostile = map[string]string{
	"script":   `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><script>alert(1)</script><path fill="currentColor" d="M0 0h16v16H0z"/></svg>`,
	"external": `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="16" height="16" viewBox="0 0 16 16"><image xlink:href="https://evil.example/x.png" width="16" height="16"/><path fill="currentColor" d="M0 0h16v16H0z"/></svg>`,
	"huge":     `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><path fill="currentColor" d="M0 0h16v16H0z` + strings.Repeat(" M0 0h1v1H0z", 8000) + `"/></svg>`,
	"html":     `<html><body>not an icon</body></html>`,
	// A kilobyte that makes a renderer build 10^8 copies: an editor's
	// agent list would freeze on it.
	"use bomb": useBomb(8),
}

func useBomb(levels int) string {
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><defs><g id="l0"><path fill="currentColor" d="M0 0h1v1H0z"/></g>`)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, `<g id="l%d">%s</g>`, i, strings.Repeat(fmt.Sprintf(`<use href="#l%d"/>`, i-1), 10))
	}
	fmt.Fprintf(&b, `</defs><use href="#l%d"/></svg>`, levels)
	return b.String()
}

// iconServer is a loopback server of icons whose answers tests change.
type iconServer struct {
	*httptest.Server
	mu    sync.Mutex
	body  map[string]string
	code  map[string]int
	count map[string]int
}

func newIconServer(t *testing.T) *iconServer {
	s := &iconServer{body: map[string]string{}, code: map[string]int{}, count: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.count[r.URL.Path]++
		body, code := s.body[r.URL.Path], s.code[r.URL.Path]
		s.mu.Unlock()
		if code != 0 {
			w.WriteHeader(code)
			return
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *iconServer) set(path, body string, code int) {
	s.mu.Lock()
	s.body[path], s.code[path] = body, code
	s.mu.Unlock()
}

func (s *iconServer) hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count[path]
}

// fetch is a plain GET into a temporary file, as the installer's Fetch
// gives it (its policy is the installer's tests' business).
func fetch(ctx context.Context, url, dir string, max int64) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %s", resp.Status)
	}
	f, err := os.CreateTemp(dir, ".dl-*")
	if err != nil {
		return "", err
	}
	defer f.Close()
	n, err := io.Copy(f, io.LimitReader(resp.Body, max+1))
	if err == nil && n > max {
		err = fmt.Errorf("more than %d bytes", max)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newCache(t *testing.T) (*Cache, *clock, *[]string) {
	clk := &clock{t: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
	var warns []string
	var mu sync.Mutex
	c := &Cache{Dir: filepath.Join(t.TempDir(), "icons"), Fetch: fetch, Now: clk.now, Warn: func(s string) {
		mu.Lock()
		warns = append(warns, s)
		mu.Unlock()
	}}
	return c, clk, &warns
}

func files(t *testing.T, dir string) []string {
	t.Helper()
	es, _ := os.ReadDir(dir)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestIconFetchedCheckedAndKept(t *testing.T) {
	srv := newIconServer(t)
	srv.set("/a.svg", goodIcon, 0)
	c, clk, _ := newCache(t)
	url := srv.URL + "/a.svg"
	if p := c.Path("a", url); p != "" {
		t.Fatalf("Path before any fetch = %q", p)
	}
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
	p := c.Path("a", url)
	if p == "" || !strings.HasPrefix(filepath.Base(p), "a-") || filepath.Ext(p) != ".svg" {
		t.Fatalf("Path = %q, want the cache's a-<hash>.svg", p)
	}
	if got, _ := os.ReadFile(p); string(got) != goodIcon {
		t.Errorf("cached icon = %q", got)
	}
	// Within a day: no new request, the same copy; another URL has none.
	clk.t = clk.t.Add(23 * time.Hour)
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
	if n := srv.hits("/a.svg"); n != 1 {
		t.Errorf("%d requests within MaxAge, want 1", n)
	}
	if c.Path("a", srv.URL+"/moved.svg") != "" {
		t.Error("a copy of one URL is given for another")
	}
	// After a day it is asked for again; new content replaces the file.
	changed := strings.Replace(goodIcon, "h16v16H0z", "h8v8H0z", 1)
	srv.set("/a.svg", changed, 0)
	clk.t = clk.t.Add(2 * time.Hour)
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
	p2 := c.Path("a", url)
	if got, _ := os.ReadFile(p2); string(got) != changed || p2 == p {
		t.Errorf("after MaxAge: %s holds %q, want the new content under a new name", p2, got)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("the old copy %s is still there", p)
	}
	if fs := files(t, c.Dir); len(fs) != 2 {
		t.Errorf("cache holds %v, want a.json and one svg (no temporary files)", fs)
	}
	// A copy removed by hand is fetched again, whatever its age.
	os.Remove(p2)
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
	if got := c.Path("a", url); got != p2 {
		t.Errorf("after the copy was removed Path = %q, want it fetched again as %q", got, p2)
	}
}

func TestHostileIconIsNeverCached(t *testing.T) {
	for name, body := range hostile {
		t.Run(name, func(t *testing.T) {
			srv := newIconServer(t)
			srv.set("/a.svg", goodIcon, 0)
			c, clk, warns := newCache(t)
			url := srv.URL + "/a.svg"
			c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
			old := c.Path("a", url)
			if old == "" {
				t.Fatal("the good icon was not cached")
			}
			// The registry's icon turns hostile: the old copy goes too.
			srv.set("/a.svg", body, 0)
			clk.t = clk.t.Add(25 * time.Hour)
			c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
			if p := c.Path("a", url); p != "" {
				t.Errorf("Path = %q for a hostile icon", p)
			}
			if fs := files(t, c.Dir); !slices.Equal(fs, []string{"a.json"}) {
				t.Errorf("cache holds %v, want only the record", fs)
			}
			if len(*warns) != 1 || !strings.Contains((*warns)[0], "is not safe to show") {
				t.Errorf("warnings %q, want one naming the refusal", *warns)
			}
			// Refused is remembered: no request before MaxAge.
			c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
			if n := srv.hits("/a.svg"); n != 2 {
				t.Errorf("%d requests, want 2 (the refusal is remembered)", n)
			}
			// Stored from a local registry: refused the same way.
			if p := c.Store("b", []byte(body)); p != "" {
				t.Errorf("Store kept a hostile icon at %s", p)
			}
		})
	}
}

func TestFailedFetchKeepsCopyAndWaits(t *testing.T) {
	srv := newIconServer(t)
	srv.set("/a.svg", goodIcon, 0)
	c, clk, warns := newCache(t)
	url := srv.URL + "/a.svg"
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
	p := c.Path("a", url)
	srv.set("/a.svg", "", http.StatusInternalServerError)
	clk.t = clk.t.Add(25 * time.Hour)
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
	if got := c.Path("a", url); got != p || p == "" {
		t.Errorf("after a failed refresh Path = %q, want the old copy %q", got, p)
	}
	if len(*warns) != 1 {
		t.Errorf("warnings %q, want one", *warns)
	}
	// No new attempt within RetryAfter, one after it.
	clk.t = clk.t.Add(time.Minute)
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
	if n := srv.hits("/a.svg"); n != 2 {
		t.Errorf("%d requests within RetryAfter, want 2", n)
	}
	clk.t = clk.t.Add(DefaultRetryAfter)
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
	if n := srv.hits("/a.svg"); n != 3 {
		t.Errorf("%d requests after RetryAfter, want 3", n)
	}
}

func TestStoreLocalIcon(t *testing.T) {
	c, _, _ := newCache(t)
	p := c.Store("a", []byte(goodIcon))
	if got, _ := os.ReadFile(p); string(got) != goodIcon {
		t.Fatalf("Store = %q holding %q", p, got)
	}
	if p2 := c.Store("a", []byte(goodIcon)); p2 != p {
		t.Errorf("the same icon stored twice: %q then %q", p, p2)
	}
	if c.Store("../x", []byte(goodIcon)) != "" {
		t.Error("an id that is not one was stored")
	}
}

// A record that was tampered with cannot point outside the folder.
func TestDamagedRecordIsIgnored(t *testing.T) {
	c, _, _ := newCache(t)
	os.MkdirAll(c.Dir, 0o755)
	os.WriteFile(filepath.Join(c.Dir, "a.json"), []byte(`{"url":"https://x/a.svg","file":"../../etc/passwd"}`), 0o644)
	if p := c.Path("a", "https://x/a.svg"); p != "" {
		t.Errorf("Path = %q from a damaged record", p)
	}
}

// An id that cannot name a file on every system (a Windows device name,
// whose "con.json" Windows opens as the console; one too long for a file
// name) gets no icon and costs no request or warning, on every system
// alike: a registry may list it, the cache cannot hold it.
func TestIDThatCannotNameAFileGetsNoIcon(t *testing.T) {
	srv := newIconServer(t)
	srv.set("/a.svg", goodIcon, 0)
	url := srv.URL + "/a.svg"
	for _, id := range []string{"con", "nul", "com1", "lpt9", "aux", strings.Repeat("a", 250)} {
		c, _, warns := newCache(t)
		c.Refresh(context.Background(), []Icon{{ID: id, URL: url}})
		if p := c.Path(id, url); p != "" {
			t.Errorf("Path(%.20s) = %q", id, p)
		}
		if p := c.Store(id, []byte(goodIcon)); p != "" {
			t.Errorf("Store(%.20s) = %q", id, p)
		}
		if got := files(t, c.Dir); len(got) != 0 || len(*warns) != 0 {
			t.Errorf("id %.20s: files %q, warnings %q", id, got, *warns)
		}
	}
	if n := srv.hits("/a.svg"); n != 0 {
		t.Errorf("%d requests for icons that cannot be kept", n)
	}
}

// When the time for icons runs out, the warning says so in the caller's
// words (ctx's cause), not Go's "context deadline exceeded".
func TestWarningSaysWhyTheFetchStopped(t *testing.T) {
	arrived := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	}))
	defer srv.Close()
	c, _, warns := newCache(t)
	c.Fetch = func(ctx context.Context, url, dir string, max int64) (string, error) {
		p, err := fetch(ctx, url, dir, max)
		if ctx.Err() != nil {
			return "", ctx.Err() // as the installer's Fetch says it
		}
		return p, err
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-arrived
		cancel(fmt.Errorf("the icons' 10s ran out"))
	}()
	c.Refresh(ctx, []Icon{{ID: "a", URL: srv.URL + "/a.svg"}})
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "the icons' 10s ran out") {
		t.Errorf("warnings %q, want one naming the cause", *warns)
	}
}

// TestSafeIconOutsideTheStyleRulesIsKept: an editor needs an icon to be
// safe, not to follow the registry's style. A custom registry's colourful
// 48×48 icon with a comment breaks four of the registry's rules and none
// of safety's: it is cached and handed to editors.
func TestSafeIconOutsideTheStyleRulesIsKept(t *testing.T) {
	for name, body := range map[string]string{
		"colourful": `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><!-- brand --><path fill="#e8590c" d="M0 0h48v48H0z"/></svg>`,
		"gradient":  `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="32" viewBox="0 0 16 32"><defs><linearGradient id="g"><stop stop-color="red"/></linearGradient></defs><path fill="url(#g)" d="M0 0h16v32H0z"/></svg>`,
		"no size":   `<svg xmlns="http://www.w3.org/2000/svg"><style>path{fill:blue}</style><path d="M0 0h16v16H0z"/></svg>`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := newIconServer(t)
			srv.set("/a.svg", body, 0)
			c, _, warns := newCache(t)
			url := srv.URL + "/a.svg"
			c.Refresh(context.Background(), []Icon{{ID: "a", URL: url}})
			p := c.Path("a", url)
			if got, _ := os.ReadFile(p); p == "" || string(got) != body {
				t.Errorf("Path = %q holding %q, want the icon kept", p, got)
			}
			if len(*warns) != 0 {
				t.Errorf("warnings %q, want none", *warns)
			}
			if c.Store("b", []byte(body)) == "" {
				t.Error("Store refused it from a registry folder")
			}
		})
	}
}

// TestLeftoversOfAKilledFetchAreSwept: an acp killed mid-fetch (an editor
// closing) leaves its temporary file; the cache would grow by up to a
// megabyte a time. A refresh removes those an hour old, and leaves a
// fresh one, which another acp may be writing.
func TestLeftoversOfAKilledFetchAreSwept(t *testing.T) {
	srv := newIconServer(t)
	srv.set("/a.svg", goodIcon, 0)
	c, clk, _ := newCache(t)
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	plant := func(name string, age time.Duration) {
		p := filepath.Join(c.Dir, name)
		if err := os.WriteFile(p, []byte("<svg"), 0o600); err != nil {
			t.Fatal(err)
		}
		when := clk.t.Add(-age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	plant(".dl-12345", 2*time.Hour)
	plant(".a.json.tmp-678", 2*time.Hour)
	plant(".dl-99999", time.Minute)
	plant("notes.txt", 48*time.Hour) // not the cache's: left alone
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: srv.URL + "/a.svg"}})
	got := files(t, c.Dir)
	slices.Sort(got)
	want := []string{".dl-99999", filepath.Base(c.Path("a", srv.URL+"/a.svg")), "a.json", "notes.txt"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("cache holds %v, want %v", got, want)
	}
}

// TestRefusalByAStyleRuleIsNotKept: an acp before the safety walk refused
// icons for the registry's style (icon-size, a hard-coded colour) and
// remembered it for a day; after the upgrade such an icon is asked for
// again at once, not a day later. A safety refusal is still remembered.
func TestRefusalByAStyleRuleIsNotKept(t *testing.T) {
	srv := newIconServer(t)
	brand := `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><rect fill="#e8590c" width="48" height="48"/></svg>`
	srv.set("/a.svg", brand, 0)
	srv.set("/b.svg", hostile["script"], 0)
	c, clk, _ := newCache(t)
	a, b := srv.URL+"/a.svg", srv.URL+"/b.svg"
	for id, r := range map[string]record{
		"a": {URL: a, CheckedAt: clk.t.Add(-time.Hour), Refused: `icon-size: the icon is 48×48; icons must be 16×16`},
		"b": {URL: b, CheckedAt: clk.t.Add(-time.Hour), Refused: `icon-unsafe: <script> elements run code`},
	} {
		if err := c.write(id, r); err != nil {
			t.Fatal(err)
		}
	}
	c.Refresh(context.Background(), []Icon{{ID: "a", URL: a}, {ID: "b", URL: b}})
	if c.Path("a", a) == "" {
		t.Error("the icon an older acp refused for its style has no path after a refresh")
	}
	if n := srv.hits("/b.svg"); n != 0 {
		t.Errorf("%d requests for an icon refused as unsafe an hour ago, want 0", n)
	}
}
