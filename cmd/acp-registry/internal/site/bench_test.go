package site

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/build"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testcorpus"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// BenchmarkSite5000 writes the catalog of 5,000 real-shaped agents
// (bench/genregistry over the valid corpus agents) and, as the reference
// beside it, builds the same tree, interleaved (site, build, site, ...)
// so that both see the same load: the ratio is the catalog's cost over
// `acp-registry build`'s.
func BenchmarkSite5000(b *testing.B) {
	root := genTree(b, 5000)
	vo := validate.Options{SkipURLs: true, Lean: true}
	out, dist := filepath.Join(b.TempDir(), "site"), filepath.Join(b.TempDir(), "dist")
	var siteTime, buildTime time.Duration
	for b.Loop() {
		start := time.Now()
		_, err := Generate(context.Background(), Options{Root: root, Out: out, Validate: build.Validator(vo)})
		if err != nil {
			b.Fatal(err)
		}
		siteTime += time.Since(start)
		start = time.Now()
		_, err = build.Build(context.Background(), build.Options{Root: root, Out: dist,
			Validate: build.Validator(vo), Schemas: build.Schemas()})
		if err != nil {
			b.Fatal(err)
		}
		buildTime += time.Since(start)
	}
	b.ReportMetric(float64(siteTime.Milliseconds())/float64(b.N), "site-ms")
	b.ReportMetric(float64(buildTime.Milliseconds())/float64(b.N), "build-ms")
	b.ReportMetric(siteTime.Seconds()/buildTime.Seconds(), "ratio")
}

// BenchmarkCatalogLoad loads index.html in headless chromium, from a
// loopback server with the cache off, until its load event (its script
// has filtered by then), and beside it registry.json of the same tree in
// the same browser. It reports both times, their ratio and the bytes of
// each page.
func BenchmarkCatalogLoad(b *testing.B) {
	br := startBrowser(b, 15*time.Minute)
	// One server for both sizes: the browser asks for /favicon.ico when it
	// shows registry.json (the catalog's pages name their icon), at times
	// after the load event.
	top := b.TempDir()
	files := http.FileServer(http.Dir(top))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	for _, c := range []struct {
		name string
		tree func(testing.TB) string
	}{
		{"corpus", func(tb testing.TB) string { return testcorpus.ValidCopy(tb) }},
		{"5000", func(tb testing.TB) string { return genTree(tb, 5000) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			root := c.tree(b)
			dir := filepath.Join(top, c.name)
			generate(b, root, filepath.Join(dir, "site"), nil)
			_, err := build.Build(context.Background(), build.Options{Root: root, Out: filepath.Join(dir, "dist"),
				Validate: build.Validator(validate.Options{SkipURLs: true}), Schemas: build.Schemas()})
			if err != nil {
				b.Fatal(err)
			}
			// Medians, not means: one slow load on a busy machine says
			// little about the page.
			var page, ref, ratio []float64
			for b.Loop() {
				p := loadMillis(b, br, srv.URL+"/"+c.name+"/site/index.html?q=agent")
				r := loadMillis(b, br, srv.URL+"/"+c.name+"/dist/registry.json")
				page, ref, ratio = append(page, p), append(ref, r), append(ratio, p/r)
			}
			b.ReportMetric(median(page), "index-ms")
			b.ReportMetric(median(ref), "registry.json-ms")
			b.ReportMetric(median(ratio), "ratio")
			b.ReportMetric(float64(fileSizes(b, filepath.Join(dir, "site"), "index.html", "site.css", "site.js", "favicon.svg")), "page-bytes")
			b.ReportMetric(float64(fileSizes(b, filepath.Join(dir, "dist"), "registry.json")), "registry.json-bytes")
			b.ReportMetric(0, "ns/op")
			br.check(b, srv.URL+"/")
		})
	}
}

// loadMillis navigates to u and returns the navigation's duration: from
// its start to the end of the load event.
func loadMillis(tb testing.TB, br *browser, u string) float64 {
	br.navigate(tb, u)
	ms, err := chromedp.Run(br.ctx, chromedp.Evaluate[float64](`performance.getEntriesByType("navigation")[0].duration`))
	if err != nil {
		tb.Fatal(err)
	}
	return ms
}

func fileSizes(tb testing.TB, dir string, names ...string) int64 {
	var n int64
	for _, name := range names {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		n += st.Size()
	}
	return n
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
