package svgsafe

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// MaxCopies bounds the copies of elements that an icon's references make
// a renderer draw: a <use> draws a copy of what it names; a mask, clip
// path, pattern or filter is drawn for each shape that names it in
// url(#id), whatever the property (-webkit-mask-image too), and a marker
// once for each vertex; copies are counted with what they contain, so
// nesting multiplies. A kilobyte of nested references asks for billions
// (librsvg's CVE-2019-20446). In Chromium, 10^4 copies through <use> took
// 1.5 s to draw, 10^6 over a minute; seven levels of ten through mask,
// clip-path or marker, or nine through patterns, over 40 s. A 16×16 icon
// has 256 pixels: no drawing needs more than a thousand copies. No icon of
// the public registry uses <use>, a pattern or a marker; the four with a
// mask or a clip path use each once. Gradients are not counted: their
// stops draw nothing.
const MaxCopies = 1000

// draws is the part of a walk that counts what references make a
// renderer draw: the element tree in document order, the ids, and the
// references to the icon's own elements.
type draws struct {
	on        bool             // the icon has a '#' at all: every local reference needs one
	parent    []int32          // each element's parent, -1 for the root
	edgeStart []int32          // each element's first reference in edges
	shape     []string         // each element's d or points, for a marker's vertices
	gradient  []bool           // the element is a gradient: naming it draws nothing
	open      []int32          // the open elements, outermost first
	ids       map[string]int32 // id → the first element with it, as browsers pick
	edges     []edge           // the elements' references, grouped by element
	sheet     []edge           // references in <style> sheets: they may apply to any element

	// The count, after the walk.
	kids, kidStart, cursor []int32
	size                   []int64 // what a renderer draws for each element, copies included (capped)
	state                  []uint8 // 0 not counted, 1 being counted, 2 counted
}

// edge is one reference to the element with id name.
type edge struct {
	name   string // the id, without "#", percent-decoded as browsers do
	off    int    // where it is written
	marker bool   // drawn once for each vertex
	target int32  // resolved after the walk; -1 when no element has the id
}

// reset readies d for data: an icon without '#' references nothing of
// its own, and skips the bookkeeping.
func (d *draws) reset(data []byte) {
	d.on = bytes.IndexByte(data, '#') >= 0
	d.parent, d.edgeStart, d.gradient, d.open = d.parent[:0], d.edgeStart[:0], d.gradient[:0], d.open[:0]
	d.release()
}

// release drops the icon's strings; a map a crafted icon grew is dropped
// whole rather than cleared for every icon after it.
func (d *draws) release() {
	d.edges, d.sheet, d.shape = clearAll(d.edges), clearAll(d.sheet), clearAll(d.shape)
	if len(d.ids) > 64 {
		d.ids = nil
	}
	clear(d.ids)
}

// openElement records an element (local: its name in lower case); what it
// references follows, until the next element opens.
func (d *draws) openElement(local string) {
	if !d.on {
		return
	}
	p := int32(-1)
	if len(d.open) > 0 {
		p = d.open[len(d.open)-1]
	}
	d.open = append(d.open, int32(len(d.parent)))
	d.parent = append(d.parent, p)
	d.edgeStart = append(d.edgeStart, int32(len(d.edges)))
	d.shape = append(d.shape, "")
	d.gradient = append(d.gradient, strings.HasSuffix(local, "gradient"))
}

func (d *draws) closeElement() {
	if d.on && len(d.open) > 0 {
		d.open = d.open[:len(d.open)-1]
	}
}

func (d *draws) current() int32 {
	if !d.on || len(d.open) == 0 {
		return -1
	}
	return d.open[len(d.open)-1]
}

// id names the current element.
func (d *draws) id(v string) {
	i := d.current()
	if i < 0 || v == "" {
		return
	}
	if d.ids == nil {
		d.ids = make(map[string]int32)
	}
	if _, ok := d.ids[v]; !ok {
		d.ids[v] = i
	}
}

// setShape keeps the current element's d or points, whose vertices a
// marker is drawn at (counted only if one is).
func (d *draws) setShape(value string) {
	if i := d.current(); i >= 0 {
		d.shape[i] = value
	}
}

// ref records that the current element (or, from a <style> sheet, any
// element) names the element #name.
func (d *draws) ref(name string, off int, marker bool, where cssPlace) {
	if !d.on || name == "" {
		return
	}
	if strings.IndexByte(name, '%') >= 0 {
		// Browsers percent-decode a fragment before they look it up.
		if n, err := url.PathUnescape(name); err == nil {
			name = n
		}
	}
	e := edge{name: name, off: off, marker: marker, target: -1}
	if where == inSheet {
		d.sheet = append(d.sheet, e)
		return
	}
	if d.current() >= 0 {
		d.edges = append(d.edges, e)
	}
}

// cssPlace is where CSS or a property is written.
type cssPlace int

const (
	inAttribute cssPlace = iota // an attribute or style="": its element's own
	inSheet                     // a <style> element: it may apply to any element
)

// hrefDraws says whether an element's href="#id" makes what it names
// drawn or used (a <use>, a pattern's or filter's template, feImage,
// textPath…): not a link, which goes there, nor an animation, which
// changes it.
func hrefDraws(local string) bool {
	switch local {
	case "a", "discard":
		return false
	}
	return !animationElement(local)
}

// drawPatterns are compiled on first use (see cssPatterns).
var drawPatterns = sync.OnceValue(func() (p struct{ decl, local *regexp.Regexp }) {
	// Any declaration: its property, then its value.
	p.decl = regexp.MustCompile(`(?i)(?:^|[\s;{])(-?[a-z][-a-z0-9]*)\s*:\s*([^;{}]*)`)
	// url(#id), quoted or not.
	p.local = regexp.MustCompile(`(?i)url\(\s*["']?#([^"')\s]+)`)
	return p
})

// localRefs records the url(#id) references in value, the value of
// property prop (in lower case), written at off (a value's offset maps
// through at).
func (w *Walker) localRefs(prop, value string, at func(int) int, where cssPlace) {
	if !w.draws.on || !hasURL(value) {
		return
	}
	marker := strings.HasPrefix(strings.TrimPrefix(prop, "-webkit-"), "marker")
	for _, m := range drawPatterns().local.FindAllStringSubmatchIndex(value, -1) {
		w.draws.ref(value[m[2]:m[3]], at(m[0]), marker, where)
	}
}

// checkDraws reports references that lead into a loop (an element drawn
// inside itself, which renderers must catch) or that make more than
// MaxCopies copies: one problem, at the reference where it shows.
func (w *Walker) checkDraws() {
	d := &w.draws
	if len(d.edges) == 0 && len(d.sheet) == 0 {
		return
	}
	n := len(d.parent)
	d.resolve(d.edges)
	d.resolve(d.sheet)
	// Children grouped by parent (a counting sort), so that an element's
	// count can add its children's.
	d.kidStart = fill(d.kidStart, n+1, 0)
	for _, p := range d.parent {
		if p >= 0 {
			d.kidStart[p+1]++
		}
	}
	for i := 1; i <= n; i++ {
		d.kidStart[i] += d.kidStart[i-1]
	}
	d.kids = fill(d.kids, n, 0)
	d.cursor = fill(d.cursor, n, 0)
	for i, p := range d.parent {
		if p >= 0 {
			d.kids[d.kidStart[p]+d.cursor[p]] = int32(i)
			d.cursor[p]++
		}
	}
	d.size = fill(d.size, n, 0)
	d.state = fill(d.state, n, 0)

	const limit = MaxCopies + 1
	for i := range n {
		loop := false
		d.count(int32(i), limit, &loop)
		if loop {
			w.Add(RuleUnsafe, d.loopAt(), "this reference leads into a loop (an element drawn inside itself through <use>, mask, clip-path, a pattern or a marker), which renderers must catch; reference only elements that do not contain the reference: remove it")
			return
		}
	}
	// What each reference adds: its target's count, times the vertices
	// for a marker.
	var copies int64
	worstCopies, worstOff := int64(-1), 0
	add := func(c int64, off int) {
		if c > worstCopies {
			worstCopies, worstOff = c, off
		}
		copies = min(copies+c, limit)
	}
	for i := range n {
		for _, e := range d.edgesOf(int32(i)) {
			if e.target >= 0 {
				add(mulCap(d.size[e.target], d.weight(int32(i), e), limit), e.off)
			}
		}
	}
	// A <style> sheet's reference may apply to every element (every
	// vertex, for a marker): its selectors are not matched here.
	var allVerts int64 = -1
	for _, e := range d.sheet {
		if e.target < 0 {
			continue
		}
		times := int64(n)
		if e.marker {
			if allVerts < 0 {
				allVerts = 0
				for _, s := range d.shape {
					allVerts += int64(countVertices(s))
				}
			}
			times = max(allVerts, 1)
		}
		add(mulCap(d.size[e.target], times, limit), e.off)
	}
	if copies > MaxCopies {
		alone := fmt.Sprint(worstCopies)
		if worstCopies >= MaxCopies {
			alone = fmt.Sprintf("%d or more", MaxCopies) // counting stopped there
		}
		w.Add(RuleUnsafe, worstOff, "the icon's references to its own elements (<use>, and url(#…) in mask, clip-path, fill, filter, marker…) make renderers draw more than %d copies of its elements (this one alone %s), which freezes an editor drawing it; draw the shapes once, or reuse them a few times without nesting references", MaxCopies, alone)
	}
}

// resolve finds each reference's element. A gradient counts as nothing
// found: naming one draws no element.
func (d *draws) resolve(es []edge) {
	for k := range es {
		es[k].target = -1
		if t, ok := d.ids[es[k].name]; ok && !d.gradient[t] {
			es[k].target = t
		}
	}
}

// edgesOf is element i's references.
func (d *draws) edgesOf(i int32) []edge {
	end := int32(len(d.edges))
	if int(i)+1 < len(d.edgeStart) {
		end = d.edgeStart[i+1]
	}
	return d.edges[d.edgeStart[i]:end]
}

// weight is how many times element i draws e's target: once, or for a
// marker at each vertex of i's shape (an animation's marker: of the
// shape it animates, its parent's).
func (d *draws) weight(i int32, e edge) int64 {
	if !e.marker {
		return 1
	}
	s := d.shape[i]
	if s == "" && d.parent[i] >= 0 {
		s = d.shape[d.parent[i]]
	}
	return int64(max(countVertices(s), 1))
}

// countVertices estimates a path's or polyline's vertices, a marker's
// places: its commands (each "z" too) and half its numbers, read as SVG
// reads them (".5.5" is two numbers, "1e-3" one). A run of one-number
// commands (h1 1 1) is undercounted by half at most.
func countVertices(s string) int {
	letters, numbers := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c == '.':
			numbers++
			i = numberEnd(s, i)
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
			letters++
			i++
		default:
			i++
		}
	}
	return letters + (numbers+1)/2
}

// numberEnd is where the number starting at s[i] (a digit or '.') ends:
// a second '.' starts the next number.
func numberEnd(s string, i int) int {
	dot := false
	for i < len(s) {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && !dot:
			dot = true
		case (c == 'e' || c == 'E') && i+1 < len(s):
			i++
			if s[i] == '+' || s[i] == '-' {
				i++
			}
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			return i
		default:
			return i
		}
		i++
	}
	return i
}

// count is how many elements a renderer draws for element i, copies
// included, up to limit. An element reached again while it is being
// counted is a loop.
func (d *draws) count(i int32, limit int64, loop *bool) int64 {
	switch d.state[i] {
	case 2:
		return d.size[i]
	case 1:
		*loop = true
		return limit
	}
	d.state[i] = 1
	s := int64(1)
	for _, c := range d.kids[d.kidStart[i]:d.kidStart[i+1]] {
		if s >= limit || *loop {
			break
		}
		s = min(s+d.count(c, limit, loop), limit)
	}
	for _, e := range d.edgesOf(i) {
		if e.target < 0 || s >= limit || *loop {
			continue
		}
		s = min(s+mulCap(d.count(e.target, limit, loop), d.weight(i, e), limit), limit)
	}
	if *loop {
		// Left marked as being counted, for loopAt to find.
		return limit
	}
	d.size[i], d.state[i] = s, 2
	return s
}

// loopAt is where to report a loop: the first reference in document
// order between two elements that were being counted when it showed.
func (d *draws) loopAt() int {
	for i := range int32(len(d.parent)) {
		if d.state[i] != 1 {
			continue
		}
		for _, e := range d.edgesOf(i) {
			if e.target >= 0 && d.state[e.target] == 1 {
				return e.off
			}
		}
	}
	return 0
}

// mulCap is a×b, at most limit.
func mulCap(a, b, limit int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a >= limit || b >= limit || a > limit/b {
		return limit
	}
	return min(a*b, limit)
}

// fill is s resized to n elements, each v, keeping its capacity.
func fill[T int32 | int64 | uint8](s []T, n int, v T) []T {
	if cap(s) < n {
		s = make([]T, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = v
	}
	return s
}
