package icons

import (
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// number is an SVG number: no Inf, NaN, hex or digit separators, which
// strconv.ParseFloat would otherwise accept. Compiled on first use, not
// at init: programs that link this package need not pay for it.
var number = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)
})

func parseNumber(s string) (float64, bool) {
	if !number().MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// parseLength reads a width or height. px is the unit SVG assumes anyway;
// % and physical units depend on the page, so they are unusable here.
func parseLength(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && strings.EqualFold(s[len(s)-2:], "px") {
		s = strings.TrimSpace(s[:len(s)-2])
	}
	f, ok := parseNumber(s)
	return f, ok && f > 0
}

// parseViewBox reads "min-x min-y width height", separated by white space
// and/or commas, and returns width and height.
func parseViewBox(s string) (w, h float64, ok bool) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' || r == '\n' })
	if len(f) != 4 {
		return 0, 0, false
	}
	var n [4]float64
	for i, x := range f {
		if n[i], ok = parseNumber(x); !ok {
			return 0, 0, false
		}
	}
	if n[2] <= 0 || n[3] <= 0 {
		return 0, 0, false
	}
	return n[2], n[3], true
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// size applies the size rules to the root element.
func (c *checker) size(t xml.StartElement, raw []rawAttr, off int) {
	var width, height, viewBox *rawAttr
	var wv, hv, vbv string
	for i, a := range t.Attr {
		if a.Name.Space != "" {
			continue
		}
		ra := matchAttr(raw, i, a, off)
		switch a.Name.Local {
		case "width":
			width, wv = &ra, a.Value
		case "height":
			height, hv = &ra, a.Value
		case "viewBox":
			viewBox, vbv = &ra, a.Value
		}
	}
	w, wok := 0.0, false
	h, hok := 0.0, false
	if width != nil {
		w, wok = parseLength(wv)
	}
	if height != nil {
		h, hok = parseLength(hv)
	}
	vw, vh, vok := 0.0, 0.0, false
	if viewBox != nil {
		vw, vh, vok = parseViewBox(vbv)
	}
	const fix = `set width="16" height="16" viewBox="0 0 16 16" on <svg>`
	// The size that decides is width/height when both are usable, else
	// the viewBox. Not square and not 16×16 are separate rules, so a
	// 16×32 icon breaks both.
	switch {
	case wok && hok:
		if w != h {
			c.add(RuleNotSquare, width.nameOff, "the icon is %s×%s, not square; %s", fmtNum(w), fmtNum(h), fix)
		}
		if w != Size || h != Size {
			c.add(RuleSize, width.nameOff, "the icon is %s×%s; icons must be 16×16: %s", fmtNum(w), fmtNum(h), fix)
		}
		// preserveAspectRatio defaults to xMidYMid meet: the drawing is
		// letterboxed, not distorted, and the public registry ships such
		// icons, hence a warning. With a size not square, one not-square
		// problem says enough.
		if vok && vw != vh && w == h {
			c.warn(RuleViewBoxNotSquare, viewBox.nameOff, "the viewBox %s is %s×%s, not square, so the drawing is letterboxed (shrunk, with empty bands) in the square icon; redraw it on a square canvas (viewBox=\"0 0 16 16\")", quote(vbv), fmtNum(vw), fmtNum(vh))
		}
	case vok:
		if vw != vh {
			c.add(RuleNotSquare, viewBox.nameOff, "the viewBox %s is %s×%s, not square; redraw it on a square canvas and %s", quote(vbv), fmtNum(vw), fmtNum(vh), fix)
		}
		if vw != Size || vh != Size {
			c.add(RuleSize, viewBox.nameOff, "the icon's size comes from its viewBox, %s×%s; icons must be 16×16: %s", fmtNum(vw), fmtNum(vh), fix)
		}
	default:
		var why []string
		for _, x := range []struct {
			name string
			a    *rawAttr
			v    string
			ok   bool
		}{{"width", width, wv, wok}, {"height", height, hv, hok}} {
			if x.a != nil && !x.ok {
				why = append(why, x.name+"="+quote(x.v)+" is not a size in pixels")
			}
		}
		if viewBox != nil {
			why = append(why, "viewBox="+quote(vbv)+" is not four numbers with a positive width and height")
		}
		detail := "it has neither width/height nor a viewBox"
		if len(why) > 0 {
			detail = strings.Join(why, ", ")
		}
		c.add(RuleSizeMissing, off, "the icon's size is unknown: %s; %s", detail, fix)
	}
}
