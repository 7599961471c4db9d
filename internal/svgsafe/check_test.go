package svgsafe

import (
	"fmt"
	"strings"
	"testing"
)

const open = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">`

// An editor shows any safe icon: the registry's style (16×16,
// currentColor, no comments) is not the walk's to judge.
func TestStyleIsNotSafety(t *testing.T) {
	for name, svg := range map[string]string{
		"brand colour":    `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><rect fill="#e8590c" width="48" height="48"/></svg>`,
		"comment":         open + `<!-- a comment --><path fill="currentColor" d="M0 0"/></svg>`,
		"no size":         `<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0h16v16H0z"/></svg>`,
		"own gradient":    open + `<defs><linearGradient id="g"><stop stop-color="red"/></linearGradient></defs><path fill="url(#g)" d="M0 0"/></svg>`,
		"styled":          open + `<style>path{fill:blue;stroke:rgb(1,2,3)}</style><path style="color:red" d="M0 0"/></svg>`,
		"animated colour": open + `<path d="M0 0"><set attributeName="fill" to="red"/></path></svg>`,
		"byte order mark": "\ufeff" + open + `<path d="M0 0"/></svg>`,
	} {
		if ps := Check([]byte(svg)); len(ps) != 0 {
			t.Errorf("%s: %+v, want no problem", name, ps)
		}
	}
}

func TestUnsafeOrUnreadableRefused(t *testing.T) {
	for name, c := range map[string]struct {
		svg, rule string
	}{
		"script":            {open + `<SCRIPT>alert(1)</SCRIPT></svg>`, RuleUnsafe},
		"event":             {open + `<path onclick="x()" d="M0 0"/></svg>`, RuleUnsafe},
		"external href":     {open + `<use href="https://evil.example/a.svg#x"/></svg>`, RuleUnsafe},
		"external paint":    {open + `<path fill="url(https://evil.example/p.svg#g)" d="M0 0"/></svg>`, RuleUnsafe},
		"css import":        {open + `<style>@import "https://evil.example/a.css";</style></svg>`, RuleUnsafe},
		"escaped css":       {open + `<style>path{mask:u\72l(x)}</style></svg>`, RuleUnsafe},
		"animated href":     {open + `<a><set attributeName="href" to="javascript:alert(1)"/></a></svg>`, RuleUnsafe},
		"entities":          {`<!DOCTYPE svg [<!ENTITY a "aaaa">]>` + open + `&a;</svg>`, RuleUnsafe},
		"not svg":           {`<html><body>not an icon</body></html>`, RuleXML},
		"no namespace":      {`<svg width="16" height="16"></svg>`, RuleXML},
		"cut short":         {open + `<path d="M0 0"`, RuleXML},
		"too large":         {open + strings.Repeat(" ", MaxSize) + `</svg>`, RuleTooLarge},
		"nested too deeply": {open + strings.Repeat("<g>", MaxDepth) + strings.Repeat("</g>", MaxDepth) + `</svg>`, RuleXML},
	} {
		ps := Check([]byte(c.svg))
		if len(ps) == 0 || ps[0].Rule != c.rule || ps[0].Severity != SeverityError {
			t.Errorf("%s: %+v, want an error of %s first", name, ps, c.rule)
		}
	}
}

// useBomb is a kilobyte of <use> references that makes a renderer draw
// 10^levels shapes: librsvg's CVE-2019-20446, the billion laughs of SVG.
func useBomb(levels int) string {
	var b strings.Builder
	b.WriteString(open + `<defs><g id="l0"><path fill="currentColor" d="M0 0h1v1H0z"/></g>`)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, `<g id="l%d">`, i)
		for range 10 {
			fmt.Fprintf(&b, `<use href="#l%d"/>`, i-1)
		}
		b.WriteString(`</g>`)
	}
	fmt.Fprintf(&b, `</defs><use href="#l%d"/></svg>`, levels)
	return b.String()
}

// TestUseBombRefused: a renderer expands every <use> into a copy of what
// it names, so a few nested references freeze whoever draws the icon (an
// editor's agent list). What a real icon reuses is far under the bound.
func TestUseBombRefused(t *testing.T) {
	for name, c := range map[string]struct {
		svg  string
		line int
		col  int
	}{
		"ten levels": {useBomb(10), 1, 0},
		"self":       {open + `<g id="a"><use href="#a"/></g></svg>`, 1, 94},
		"a cycle":    {open + `<defs><g id="a"><use xlink:href="#b" xmlns:xlink="http://www.w3.org/1999/xlink"/></g><g id="b"><use href="#a"/></g></defs><use href="#a"/></svg>`, 1, 0},
	} {
		ps := Check([]byte(c.svg))
		if len(ps) != 1 || ps[0].Rule != RuleUnsafe || !strings.Contains(ps[0].Message, "<use>") {
			t.Errorf("%s: %+v, want one icon-unsafe problem about <use>", name, ps)
			continue
		}
		if c.col != 0 && (ps[0].Line != c.line || ps[0].Column != c.col) {
			t.Errorf("%s: at %d:%d, want %d:%d", name, ps[0].Line, ps[0].Column, c.line, c.col)
		}
	}
	// Reuse within the bound: two levels (651 copies), and a grid of
	// 256 dots drawn from one.
	var grid strings.Builder
	grid.WriteString(open + `<defs><circle id="d" r=".4" fill="currentColor"/></defs>`)
	for i := range 256 {
		fmt.Fprintf(&grid, `<use href="#d" x="%d" y="%d"/>`, i%16, i/16)
	}
	grid.WriteString(`</svg>`)
	for name, svg := range map[string]string{"two levels": useBomb(2), "a grid": grid.String()} {
		if ps := Check([]byte(svg)); len(ps) != 0 {
			t.Errorf("%s: %+v, want no problem", name, ps)
		}
	}
}

// nested is a bomb through a drawing property: levels of ten shapes, each
// drawing the level below through prop, written by how.
func nested(prop, elem string, levels int, how string) string {
	var b strings.Builder
	b.WriteString(open + `<defs>`)
	if how == "sheet" {
		b.WriteString(`<style>`)
		for i := 1; i <= levels; i++ {
			fmt.Fprintf(&b, `.l%d{%s:url(#r%d)}`, i, prop, i-1)
		}
		b.WriteString(`</style>`)
	}
	fmt.Fprintf(&b, `<%s id="r0"><rect width="16" height="16" fill="currentColor"/></%s>`, elem, elem)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, `<%s id="r%d">`, elem, i)
		for j := range 10 {
			switch how {
			case "attribute":
				fmt.Fprintf(&b, `<path d="M%d 0v16" stroke="currentColor" %s="url(#r%d)"/>`, j, prop, i-1)
			case "style":
				fmt.Fprintf(&b, `<path d="M%d 0v16" stroke="currentColor" style="%s: url('#r%d')"/>`, j, prop, i-1)
			case "sheet":
				fmt.Fprintf(&b, `<path class="l%d" d="M%d 0v16" stroke="currentColor"/>`, i, j)
			}
		}
		fmt.Fprintf(&b, `</%s>`, elem)
	}
	fmt.Fprintf(&b, `</defs><path d="M0 0h16v16H0z" fill="currentColor" %s="url(#r%d)"/></svg>`, prop, levels)
	return b.String()
}

// TestReferenceBombsRefused: mask, clip-path and marker draw their
// element's content for every shape that names them (a marker at every
// vertex), so they nest into bombs as <use> does: seven levels of ten of
// any of them held Chromium over 40 s.
func TestReferenceBombsRefused(t *testing.T) {
	for _, c := range []struct{ prop, elem string }{{"mask", "mask"}, {"clip-path", "clipPath"}, {"marker-mid", "marker"}} {
		for _, how := range []string{"attribute", "style", "sheet"} {
			ps := Check([]byte(nested(c.prop, c.elem, 5, how)))
			if len(ps) != 1 || ps[0].Rule != RuleUnsafe || !strings.Contains(ps[0].Message, "copies") {
				t.Errorf("%s by %s, five levels: %+v, want one icon-unsafe problem about copies", c.prop, how, ps)
			}
			if ps := Check([]byte(nested(c.prop, c.elem, 1, how))); len(ps) != 0 {
				t.Errorf("%s by %s, one level: %+v, want no problem", c.prop, how, ps)
			}
		}
	}
	// A marker at each of 2,000 vertices of one path draws 2,000 copies.
	var b strings.Builder
	b.WriteString(open + `<marker id="m"><circle r="1" fill="currentColor"/></marker><path marker-mid="url(#m)" stroke="currentColor" d="M0 0`)
	for i := range 2000 {
		fmt.Fprintf(&b, " L%d %d", i%16, i%7)
	}
	b.WriteString(`"/></svg>`)
	if ps := Check([]byte(b.String())); len(ps) != 1 || ps[0].Rule != RuleUnsafe {
		t.Errorf("a marker on 2,000 vertices: %+v, want icon-unsafe", ps)
	}
	// A mask that contains the shape it masks is a loop.
	loop := open + `<mask id="m"><rect id="r" width="16" height="16" fill="currentColor" mask="url(#m)"/></mask><use href="#r"/></svg>`
	if ps := Check([]byte(loop)); len(ps) != 1 || !strings.Contains(ps[0].Message, "loop") {
		t.Errorf("a mask inside itself: %+v, want one problem about a loop", ps)
	}
}

// What real icons do with masks, clip paths and markers stays fine.
func TestOrdinaryReferencesPass(t *testing.T) {
	for name, svg := range map[string]string{
		"clip per shape":  open + `<defs><clipPath id="c"><rect width="16" height="16" rx="3"/></clipPath></defs>` + strings.Repeat(`<path clip-path="url(#c)" fill="currentColor" d="M0 0h8v8H0z"/>`, 40) + `</svg>`,
		"two sheet clips": open + `<style>.a{clip-path:url(#c1)}.b{clip-path:url(#c2)}</style><clipPath id="c1"><rect width="8" height="16"/></clipPath><clipPath id="c2"><rect x="8" width="8" height="16"/></clipPath><path class="a" fill="currentColor" d="M0 0h16v16H0z"/><path class="b" fill="currentColor" d="M0 0h16v16H0z"/></svg>`,
		"arrow markers":   open + `<marker id="a" markerWidth="4" markerHeight="4" refX="2" refY="2"><path d="M0 0L4 2L0 4z" fill="currentColor"/></marker><path d="M1 8h12" stroke="currentColor" marker-end="url(#a)"/><path d="M8 1v12" stroke="currentColor" marker-end="url(#a)"/></svg>`,
		"mask":            open + `<mask id="m"><rect width="16" height="16" fill="white"/><circle cx="8" cy="8" r="3"/></mask><rect mask="url(#m)" width="16" height="16" fill="currentColor"/></svg>`,
	} {
		if ps := Check([]byte(svg)); len(ps) != 0 {
			t.Errorf("%s: %+v, want no problem", name, ps)
		}
	}
}

// A Unicode space before "#" makes a relative URL, which an inlined icon
// fetches from the page's origin (GET /%C2%A0): browsers trim only ASCII
// spaces and controls.
func TestUnicodeSpaceBeforeTheFragmentIsALoad(t *testing.T) {
	for name, svg := range map[string]string{
		"use":    open + `<use href="&#xA0;#a"/></svg>`,
		"mask":   open + `<path style="mask:url(&#xA0;#a)" d="M0 0"/></svg>`,
		"filter": open + `<path filter="url(&#x3000;#a)" d="M0 0"/></svg>`,
		"set":    open + `<a><set attributeName="href" to="&#x85;#a"/></a></svg>`,
	} {
		if ps := Check([]byte(svg)); len(ps) != 1 || ps[0].Rule != RuleUnsafe {
			t.Errorf("%s: %+v, want one icon-unsafe", name, ps)
		}
	}
	if ps := Check([]byte(open + `<use href=" #a&#9;"/><path id="a" d="M0 0"/></svg>`)); len(ps) != 0 {
		t.Errorf("ASCII spaces around #a: %+v, want no problem", ps)
	}
}

// TestReferenceBombsInDisguise: each is a five-level bomb that a first
// version of the count let through (a hostile pass held Chromium over
// 40 s with each at seven levels): property names spelled with an
// entity, split by CDATA or a comment, vendor-prefixed or in longhand;
// references set by an animation, percent-encoded, or through patterns;
// and markers on paths whose vertices a naive count misses.
func TestReferenceBombsInDisguise(t *testing.T) {
	// The top shape names level 5 as the levels name theirs (top), so
	// that no plain "clip-path" is written anywhere.
	bomb5 := func(level func(i int) string, top string) string {
		var b strings.Builder
		b.WriteString(open + `<defs><clipPath id="r0"><rect width="16" height="16"/></clipPath>`)
		for i := 1; i <= 5; i++ {
			b.WriteString(level(i))
		}
		fmt.Fprintf(&b, `</defs><path d="M0 0h16v16H0z" fill="currentColor" `+top+`/></svg>`, 5)
		return b.String()
	}
	bomb := func(levels int, level func(i int) string) string {
		return bomb5(level, `clip-path="url(#r%d)"`)
	}
	ten := func(i int, shape string) string {
		return fmt.Sprintf(`<clipPath id="r%d">%s</clipPath>`, i, strings.Repeat(fmt.Sprintf(shape, i-1), 10))
	}
	sheet := func(css string) string {
		return open + `<style>` + css + `</style>` + strings.TrimPrefix(bomb5(func(i int) string {
			return ten(i, `<rect class="l`+fmt.Sprint(i)+`" width="1" height="16" data-n="%d"/>`)
		}, `class="l6" data-n="%d"`), open)
	}
	var classes, cdata, comment strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&classes, ".l%d{-webkit-clip-path:url(#r%d)}", i, i-1)
		fmt.Fprintf(&cdata, ".l%d{clip-<![CDATA[path]]>:url(#r%d)}", i, i-1)
		fmt.Fprintf(&comment, ".l%d{clip<!---->-path:url(#r%d)}", i, i-1)
	}
	var zs strings.Builder
	zs.WriteString(open + `<marker id="m">` + strings.Repeat(`<circle r="1" fill="currentColor"/>`, 40) + `</marker><path marker-mid="url(#m)" stroke="currentColor" d="M1 1` + strings.Repeat("z", 100) + `"/></svg>`)
	var dots strings.Builder
	dots.WriteString(open + `<marker id="m">` + strings.Repeat(`<circle r="1" fill="currentColor"/>`, 10) + `</marker><path marker-mid="url(#m)" stroke="currentColor" d="M0 0` + strings.Repeat(".5", 400) + `"/></svg>`)
	for name, svg := range map[string]string{
		"entity in the property": bomb5(func(i int) string { return ten(i, `<rect width="1" height="16" style="clip-p&#97;th:url(#r%d)"/>`) }, `style="clip-p&#97;th:url(#r%d)"`),
		"-webkit-clip-path":      bomb(5, func(i int) string { return ten(i, `<rect width="1" height="16" style="-webkit-clip-path:url(#r%d)"/>`) }),
		"mask-image":             bomb(5, func(i int) string { return ten(i, `<rect width="1" height="16" style="mask-image:url(#r%d)"/>`) }),
		"set by an animation": bomb(5, func(i int) string {
			return ten(i, `<rect width="1" height="16"><set attributeName="clip-path" to="url(#r%d)"/></rect>`)
		}),
		"percent-encoded": bomb(5, func(i int) string { return ten(i, `<use href="#%%72%d"/>`) }),
		"patterns": strings.ReplaceAll(bomb(5, func(i int) string {
			return ten(i, `<rect width="1" height="16" fill="url(#r%d)"/>`)
		}), "clipPath", "pattern"),
		"sheet, prefixed":  sheet(classes.String()),
		"sheet, CDATA":     sheet(cdata.String()),
		"sheet, comment":   sheet(comment.String()),
		"marker on z's":    zs.String(),
		"marker on .5.5.5": dots.String(),
	} {
		ps := Check([]byte(svg))
		if len(ps) != 1 || ps[0].Rule != RuleUnsafe || !strings.Contains(ps[0].Message, "copies") {
			t.Errorf("%s: %+v, want one icon-unsafe about copies", name, ps)
		}
	}
}

// TestCostlyFiltersRefused: a filter costs its region's area for every
// primitive. Measured in headless Chromium: 300 blurs over a 2000×2000
// region took 25 s, and fifty shapes with 1000px CSS blurs over 40 s; over
// 3× the viewBox, or with 16px radii, they drew in normal time.
func TestCostlyFiltersRefused(t *testing.T) {
	region := func(attrs string) string {
		return open + `<filter id="f"` + attrs + `><feGaussianBlur stdDeviation="1000"/></filter><rect width="16" height="16" fill="currentColor" filter="url(#f)"/></svg>`
	}
	for name, c := range map[string]struct {
		svg  string
		want bool
	}{
		"user space, 125× the icon":  {region(` x="-1000" y="-1000" width="2000" height="2000" filterUnits="userSpaceOnUse"`), true},
		"user space, 3× the icon":    {region(` x="-16" y="-16" width="48" height="48" filterUnits="userSpaceOnUse"`), false},
		"user space, in inches":      {region(` width="2in" filterUnits="userSpaceOnUse"`), true},
		"box, 1000 boxes wide":       {region(` width="1000"`), true},
		"box, 1000%":                 {region(` width="1000%"`), true},
		"box, the default":           {region(``), false},
		"box, a shadow's room":       {region(` x="-50%" y="-50%" width="200%" height="200%"`), false},
		"CSS blur 1000px":            {open + `<rect width="16" height="16" style="filter: blur(1000px) drop-shadow(0 0 500px red)"/></svg>`, true},
		"CSS drop-shadow in em":      {open + `<rect width="16" height="16" style="-webkit-filter:drop-shadow(0 0 10em red)"/></svg>`, true},
		"attribute blur":             {open + `<rect width="16" height="16" filter="blur(100px)"/></svg>`, true},
		"sheet blur":                 {open + `<style>rect{filter:BLUR(5in)}</style><rect width="16" height="16"/></svg>`, true},
		"CSS blur 16px and a shadow": {open + `<rect width="16" height="16" style="filter: blur(16px) drop-shadow(0 0 16px red) blur(2px)"/></svg>`, false},
	} {
		ps := Check([]byte(c.svg))
		got := len(ps) == 1 && ps[0].Rule == RuleUnsafe
		if got != c.want || (!c.want && len(ps) != 0) {
			t.Errorf("%s: %+v, want refused: %v", name, ps, c.want)
		}
	}
}
