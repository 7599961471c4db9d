package svgsafe

import (
	"encoding/xml"
	"math"
	"strconv"
	"strings"
)

// A filter costs its region's area, for every primitive, on every draw:
// in headless Chromium, 300 blurs over a 2000×2000 region of a 16×16 icon
// took 25 s, and fifty shapes with CSS "blur(1000px) drop-shadow(0 0
// 500px red) blur(800px)" over 40 s, where the same over 3× the viewBox,
// or with 16px radii, drew in normal time.
const (
	// maxRegionTimes bounds a filter region against the icon: x, y,
	// width and height in user space within this many viewBox sizes, or
	// this many times the shape's box (objectBoundingBox, the default).
	maxRegionTimes = 4
	// maxFilterRadius bounds a CSS blur() or drop-shadow() length, in px:
	// four icons' widths.
	maxFilterRadius = 64
)

// extent is the icon's size in user units, for filter regions: the
// larger side of its viewBox, else 16 (user units are then pixels of a
// 16×16 icon).
func extent(t xml.StartElement) float64 {
	for _, a := range t.Attr {
		if a.Name.Space == "" && a.Name.Local == "viewBox" {
			if w, h, ok := ParseViewBox(a.Value); ok {
				return max(w, h)
			}
		}
	}
	return 16
}

// filterRegion reports a <filter> whose region is far larger than the
// icon (or its shapes' boxes).
func (w *Walker) filterRegion(t xml.StartElement, raw []RawAttr, off int) {
	userSpace := false
	for _, a := range t.Attr {
		if a.Name.Space == "" && a.Name.Local == "filterUnits" && strings.TrimSpace(a.Value) == "userSpaceOnUse" {
			userSpace = true
		}
	}
	for i, a := range t.Attr {
		if a.Name.Space != "" {
			continue
		}
		switch a.Name.Local {
		case "x", "y", "width", "height":
		default:
			continue
		}
		v, unit, ok := cssLength(a.Value)
		if !ok {
			continue
		}
		// A fraction of the box (or of the viewport, for a percentage).
		times := v
		switch {
		case unit == "%":
			times = v / 100
		case userSpace:
			times = v * unitPx(unit) / w.extent
		}
		if math.Abs(times) > maxRegionTimes {
			ra := MatchAttr(raw, i, a, off)
			w.Add(RuleUnsafe, ra.NameOff, "the filter's %s=%s makes its region %s times the icon; renderers run every filter over its whole region, so a few such filters freeze an editor drawing the icon: keep the region near the shapes (leave x, y, width and height out, or within %d times the viewBox)", Printable(a.Name.Local), Quote(a.Value), fmtTimes(times), maxRegionTimes)
			return // one problem per filter is enough
		}
	}
}

// filterFunctions reports CSS blur() and drop-shadow() lengths past
// maxFilterRadius in value, a filter property's (attribute or CSS), whose
// offset maps through at.
func (w *Walker) filterFunctions(prop, value string, at func(int) int) {
	switch strings.TrimPrefix(prop, "-webkit-") {
	case "filter", "backdrop-filter":
	default:
		return
	}
	lower := strings.ToLower(value)
	for _, fn := range [...]string{"blur(", "drop-shadow("} {
		for from := 0; ; {
			i := strings.Index(lower[from:], fn)
			if i < 0 {
				break
			}
			start := from + i
			end := strings.IndexByte(lower[start:], ')')
			if end < 0 {
				end = len(lower) - start
			}
			args := lower[start+len(fn) : start+end]
			for _, f := range strings.FieldsFunc(args, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' || r == '\r' }) {
				v, unit, ok := cssLength(f)
				if ok && math.Abs(v)*unitPx(unit) > maxFilterRadius {
					w.Add(RuleUnsafe, at(start), "%s has %s %s, and renderers blur over a region that grows with it, so a few such filters freeze an editor drawing the icon; keep blur() and drop-shadow() lengths within %dpx", Printable(prop), strings.TrimSuffix(fn, "("), Quote(f), maxFilterRadius)
					return
				}
			}
			from = start + len(fn)
		}
	}
}

// cssLength reads a number with an optional unit ("12", "-1.5e2px",
// "300%").
func cssLength(s string) (v float64, unit string, ok bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '-' || s[i] == '+' ||
		(s[i] == 'e' || s[i] == 'E') && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '-' || s[i+1] == '+')) {
		i++
	}
	v, ok = ParseNumber(s[:i])
	if !ok {
		return 0, "", false
	}
	return v, strings.ToLower(strings.TrimSpace(s[i:])), true
}

// unitPx is how many pixels (user units) one unit is; units that depend
// on the page count as large.
func unitPx(unit string) float64 {
	switch unit {
	case "", "px":
		return 1
	case "em", "rem", "pc", "ex", "ch":
		return 16
	case "pt":
		return 4.0 / 3
	case "in":
		return 96
	case "cm":
		return 96 / 2.54
	case "mm":
		return 96 / 25.4
	case "q":
		return 96 / 101.6
	}
	return 100 // vw, vh, % in CSS lengths, and the rest
}

func fmtTimes(f float64) string {
	if math.IsInf(f, 0) || math.Abs(f) >= 1e6 {
		return "a million"
	}
	return strconv.FormatFloat(math.Abs(f), 'f', 0, 64)
}
