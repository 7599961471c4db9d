package site

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// findBrowser is Debian's chromium (or another Chromium or Chrome on
// PATH). Without one the browser tests skip, unless ACP_REQUIRE_BROWSER=1
// (CI, which installs chromium) says they must run.
func findBrowser(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("short mode: the browser tests run in the full test run")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("ACP_REQUIRE_BROWSER") == "1" {
		tb.Fatal("no chromium on PATH, and ACP_REQUIRE_BROWSER=1 says the browser tests must run: apt-get install -y chromium")
	}
	tb.Skip("no chromium on PATH: skipping the browser tests (ACP_REQUIRE_BROWSER=1 makes this a failure)")
	return ""
}

// browser is one headless chromium whose every event the test records.
type browser struct {
	ctx context.Context

	mu       sync.Mutex
	requests []string // every URL the pages asked for
	console  []string // console errors, exceptions, browser log errors
	dialogs  []string // alert/confirm/prompt: script ran
	failures []string // loads that failed or were answered >= 400
}

func startBrowser(tb testing.TB, budget time.Duration) *browser {
	tb.Helper()
	exe := findBrowser(tb)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(tb.TempDir()),
		// Chromium's sandbox refuses to run as root (CI containers), and
		// Ubuntu 23.10+ denies it the user namespaces it needs (GitHub's
		// runners). The pages are the test's own, from loopback; that no
		// manifest text runs as script is what the tests check.
		chromedp.NoSandbox,
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelC := context.WithTimeout(ctx, budget)
	tb.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	b := &browser{ctx: ctx}
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("start %s: %v", exe, err)
	}
	if err := chromedp.Listen(ctx, b.record); err != nil {
		tb.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		tb.Fatal(err)
	}
	return b
}

func (b *browser) record(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, ev.Request.URL)
	case *network.EventResponseReceived:
		if ev.Response.Status >= 400 {
			b.failures = append(b.failures, fmt.Sprintf("%s: %d", ev.Response.URL, ev.Response.Status))
		}
	case *network.EventLoadingFailed:
		b.failures = append(b.failures, fmt.Sprintf("%s request %s: %s", ev.Type, ev.RequestID, ev.ErrorText))
	case *cdpruntime.EventConsoleAPICalled:
		if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeWarning || ev.Type == cdpruntime.ConsoleAPICalledTypeAssert {
			b.console = append(b.console, fmt.Sprintf("console.%s %v", ev.Type, ev.Args))
		}
	case *cdpruntime.EventExceptionThrown:
		b.console = append(b.console, "exception: "+(&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error())
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
			b.console = append(b.console, fmt.Sprintf("log %s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	case *cdppage.EventJavascriptDialogOpening:
		b.dialogs = append(b.dialogs, ev.Message)
		go chromedp.Call(b.ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: false})
	}
}

// check fails tb for every console error, dialog, failed load, and
// request that left the site (whose URLs start with base) since the last
// check.
func (b *browser) check(tb testing.TB, base ...string) {
	tb.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	defer func() { b.console, b.dialogs, b.failures, b.requests = nil, nil, nil, nil }()
	for _, c := range b.console {
		tb.Errorf("console: %s", c)
	}
	for _, d := range b.dialogs {
		tb.Errorf("a dialog opened (script from a manifest ran?): %q", d)
	}
	for _, f := range b.failures {
		tb.Errorf("load failed: %s", f)
	}
	for _, u := range b.requests {
		if !slices.ContainsFunc(base, func(p string) bool { return strings.HasPrefix(u, p) }) {
			tb.Errorf("request outside the site: %s", u)
		}
	}
}

func (b *browser) navigate(tb testing.TB, u string) {
	tb.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(u)); err != nil {
		tb.Fatalf("navigate to %s: %v", u, err)
	}
}

func eval[T any](tb testing.TB, b *browser, js string) T {
	tb.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		tb.Fatalf("%s: %v", js, err)
	}
	return v
}

// serveDir serves dir on loopback and records what was asked of it.
func serveDir(tb testing.TB, dir string) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	tb.Cleanup(srv.Close)
	return srv
}

func saveScreenshot(tb testing.TB, b *browser, name string, full bool) {
	tb.Helper()
	dir := os.Getenv("ACP_ARTIFACTS")
	if dir == "" {
		dir = tb.TempDir()
	}
	// Icons on screen load lazily, after the load event: wait for them.
	// Polled, since where a card lies changes as the cards around it are
	// laid out (content-visibility), and with it which icons load.
	icons := `Array.from(document.images).every(i => i.complete || i.getBoundingClientRect().top >= innerHeight)`
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](icons)); err != nil {
		tb.Fatalf("screenshot %s: wait for the icons: %v", name, err)
	}
	shot := chromedp.CaptureScreenshot()
	if full {
		shot = chromedp.FullScreenshot(100)
	}
	png, err := chromedp.Run(b.ctx, shot)
	if err != nil {
		tb.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("screenshot: %s", p)
}

// links are the URLs a page links to or loads, as written in it.
const linksJS = `Array.from(document.querySelectorAll("a[href], img[src], link[href], script[src]")).map(e => e.getAttribute("href") || e.getAttribute("src"))`

// checkLinks fails tb for a link of the page at pageURL (below siteURL)
// that is relative and names no file of dir, and for anything loaded
// (img, link, script) from elsewhere than the site.
func checkLinks(tb testing.TB, b *browser, siteURL, pageURL, dir string) {
	tb.Helper()
	base, err := url.Parse(pageURL)
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range eval[[]string](tb, b, linksJS) {
		u, err := url.Parse(l)
		if err != nil {
			tb.Errorf("%s: bad link %q", pageURL, l)
			continue
		}
		if u.IsAbs() {
			if u.Scheme != "https" && u.Scheme != "http" {
				tb.Errorf("%s: link %q is neither relative nor http(s)", pageURL, l)
			}
			continue // a link to a manifest's website: not followed, not loaded
		}
		if strings.HasPrefix(l, "/") || strings.HasPrefix(l, "//") {
			tb.Errorf("%s: link %q is not relative: it breaks from file:// and from a subfolder", pageURL, l)
			continue
		}
		abs := base.ResolveReference(u).String()
		rel, ok := strings.CutPrefix(strings.SplitN(abs, "#", 2)[0], siteURL+"/")
		if !ok {
			tb.Errorf("%s: link %q leaves the site", pageURL, l)
			continue
		}
		rel = strings.SplitN(rel, "?", 2)[0]
		if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(path.Clean(rel)))); err != nil || st.IsDir() {
			tb.Errorf("%s: link %q names no file of the site (%s)", pageURL, l, rel)
		}
	}
	loaded := eval[[]string](tb, b, `Array.from(document.querySelectorAll("img[src], link[href][rel=stylesheet], script[src]")).map(e => e.getAttribute("src") || e.getAttribute("href")).filter(s => /^[a-z]+:|^\/\//i.test(s))`)
	for _, l := range loaded {
		tb.Errorf("%s: loads %q from outside the site", pageURL, l)
	}
}
