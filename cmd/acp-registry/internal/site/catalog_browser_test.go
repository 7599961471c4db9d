package site

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/verify"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testcorpus"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// TestCatalogInBrowser builds the catalog of the corpus (and one hostile
// agent) and reads it in headless chromium as a visitor would, over a
// loopback server and from file://.
// catalogCase is the catalog of the corpus (and one hostile agent),
// served on loopback, and the browser that reads it.
type catalogCase struct {
	b    *browser
	site string // the server's URL
	out  string // the catalog's folder
	want map[string]registry.Manifest
	mx   *verify.Matrix
}

// TestCatalogInBrowser builds the catalog of the corpus (and one hostile
// agent) and reads it in headless chromium as a visitor would, over a
// loopback server and from file://.
func TestCatalogInBrowser(t *testing.T) {
	root := testcorpus.ValidCopy(t)
	b := startBrowser(t, 8*time.Minute) // a safeguard, not a measure: 1 minute alone on 2 cores, 4 on a machine shared with a benchmark
	addHostileAgent(t, root)
	out := filepath.Join(t.TempDir(), "site")
	mx := corpusMatrix(t)
	generate(t, root, out, mx)
	c := &catalogCase{b: b, site: serveDir(t, out).URL, out: out, want: manifests(t, root), mx: mx}
	t.Run("one card per agent", c.cards)
	t.Run("q applies the search on load", c.search)
	t.Run("q=claude ranks claude-* first", c.ranking)
	t.Run("each card shows its matrix result, and filters by it", c.verdicts)
	t.Run("sort by recently updated", c.sortUpdated)
	t.Run("a copy button copies its command", c.copyButton)
	t.Run("platform and distribution filters", c.filters)
	t.Run("keyboard: tab to the search, type, visible focus", c.keyboard)
	t.Run("hostile text is shown as text", c.hostile)
	t.Run("agent pages: install commands, archives, matrix", c.agentPages)
	t.Run("every link of index.html resolves", c.indexLinks)
	t.Run("phone and dark", c.phoneAndDark)
	// Everything so far came from the server and went well.
	b.check(t, c.site+"/")
	t.Run("from file://", c.fromFile)
}

func (c *catalogCase) cards(t *testing.T) {
	c.b.navigate(t, c.site+"/index.html")
	ids := eval[[]string](t, c.b, `Array.from(document.querySelectorAll("[data-agent-id]")).map(e => e.dataset.agentId)`)
	if !slices.Equal(ids, byName(c.want)) {
		t.Errorf("cards %v\nwant one per agent, sorted by name: %v", ids, byName(c.want))
	}
	if n := eval[int](t, c.b, `document.querySelectorAll("[data-agent-id][hidden]").length`); n != 0 {
		t.Errorf("%d cards hidden without a search", n)
	}
	// The first card's icon is on screen, so it is loaded: a real image.
	// (loading="lazy" does not hold up the load event: wait for it.)
	loaded := `new Promise(done => { const i = document.querySelector("[data-agent-id] img");
		if (i.complete) { done(i.naturalWidth); } else { i.onload = () => done(i.naturalWidth); i.onerror = () => done(0); } })`
	if w, err := chromedp.Run(c.b.ctx, chromedp.Evaluate[int](loaded, chromedp.EvalAwaitPromise)); err != nil || w == 0 {
		t.Error("the first card's icon did not load")
	}
	for _, id := range []string{"amp-acp", hostileID} {
		href := eval[string](t, c.b, fmt.Sprintf(`document.querySelector('[data-agent-id=%q] h2 a').getAttribute("href")`, id))
		if href != "agents/"+id+".html" {
			t.Errorf("card %s links to %q, want its page agents/%s.html", id, href, id)
		}
	}
	saveScreenshot(t, c.b, "index.png", false)
}

func (c *catalogCase) search(t *testing.T) {
	for _, q := range []string{"claude", "rust agent", "no-agent-has-this"} {
		c.b.navigate(t, c.site+"/index.html?q="+url.QueryEscape(q))
		shown := eval[[]string](t, c.b, `Array.from(document.querySelectorAll("[data-agent-id]:not([hidden])")).map(e => e.dataset.agentId)`)
		var expect []string
		for _, id := range sortedKeys(c.want) {
			if matches(c.want[id], q) {
				expect = append(expect, id)
			}
		}
		if got := slices.Sorted(slices.Values(shown)); !slices.Equal(got, expect) && !(len(shown) == 0 && len(expect) == 0) {
			t.Errorf("?q=%s shows %v, want %v", q, got, expect)
		}
		if total := eval[int](t, c.b, `document.querySelectorAll("[data-agent-id]").length`); total != len(c.want) {
			t.Errorf("?q=%s: %d cards in the page, want all %d (the others hidden)", q, total, len(c.want))
		}
		if v := eval[string](t, c.b, `document.getElementById("q").value`); v != q {
			t.Errorf("?q=%s: the search box holds %q", q, v)
		}
		none := eval[bool](t, c.b, `!document.getElementById("none").hidden`)
		if none != (len(expect) == 0) {
			t.Errorf("?q=%s: the no-match line shown = %v with %d matches", q, none, len(expect))
		}
	}
	if n := countMatches(c.want, "claude"); n == 0 || n == len(c.want) {
		t.Fatalf("the search term matches %d of %d agents: the test proves nothing", n, len(c.want))
	}
}

func (c *catalogCase) filters(t *testing.T) {
	// An agent runs on a platform through a binary built for it, or
	// through npx or uvx anywhere.
	for _, tc := range []struct{ query, dist string }{
		{"platform=windows-aarch64&dist=binary", "binary"},
		{"platform=windows-aarch64", ""},
		{"dist=uvx", "uvx"},
	} {
		c.b.navigate(t, c.site+"/index.html?"+tc.query)
		shown := eval[[]string](t, c.b, `Array.from(document.querySelectorAll("[data-agent-id]:not([hidden])")).map(e => e.dataset.agentId)`)
		var expect []string
		for _, id := range byName(c.want) {
			d := c.want[id].Distribution
			_, bin := d.Binary[registry.Platform("windows-aarch64")]
			if !strings.Contains(tc.query, "platform=") {
				bin = len(d.Binary) > 0
			}
			npx, uvx := d.Npx != nil, d.Uvx != nil
			ok := map[string]bool{"binary": bin, "uvx": uvx, "": bin || npx || uvx}[tc.dist]
			if ok {
				expect = append(expect, id)
			}
		}
		if len(expect) == 0 || len(expect) == len(c.want) || !slices.Equal(shown, expect) {
			t.Errorf("?%s: shown %v, want %v", tc.query, shown, expect)
		}
	}
}

func (c *catalogCase) keyboard(t *testing.T) {
	c.b.navigate(t, c.site+"/index.html")
	if err := chromedp.Do(c.b.ctx, chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent("claude")); err != nil {
		t.Fatal(err)
	}
	if id := eval[string](t, c.b, `document.activeElement.id`); id != "q" {
		t.Fatalf("two tabs focus %q, want the search box (after the skip link)", id)
	}
	if o := eval[string](t, c.b, `getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
		t.Error("the focused search box has no visible outline")
	}
	shown := eval[int](t, c.b, `document.querySelectorAll("[data-agent-id]:not([hidden])").length`)
	if shown != countMatches(c.want, "claude") {
		t.Errorf("typing claude shows %d cards, want %d", shown, countMatches(c.want, "claude"))
	}
	if loc := eval[string](t, c.b, `location.search`); loc != "?q=claude" {
		t.Errorf("after typing, the address holds %q, want ?q=claude (so the search can be shared)", loc)
	}
}

func (c *catalogCase) hostile(t *testing.T) {
	c.b.navigate(t, c.site+"/index.html")
	card := fmt.Sprintf(`document.querySelector('[data-agent-id=%q]')`, hostileID)
	if name := eval[string](t, c.b, card+`.querySelector("h2 a").textContent`); name != hostileName {
		t.Errorf("the hostile card's name reads %q, want the text %q", name, hostileName)
	}
	if d := eval[string](t, c.b, card+`.querySelector(".desc").textContent`); d != hostileDesc {
		t.Errorf("the hostile description reads %q, want the text %q", d, hostileDesc)
	}
	if n := eval[int](t, c.b, `document.querySelectorAll('img:not([src^="icons/"]), b, i, [onerror], [onmouseover]').length`); n != 0 {
		t.Errorf("%d elements made from manifest text", n)
	}
	if n := eval[int](t, c.b, `document.scripts.length`); n != 1 {
		t.Errorf("index.html has %d scripts, want only site.js", n)
	}
	c.b.navigate(t, c.site+"/agents/"+hostileID+".html")
	if h := eval[string](t, c.b, `document.querySelector("h1").firstChild.textContent.trim()`); h != hostileName {
		t.Errorf("the hostile page's title reads %q", h)
	}
	if n := eval[int](t, c.b, `document.querySelectorAll('img:not([src^="../icons/"]), b, i, script:not([src="../site.js"])').length`); n != 0 {
		t.Errorf("%d elements made from manifest text on the agent page", n)
	}
	if !strings.Contains(eval[string](t, c.b, `document.body.innerText`), `npx -y hostile-acp@1.0.0 '--x=$(rm -rf ~)'`) {
		t.Error("the hostile agent's npx command is not shown shell-quoted")
	}
}

func (c *catalogCase) agentPages(t *testing.T) {
	for _, id := range sortedKeys(c.want) {
		m := c.want[id]
		c.b.navigate(t, c.site+"/agents/"+id+".html")
		text := eval[string](t, c.b, `document.body.innerText`)
		for _, s := range expectedCommands(m) {
			if !strings.Contains(text, s) {
				t.Errorf("agents/%s.html does not show %q", id, s)
			}
		}
		checkLinks(t, c.b, c.site, c.site+"/agents/"+id+".html", c.out)
	}
	c.b.navigate(t, c.site+"/agents/amp-acp.html")
	rows := eval[[]string](t, c.b, `Array.from(document.querySelectorAll("table.probes tbody tr")).map(r => r.innerText.replace(/\s+/g, " "))`)
	if len(rows) != 7 || !strings.HasPrefix(rows[0], "initialize — success") || !strings.HasPrefix(rows[2], "session/list no method_not_found") {
		t.Errorf("amp-acp's probe table: %q", rows)
	}
	colours := eval[[]string](t, c.b, `[".status-success", ".status-method_not_found"].map(s => getComputedStyle(document.querySelector(s)).backgroundColor)`)
	if colours[0] == colours[1] || strings.Contains(colours[0], "0, 0, 0, 0") {
		t.Errorf("success and method_not_found share a colour: %v", colours)
	}
	saveScreenshot(t, c.b, "agent.png", true)
}

func (c *catalogCase) indexLinks(t *testing.T) {
	c.b.navigate(t, c.site+"/index.html")
	checkLinks(t, c.b, c.site, c.site+"/index.html", c.out)
}

func (c *catalogCase) phoneAndDark(t *testing.T) {
	if err := chromedp.Do(c.b.ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	c.checkPhone(t, "index.html")
	saveScreenshot(t, c.b, "index-phone.png", false)
	for _, id := range widest(c.want, 8) {
		c.checkPhone(t, "agents/"+id+".html")
	}
	// The probe table: a block per request, the detail as wide as the
	// screen allows, not a column a word wide with tall blank rows.
	c.checkPhone(t, "agents/amp-acp.html")
	widths := eval[[]int](t, c.b, `Array.from(document.querySelectorAll("table.probes td:not(:empty)")).map(td => Math.round(td.getBoundingClientRect().width))`)
	if len(widths) == 0 {
		t.Fatal("amp-acp's page has no probe table")
	}
	for _, w := range widths {
		if w < 300 {
			t.Errorf("on a 390 px phone a probe table cell is %d px wide (%v)", w, widths)
			break
		}
	}
	saveScreenshot(t, c.b, "agent-phone.png", false)
	if err := chromedp.Do(c.b.ctx, chromedp.ResetViewport()); err != nil {
		t.Fatal(err)
	}
	dark := emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}
	if _, err := chromedp.Call(c.b.ctx, emulation.SetEmulatedMedia, dark); err != nil {
		t.Fatal(err)
	}
	c.b.navigate(t, c.site+"/index.html")
	if bg := eval[string](t, c.b, `getComputedStyle(document.body).backgroundColor`); bg == "rgb(255, 255, 255)" {
		t.Error("dark mode keeps a white page")
	}
	// The results stay readable: light text on the dark badges.
	if fg := eval[string](t, c.b, `getComputedStyle(document.querySelector(".status-works")).color`); fg != "rgb(175, 245, 180)" {
		t.Errorf("in dark mode a works badge's text is %s, not the dark theme's", fg)
	}
	saveScreenshot(t, c.b, "index-dark.png", false)
	if _, err := chromedp.Call(c.b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{}); err != nil {
		t.Fatal(err)
	}
}

func (c *catalogCase) fromFile(t *testing.T) {
	abs, err := filepath.Abs(c.out)
	if err != nil {
		t.Fatal(err)
	}
	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	c.b.navigate(t, fileURL+"/index.html?q=claude")
	if n := eval[int](t, c.b, `document.querySelectorAll("[data-agent-id]:not([hidden])").length`); n != countMatches(c.want, "claude") {
		t.Errorf("from file://, ?q=claude shows %d cards, want %d: the script did not run", n, countMatches(c.want, "claude"))
	}
	c.b.check(t, fileURL+"/")
}

func countMatches(ms map[string]registry.Manifest, q string) int {
	n := 0
	for _, m := range ms {
		if matches(m, q) {
			n++
		}
	}
	return n
}

// expectedCommands are the lines an agent's page must show, worked out
// from its manifest.
func expectedCommands(m registry.Manifest) []string {
	out := []string{"acp install " + m.ID, "acp run " + m.ID}
	if p := m.Distribution.Npx; p != nil {
		out = append(out, "npx -y ")
		if !strings.ContainsAny(p.Package, "'\" ") {
			out = append(out, p.Package)
		}
	}
	if p := m.Distribution.Uvx; p != nil {
		out = append(out, "uvx ", p.Package)
	}
	for plat, tg := range m.Distribution.Binary {
		out = append(out, string(plat))
		if tg.SHA256 != "" {
			out = append(out, tg.SHA256)
		}
	}
	return out
}
