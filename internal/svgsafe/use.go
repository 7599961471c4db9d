package svgsafe

import (
	"bytes"
	"fmt"
)

// MaxUseCopies bounds the element copies an icon's <use> references make
// a renderer build. Each <use> is drawn as a copy of what it names, copies
// included, so a kilobyte of nested references asks for billions
// (librsvg's CVE-2019-20446); in Chromium, 10^4 copies took 1.5 s to draw
// and 10^6 over a minute. A 16×16 icon has 256 pixels: no drawing needs
// more than a thousand copies, and no icon of the public registry uses
// <use> at all.
const MaxUseCopies = 1000

// uses is the <use> check's part of a walk: the element tree in document
// order, the ids, and the <use> elements with the ids they name.
type uses struct {
	on     bool             // the icon has "use" in it at all
	parent []int32          // each element's parent, -1 for the root
	open   []int32          // the open elements, outermost first
	ids    map[string]int32 // id → the first element with it, as browsers pick
	use    []int32          // the <use> elements
	names  []string         // names[k]: the id use[k] names (without "#")
	offs   []int            // offs[k]: where use[k] starts

	// The count, after the walk.
	ref      []int32 // each element's target when it is a <use>, else -1
	kids     []int32 // children, grouped by parent from kidStart
	kidStart []int32
	cursor   []int32
	size     []int64 // elements a renderer builds for each, copies included (capped)
	state    []uint8 // 0 not counted, 1 being counted, 2 counted
}

// reset readies u for data: most icons have no <use>, and skip the
// bookkeeping.
func (u *uses) reset(data []byte) {
	u.on = hasUse(data)
	u.parent, u.open, u.use, u.offs = u.parent[:0], u.open[:0], u.use[:0], u.offs[:0]
	u.release()
}

// release drops the icon's strings; a map a crafted icon grew is dropped
// whole rather than cleared for every icon after it.
func (u *uses) release() {
	u.names = clearAll(u.names)
	if len(u.ids) > 64 {
		u.ids = nil
	}
	clear(u.ids)
}

// hasUse reports whether data holds "use" in any ASCII case.
func hasUse(data []byte) bool {
	for i := 0; ; {
		j := bytes.IndexAny(data[i:], "uU")
		if j < 0 || i+j+3 > len(data) {
			return false
		}
		i += j + 1
		if data[i]|0x20 == 's' && data[i+1]|0x20 == 'e' {
			return true
		}
	}
}

// startElement records an element, its id, and what a <use> names.
func (u *uses) startElement(local, id, href string, off int) {
	if !u.on {
		return
	}
	i := int32(len(u.parent))
	p := int32(-1)
	if len(u.open) > 0 {
		p = u.open[len(u.open)-1]
	}
	u.parent = append(u.parent, p)
	u.open = append(u.open, i)
	if id != "" {
		if u.ids == nil {
			u.ids = make(map[string]int32)
		}
		if _, ok := u.ids[id]; !ok {
			u.ids[id] = i
		}
	}
	if local == "use" && len(href) > 1 && href[0] == '#' {
		u.use = append(u.use, i)
		u.names = append(u.names, href[1:])
		u.offs = append(u.offs, off)
	}
}

func (u *uses) endElement() {
	if u.on && len(u.open) > 0 {
		u.open = u.open[:len(u.open)-1]
	}
}

// checkUses reports references that lead into a loop (an element drawn
// inside itself, which renderers must catch) or that make more than
// MaxUseCopies copies: one problem, at the <use> where it shows.
func (w *Walker) checkUses() {
	u := &w.uses
	if len(u.use) == 0 {
		return
	}
	n := len(u.parent)
	u.ref = fill(u.ref, n, -1)
	for k, i := range u.use {
		if t, ok := u.ids[u.names[k]]; ok {
			u.ref[i] = t
		}
	}
	// Children grouped by parent (a counting sort), so that an element's
	// count can add its children's.
	u.kidStart = fill(u.kidStart, n+1, 0)
	for _, p := range u.parent {
		if p >= 0 {
			u.kidStart[p+1]++
		}
	}
	for i := 1; i <= n; i++ {
		u.kidStart[i] += u.kidStart[i-1]
	}
	u.kids = fill(u.kids, n, 0)
	u.cursor = fill(u.cursor, n, 0)
	for i, p := range u.parent {
		if p >= 0 {
			u.kids[u.kidStart[p]+u.cursor[p]] = int32(i)
			u.cursor[p]++
		}
	}
	u.size = fill(u.size, n, 0)
	u.state = fill(u.state, n, 0)

	const limit = MaxUseCopies + 1
	var copies int64
	worst, worstCopies := 0, int64(-1)
	for k, i := range u.use {
		if u.ref[i] < 0 {
			continue
		}
		loop := false
		// What this <use> adds is its count less itself.
		c := u.count(i, limit, &loop) - 1
		if loop {
			w.Add(RuleUnsafe, u.offs[k], "this <use> leads into a loop of <use> references (an element drawn inside itself), which renderers must catch; icons may only reuse elements that do not contain the <use>: remove it")
			return
		}
		if c > worstCopies {
			worst, worstCopies = k, c
		}
		copies = min(copies+c, limit)
	}
	if copies > MaxUseCopies {
		alone := fmt.Sprint(worstCopies)
		if worstCopies >= MaxUseCopies {
			alone = fmt.Sprintf("%d or more", MaxUseCopies) // counting stopped there
		}
		w.Add(RuleUnsafe, u.offs[worst], "the icon's <use> elements make renderers build more than %d copies of its elements (this one alone %s), which freezes an editor drawing it; draw the shapes once, or reuse them a few times without nesting <use>", MaxUseCopies, alone)
	}
}

// count is how many elements a renderer builds for element i, copies
// included, up to limit. An element reached again while it is being
// counted is a loop.
func (u *uses) count(i int32, limit int64, loop *bool) int64 {
	switch u.state[i] {
	case 2:
		return u.size[i]
	case 1:
		*loop = true
		return limit
	}
	u.state[i] = 1
	s := int64(1)
	for _, c := range u.kids[u.kidStart[i]:u.kidStart[i+1]] {
		if s >= limit || *loop {
			break
		}
		s = min(s+u.count(c, limit, loop), limit)
	}
	if t := u.ref[i]; t >= 0 && s < limit && !*loop {
		s = min(s+u.count(t, limit, loop), limit)
	}
	u.size[i], u.state[i] = s, 2
	return s
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
