package site

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

const shownIDs = `Array.from(document.querySelectorAll("[data-agent-id]:not([hidden])")).map(e => e.dataset.agentId)`

// ?q=claude: the agents whose id or name starts with claude come first,
// then those whose id or name holds it, then the description's matches.
func (c *catalogCase) ranking(t *testing.T) {
	c.b.navigate(t, c.site+"/index.html?q=claude")
	shown := eval[[]string](t, c.b, shownIDs)
	rank := func(id string) int {
		name := strings.ToLower(c.want[id].Name)
		switch {
		case id == "claude" || name == "claude":
			return 0
		case strings.HasPrefix(id, "claude") || strings.HasPrefix(name, "claude"):
			return 1
		case strings.Contains(id, "claude") || strings.Contains(name, "claude"):
			return 2
		}
		return 3
	}
	prefixed := 0
	for _, id := range shown {
		if strings.HasPrefix(id, "claude") {
			prefixed++
		}
	}
	if prefixed < 2 || len(shown) <= prefixed {
		t.Fatalf("?q=claude shows %v: the corpus no longer has claude-* agents and others mentioning claude", shown)
	}
	for i, id := range shown[:prefixed] {
		if !strings.HasPrefix(id, "claude") {
			t.Errorf("?q=claude: card %d is %s, want the claude-* agents first: %v", i+1, id, shown)
		}
	}
	for i := 1; i < len(shown); i++ {
		if rank(shown[i-1]) > rank(shown[i]) {
			t.Errorf("?q=claude: %s (rank %d) before %s (rank %d): %v", shown[i-1], rank(shown[i-1]), shown[i], rank(shown[i]), shown)
		}
	}
	// Visually first, not only first in some hidden order.
	top := eval[string](t, c.b, `Array.from(document.querySelectorAll("[data-agent-id]:not([hidden])")).sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top || a.getBoundingClientRect().left - b.getBoundingClientRect().left)[0].dataset.agentId`)
	if !strings.HasPrefix(top, "claude") {
		t.Errorf("?q=claude: the card on top of the page is %s", top)
	}
}

// With --matrix every card says what the snapshot found, in words, with
// the probe's date; agents the snapshot lacks say "not probed".
func (c *catalogCase) verdicts(t *testing.T) {
	want := map[string]string{}  // id -> label
	dates := map[string]string{} // id -> probe day
	for id := range c.want {
		want[id] = "not probed"
	}
	for _, r := range c.mx.Agents {
		if _, ok := c.want[r.ID]; !ok {
			continue
		}
		switch {
		case r.Initialize.Status != "success":
			want[r.ID] = "fails"
		case r.SessionNew.Status == "success":
			want[r.ID] = "works"
		case r.SessionNew.Status == "auth_required":
			want[r.ID] = "needs sign-in"
		default:
			want[r.ID] = "fails"
		}
		dates[r.ID] = r.ProbedAt[:10]
	}
	c.b.navigate(t, c.site+"/index.html")
	got := eval[map[string]string](t, c.b, `Object.fromEntries(Array.from(document.querySelectorAll("[data-agent-id]")).map(e => [e.dataset.agentId, e.querySelector(".verdict") ? e.querySelector(".verdict").textContent.replace(/\s+/g, " ").trim() : ""]))`)
	count := map[string]int{}
	for id, label := range want {
		count[label]++
		text := got[id]
		if !strings.HasPrefix(text, label) {
			t.Errorf("card %s reads %q, want %q", id, text, label)
		}
		if d := dates[id]; d != "" && !strings.Contains(text, "probed "+d) {
			t.Errorf("card %s reads %q, want the probe's date %s", id, text, d)
		}
	}
	for _, label := range []string{"works", "needs sign-in", "fails", "not probed"} {
		if count[label] == 0 {
			t.Fatalf("no card is %q (%v): the test proves little", label, count)
		}
	}
	colours := eval[[]string](t, c.b, `[".status-works", ".status-sign-in", ".status-fails", ".status-not-probed"].map(s => getComputedStyle(document.querySelector(s)).backgroundColor)`)
	if len(slices.Compact(slices.Sorted(slices.Values(colours)))) != 4 {
		t.Errorf("the four results share colours: %v", colours)
	}
	// The filter, from the address and from the select.
	for value, label := range map[string]string{"works": "works", "sign-in": "needs sign-in", "not-probed": "not probed"} {
		var expect []string
		for _, id := range byName(c.want) {
			if want[id] == label {
				expect = append(expect, id)
			}
		}
		c.b.navigate(t, c.site+"/index.html?status="+value)
		if shown := eval[[]string](t, c.b, shownIDs); !slices.Equal(shown, expect) {
			t.Errorf("?status=%s shows %v, want %v", value, shown, expect)
		}
	}
	c.b.navigate(t, c.site+"/index.html")
	eval[bool](t, c.b, `(() => { const s = document.getElementById("status"); s.value = "fails"; s.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	if n := eval[int](t, c.b, `document.querySelectorAll("[data-agent-id]:not([hidden])").length`); n != count["fails"] {
		t.Errorf("choosing fails shows %d cards, want %d", n, count["fails"])
	}
	if loc := eval[string](t, c.b, `location.search`); loc != "?status=fails" {
		t.Errorf("after choosing, the address holds %q", loc)
	}
	// The agent's page says it too.
	c.b.navigate(t, c.site+"/agents/amp-acp.html")
	if v := eval[string](t, c.b, `document.querySelector("#matrix ~ .verdict").innerText`); !strings.HasPrefix(v, want["amp-acp"]) {
		t.Errorf("amp-acp's page says %q, want %q", v, want["amp-acp"])
	}
}

// sort=updated: the agents whose current version the matrix first saw
// most recently come first; those it never saw come last, by name.
func (c *catalogCase) sortUpdated(t *testing.T) {
	updated := map[string]string{}
	for _, r := range c.mx.Agents {
		if m, ok := c.want[r.ID]; ok && m.Version == r.RegistryVersion {
			updated[r.ID] = r.ProbedAt[:10]
		}
	}
	if len(updated) == 0 {
		t.Fatal("no corpus agent's version is the matrix's: nothing to sort")
	}
	c.b.navigate(t, c.site+"/index.html?sort=updated")
	shown := eval[[]string](t, c.b, shownIDs)
	for i, id := range shown {
		if i < len(updated) {
			if updated[id] == "" || (i > 0 && updated[shown[i-1]] < updated[id]) {
				t.Fatalf("?sort=updated: %d. %s (updated %q) out of order: %v", i+1, id, updated[id], shown)
			}
		} else if updated[id] != "" {
			t.Fatalf("?sort=updated: %s (updated %s) after agents with no date", id, updated[id])
		}
	}
	if v := eval[string](t, c.b, `document.getElementById("sort").value`); v != "updated" {
		t.Errorf("the sort control reads %q", v)
	}
	// README's picture (docs/catalog.png): the probed agents, newest first.
	saveScreenshot(t, c.b, "catalog.png", false)
	// Back to name order when the sort is changed back.
	eval[bool](t, c.b, `(() => { const s = document.getElementById("sort"); s.value = ""; s.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	if shown := eval[[]string](t, c.b, shownIDs); !slices.Equal(shown, byName(c.want)) {
		t.Errorf("sorted by name again: %v", shown)
	}
}

// Every command has a copy button; pressing it puts the command on the
// clipboard, read back through the clipboard API.
func (c *catalogCase) copyButton(t *testing.T) {
	for _, p := range []cdpbrowser.PermissionDescriptor{{Name: "clipboard-read"}, {Name: "clipboard-write", AllowWithoutSanitization: true}} {
		if _, err := chromedp.Call(c.b.ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{Permission: &p, Setting: "granted", Origin: c.site}); err != nil {
			t.Fatalf("grant %s: %v", p.Name, err)
		}
	}
	if _, err := chromedp.Call(c.b.ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	c.b.navigate(t, c.site+"/agents/amp-acp.html")
	missing := eval[int](t, c.b, `Array.from(document.querySelectorAll("pre code, .targets td code:not(.sha)")).filter(c => { const b = c.closest(".line"); return !b || !b.querySelector("button.copy:not([hidden])"); }).length`)
	if missing != 0 {
		t.Errorf("%d commands of amp-acp's page have no visible copy button", missing)
	}
	for i, want := range []string{"acp install amp-acp\nacp run amp-acp"} {
		sel := fmt.Sprintf(`document.querySelectorAll("button.copy")[%d]`, i)
		if err := chromedp.Do(c.b.ctx, chromedp.Click(chromedp.CSS("button.copy"))); err != nil {
			t.Fatalf("press the copy button: %v", err)
		}
		if _, err := chromedp.Run(c.b.ctx, chromedp.Poll[bool](sel+`.textContent === "Copied"`)); err != nil {
			t.Fatalf("the copy button never said Copied: %v", err)
		}
		got, err := chromedp.Run(c.b.ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("read the clipboard: %v", err)
		}
		if got != want {
			t.Errorf("the clipboard holds %q, want %q", got, want)
		}
	}
}

// checkPhone fails t when the page at 390 px scrolls sideways or hides
// the end of a command or a table behind a scroll bar of its own.
func (c *catalogCase) checkPhone(t *testing.T, page string) {
	t.Logf("phone: %s", page)
	c.b.navigate(t, c.site+"/"+page)
	if w := eval[int](t, c.b, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("on a 390 px phone %s is %d px wide: it scrolls sideways", page, w)
	}
	cut := eval[[]string](t, c.b, `Array.from(document.querySelectorAll("pre, .scroll, table, .card")).filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.tagName + "." + e.className + ": " + e.innerText.slice(0, 60))`)
	for _, e := range cut {
		t.Errorf("on a 390 px phone %s cuts off %s", page, e)
	}
}

// widest are the n agents whose pages have the longest unbroken words
// (package names, arguments, archive URLs, digests): the ones most
// likely to push a phone's page sideways.
func widest(ms map[string]registry.Manifest, n int) []string {
	longest := map[string]int{}
	for id, m := range ms {
		for _, w := range strings.Fields(fmt.Sprint(m.Distribution.Npx, m.Distribution.Uvx, m.Distribution.Binary, m.Name)) {
			longest[id] = max(longest[id], len(w))
		}
	}
	ids := sortedKeys(ms)
	sort.SliceStable(ids, func(i, j int) bool { return longest[ids[i]] > longest[ids[j]] })
	return ids[:min(n, len(ids))]
}
