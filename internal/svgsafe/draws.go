package svgsafe

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// MaxCopies bounds the copies of elements that an icon's references make
// a renderer draw: a <use> draws a copy of what it names, and mask,
// clip-path and marker draw their element's content for each shape that
// names them (a marker once for each vertex), copies included. A
// kilobyte of nested references asks for billions (librsvg's
// CVE-2019-20446). In Chromium, 10^4 copies through <use> took 1.5 s to
// draw, 10^6 over a minute, and seven levels of ten through mask,
// clip-path or marker over 40 s. A 16×16 icon has 256 pixels: no drawing
// needs more than a thousand copies. No icon of the public registry uses
// <use> or marker; the four with a mask or a clip path use each once.
const MaxCopies = 1000

// draws is the part of a walk that counts what references make a
// renderer draw: the element tree in document order, the ids, and the
// references that draw another element's content.
type draws struct {
	on        bool             // the icon has "use", "mask", "clip" or "marker" in it at all
	parent    []int32          // each element's parent, -1 for the root
	edgeStart []int32          // each element's first reference in edges
	verts     []int64          // each element's vertices (numbers in d or points, halved)
	open      []int32          // the open elements, outermost first
	ids       map[string]int32 // id → the first element with it, as browsers pick
	edges     []edge           // the elements' references, grouped by element
	sheet     []edge           // references in <style> sheets: they may apply to any element
	allVerts  int64

	// The count, after the walk.
	kids, kidStart, cursor []int32
	size                   []int64 // what a renderer draws for each element, copies included (capped)
	state                  []uint8 // 0 not counted, 1 being counted, 2 counted
}

// edge is one reference that draws element name's content.
type edge struct {
	name   string // the id, without "#"
	off    int    // where it is written
	marker bool   // drawn once for each vertex
	target int32  // resolved after the walk; -1 when no element has the id
}

// reset readies d for data: most icons reference nothing, and skip the
// bookkeeping.
func (d *draws) reset(data []byte) {
	d.on = mayDraw(data)
	d.parent, d.edgeStart, d.verts, d.open = d.parent[:0], d.edgeStart[:0], d.verts[:0], d.open[:0]
	d.allVerts = 0
	d.release()
}

// release drops the icon's strings; a map a crafted icon grew is dropped
// whole rather than cleared for every icon after it.
func (d *draws) release() {
	d.edges, d.sheet = clearAll(d.edges), clearAll(d.sheet)
	if len(d.ids) > 64 {
		d.ids = nil
	}
	clear(d.ids)
}

// mayDraw reports whether data holds a word that starts a drawing
// reference (use, mask, clip-path, marker) in any ASCII case. Most icons
// hold none (clip-rule, common, is not one), and skip the bookkeeping.
func mayDraw(data []byte) bool {
	for _, w := range [...]string{"use", "mask", "clip-path", "marker"} {
		if indexFold(data, w) >= 0 {
			return true
		}
	}
	return false
}

// indexFold is the index of word (lower-case ASCII letters and '-') in
// data in any ASCII case, or -1. It reads data once: the next lower- and
// upper-case first letters are each searched for only when passed.
func indexFold(data []byte, word string) int {
	lo, up := word[0], word[0]-('a'-'A')
	nextLo, nextUp := indexFrom(data, 0, lo), indexFrom(data, 0, up)
	for {
		i := nextLo
		if i < 0 || (nextUp >= 0 && nextUp < i) {
			i = nextUp
		}
		if i < 0 || i+len(word) > len(data) {
			return -1
		}
		k := 1
		// b|0x20 lower-cases an ASCII letter and leaves '-' as it is (a
		// carriage return passes for '-' too: this only decides whether
		// to look closer).
		for k < len(word) && data[i+k]|0x20 == word[k] {
			k++
		}
		if k == len(word) {
			return i
		}
		if i == nextLo {
			nextLo = indexFrom(data, i+1, lo)
		} else {
			nextUp = indexFrom(data, i+1, up)
		}
	}
}

// indexFrom is the index of the first c in data at or after from, or -1.
func indexFrom(data []byte, from int, c byte) int {
	if j := bytes.IndexByte(data[from:], c); j >= 0 {
		return from + j
	}
	return -1
}

// openElement records an element; what it references follows, until the
// next element opens.
func (d *draws) openElement() {
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
	d.verts = append(d.verts, 0)
}

func (d *draws) closeElement() {
	if d.on && len(d.open) > 0 {
		d.open = d.open[:len(d.open)-1]
	}
}

func (d *draws) current() int32 {
	if len(d.open) == 0 {
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

// shape counts the current element's vertices from its d or points.
func (d *draws) shape(value string) {
	if !d.on {
		return
	}
	i := d.current()
	if i < 0 {
		return
	}
	n := int64(countNumbers(value)/2 + 1)
	d.verts[i] += n
	d.allVerts += n
}

// countNumbers counts the runs of digits in s: a path's or a polyline's
// coordinates, near enough to weigh a marker drawn at each vertex.
func countNumbers(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		digit := s[i] >= '0' && s[i] <= '9'
		if digit && !in {
			n++
		}
		in = digit || (in && s[i] == '.')
	}
	return n
}

// ref records that the current element (or, from a <style> sheet, any
// element) draws the content of the element named by #name.
func (d *draws) ref(name string, off int, marker bool, where cssPlace) {
	if !d.on || name == "" {
		return
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

// drawProperty says whether a property (in lower case) draws the content
// of the element its url(#id) names, and whether once per vertex.
func drawProperty(name string) (draws, marker bool) {
	switch name {
	case "mask", "clip-path":
		return true, false
	case "marker", "marker-start", "marker-mid", "marker-end":
		return true, true
	}
	return false, false
}

// drawPatterns are compiled on first use (see cssPatterns).
var drawPatterns = sync.OnceValue(func() (p struct{ decl, local *regexp.Regexp }) {
	// A declaration of a drawing property, as cssPatterns' colour one.
	p.decl = regexp.MustCompile(`(?i)(?:^|[\s;{])(mask|clip-path|marker|marker-start|marker-mid|marker-end)\s*:\s*([^;}]*)`)
	// url(#id), quoted or not.
	p.local = regexp.MustCompile(`(?i)url\(\s*["']?#([^"')\s]+)`)
	return p
})

// drawRefs records the url(#id) references in value, a drawing
// property's, at off (a value's offset maps through at).
func (w *Walker) drawRefs(prop, value string, at func(int) int, where cssPlace) {
	if !w.draws.on {
		return
	}
	draws, marker := drawProperty(prop)
	if !draws || !hasURL(value) {
		return
	}
	for _, m := range drawPatterns().local.FindAllStringSubmatchIndex(value, -1) {
		w.draws.ref(value[m[2]:m[3]], at(m[0]), marker, where)
	}
}

// drawDeclarations records the drawing references of CSS text.
func (w *Walker) drawDeclarations(css string, at func(int) int, where cssPlace) {
	if !w.draws.on || !hasURL(css) {
		return
	}
	for _, m := range drawPatterns().decl.FindAllStringSubmatchIndex(css, -1) {
		prop := strings.ToLower(css[m[2]:m[3]])
		start := m[4]
		w.drawRefs(prop, css[m[4]:m[5]], func(i int) int { return at(start + i) }, where)
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
	for k := range d.edges {
		d.edges[k].target = d.lookup(d.edges[k].name)
	}
	for k := range d.sheet {
		d.sheet[k].target = d.lookup(d.sheet[k].name)
	}
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
	var copies int64
	worstCopies, worstOff := int64(-1), 0
	for i := range n {
		loop := false
		d.count(int32(i), limit, &loop)
		if loop {
			w.Add(RuleUnsafe, d.loopAt(), "this reference leads into a loop (an element drawn inside itself through <use>, mask, clip-path or marker), which renderers must catch; reference only elements that do not contain the reference: remove it")
			return
		}
	}
	// What each reference adds: its target's count, times the vertices
	// for a marker.
	for i := range n {
		for _, e := range d.edgesOf(int32(i)) {
			if e.target < 0 {
				continue
			}
			c := mulCap(d.size[e.target], d.weight(int32(i), e), limit)
			if c > worstCopies {
				worstCopies, worstOff = c, e.off
			}
			copies = min(copies+c, limit)
		}
	}
	// A <style> sheet's reference may apply to every element (every
	// vertex, for a marker): its selectors are not matched here.
	for _, e := range d.sheet {
		if e.target < 0 {
			continue
		}
		times := int64(n)
		if e.marker {
			times = max(d.allVerts, 1)
		}
		c := mulCap(d.size[e.target], times, limit)
		if c > worstCopies {
			worstCopies, worstOff = c, e.off
		}
		copies = min(copies+c, limit)
	}
	if copies > MaxCopies {
		alone := fmt.Sprint(worstCopies)
		if worstCopies >= MaxCopies {
			alone = fmt.Sprintf("%d or more", MaxCopies) // counting stopped there
		}
		w.Add(RuleUnsafe, worstOff, "the icon's references (<use>, mask, clip-path, marker) make renderers draw more than %d copies of its elements (this one alone %s), which freezes an editor drawing it; draw the shapes once, or reuse them a few times without nesting references", MaxCopies, alone)
	}
}

func (d *draws) lookup(name string) int32 {
	if t, ok := d.ids[name]; ok {
		return t
	}
	return -1
}

// edgesOf is element i's references.
func (d *draws) edgesOf(i int32) []edge {
	end := int32(len(d.edges))
	if int(i)+1 < len(d.edgeStart) {
		end = d.edgeStart[i+1]
	}
	return d.edges[d.edgeStart[i]:end]
}

// weight is how many times element i draws e's target.
func (d *draws) weight(i int32, e edge) int64 {
	if e.marker {
		return max(d.verts[i], 1)
	}
	return 1
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
